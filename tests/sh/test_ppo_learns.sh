#!/usr/bin/env bash
# --algo ppo learns: over 240k agent steps (16 envs x 128 steps x 117 iterations) the mean
# return of the last 40 finished episodes is at least 1.5 points above that of the first 40 (a
# random policy loses 21-0 or 21-1 nearly every game: the first 40 score about -20.5).
set -uo pipefail
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" train --algo ppo --envs 16 --steps 128 --hidden 64 --coarse 1 --seed 9 --iterations 117 --quiet \
    --checkpoint-every 0 --checkpoint-secs 0 --run-dir "$tmp/run" | tail -1 || { echo "FAIL: training"; exit 1; }
/usr/bin/python3 - "$tmp/run/metrics.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ret, prev = [], 0
for r in rows:          # each row: the episodes finished in that iteration and their mean
    n = int(r["episodes"]) - prev
    prev += n
    if n:               # an iteration that ended none leaves its batch mean empty
        ret += [float(r["batch_mean_reward"])] * n
first, last = sum(ret[:40]) / 40, sum(ret[-40:]) / 40
print(f"{len(ret)} episodes: first 40 mean {first:+.2f}, last 40 mean {last:+.2f}")
sys.exit(0 if len(ret) >= 80 and last >= first + 1.5 else 1)   # 80: the two 40s do not overlap
PY
