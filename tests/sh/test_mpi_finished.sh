#!/usr/bin/env bash
# A finished run resumed under mpirun (its checkpoint already at --iterations): no iteration
# runs, yet every rank takes rank 0's state, so the run ends as one process does: it says where
# it stopped, the ranks agree on the weights, status 0, nothing written. (Rank 1 used to keep
# the weights of a fresh run, and the end check said "rank 1 ... ended with other weights (a
# different CPU or math library?)", status 1.) 20 tries, for a race as much as for the rule.
set -uo pipefail
source "$(dirname "$0")/mpi_common.sh"
tmp=$(mktemp -d /tmp/pongrl-mpi-XXXXXX); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
crc() { grep -o 'weights crc32 [0-9a-f]*' <<<"$1" | head -1 | awk '{print $3}'; }
r=$tmp/run
timeout 60 "$BIN" train --hidden 8 --batch-size 2 --iterations 4 --workers 1 --quiet --run-dir "$r" >/dev/null ||
    fail "the run"
one=$(timeout 60 "$BIN" train --resume "$r" --iterations 4 --workers 1 2>&1) || fail "one process: $one"
want=$(crc "$one")
grep -q '^stopped after 4 iterations' <<<"$one" || fail "one process: $one"
echo "one process: $(grep '^stopped' <<<"$one")"
before=$(ls -l --time-style=full-iso "$r/checkpoints")
for try in $(seq 20); do
    out=$(timeout 60 mpirun -np 2 "${TCP[@]}" "$BIN" train --resume "$r" --iterations 4 --workers 1 2>&1); rc=$?
    if [ $rc != 0 ] || [ "$(crc "$out")" != "$want" ] || ! grep -q '^stopped after 4 iterations' <<<"$out" ||
        ! grep -q "^weights: the same bits on all 2 ranks (crc32 $want)" <<<"$out"; then
        echo "$out"
        fail "try $try: rc $rc, want 0 and the weights of one process ($want)"
    fi
done
[ "$(ls -l --time-style=full-iso "$r/checkpoints")" = "$before" ] || fail "a finished run wrote checkpoints"
echo "2 ranks, 20 tries: status 0, $(grep '^weights:' <<<"$out")"
echo ok
