#!/usr/bin/env bash
# Same seed, same bits: the weights after N iterations are identical with 1, 2 and 3 worker
# threads (episodes are handed out dynamically, so who plays which differs from run to run).
set -euo pipefail
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
crc() { "$bin" train --iterations 4 --batch-size 6 --seed 11 --workers "$1" --quiet --run-dir "$tmp/w$1" | sed -n 's/.*weights crc32 \([0-9a-f]*\).*/\1/p'; }
a=$(crc 1); b=$(crc 2); c=$(crc 3)
echo "workers 1: $a  2: $b  3: $c"
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ]
# the metrics agree too (all but the wall-time column)
for w in 2 3; do
    diff <(cut -d, -f1-3,5- "$tmp/w1/metrics.csv") <(cut -d, -f1-3,5- "$tmp/w$w/metrics.csv")
done
# and another seed gives other weights
d=$("$bin" train --iterations 4 --batch-size 6 --seed 12 --workers 2 --quiet --run-dir "$tmp/s12" | sed -n 's/.*weights crc32 \([0-9a-f]*\).*/\1/p')
echo "seed 12: $d"
[ "$d" != "$a" ]
