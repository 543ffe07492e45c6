#!/usr/bin/env bash
# Same seed, same bits across machines: 2 and 3 MPI ranks over TCP on loopback must end with
# the same weights crc32 as one process started without mpirun, and so must a run resumed
# under mpirun from a single process's checkpoint (rank 0 sends its weights and cache once;
# then every rank updates its own copy, and the run checks at the end that they agree), also
# when only rank 0 can see the run directory. The 2- and 3-rank runs also log the same episode
# statistics (metrics.csv) as the single process.
set -uo pipefail
source "$(dirname "$0")/mpi_common.sh"
ARGS=(--iterations 6 --batch-size 5 --workers 1 --seed 7)
tmp=$(mktemp -d /tmp/pongrl-mpi-XXXXXX); trap 'rm -rf "$tmp"' EXIT

crc() { grep -o 'weights crc32 [0-9a-f]*' <<<"$1" | awk '{print $3}'; }
out=$(timeout 60 "$BIN" train "${ARGS[@]}" --run-dir "$tmp/r1" 2>&1) || { echo "$out"; echo "FAIL: single process run"; exit 1; }
ref=$(crc "$out")
[ -n "$ref" ] || { echo "$out"; echo "FAIL: no crc in the single-process output"; exit 1; }
echo "1 process:           weights crc32 $ref"
for np in 2 3; do
    # rank 1 and 2 get a different thread count: who plays what must not matter
    out=$(timeout 60 mpirun -np "$np" "${TCP[@]}" "$BIN" train "${ARGS[@]}" --run-dir "$tmp/r$np" 2>&1)
    rc=$?
    got=$(crc "$out")
    echo "$np ranks over TCP:    weights crc32 ${got:-none} (rc $rc)"
    if [ $rc -ne 0 ] || [ "$got" != "$ref" ]; then echo "$out"; echo "FAIL: $np ranks differ from 1 process"; exit 1; fi
    # the episodes' stats are gathered from the ranks that played them: the same metrics.csv
    # as one process, but for the wall time (column 4)
    if ! cmp -s <(cut -d, -f1-3,5- "$tmp/r1/metrics.csv") <(cut -d, -f1-3,5- "$tmp/r$np/metrics.csv"); then
        diff <(cut -d, -f1-3,5- "$tmp/r1/metrics.csv") <(cut -d, -f1-3,5- "$tmp/r$np/metrics.csv")
        echo "FAIL: $np ranks log other episode statistics than 1 process"; exit 1
    fi
    # every rank played: the share table lists one row per rank with episodes > 0
    rows=$(awk '/^ +[0-9]+ +[^ ]+ +[0-9]+ +[0-9]+ +[0-9.]+%/ && $4 > 0' <<<"$out" | wc -l)
    [ "$rows" -eq "$np" ] || { echo "$out"; echo "FAIL: expected $np ranks with episodes in the share table, got $rows"; exit 1; }
    # only rank 0 logs: one line per batch
    n=$(grep -c '^Batch ' <<<"$out")
    [ "$n" -eq 6 ] || { echo "$out"; echo "FAIL: expected 6 batch lines (rank 0 only), got $n"; exit 1; }
done
# ranks x threads: 2 ranks with 2 threads each
out=$(timeout 60 mpirun -np 2 "${TCP[@]}" "$BIN" train "${ARGS[@]}" --workers 2 --run-dir "$tmp/r22" 2>&1)
got=$(crc "$out")
echo "2 ranks x 2 threads: weights crc32 ${got:-none}"
[ "$got" = "$ref" ] || { echo "$out"; echo "FAIL: 2 ranks x 2 threads differ"; exit 1; }
# 1 rank under mpirun; 3 ranks with the entries' high parts in the 2- and 8-byte forms that
# larger sums fall back to (PONGRL_WIRE_HIGH; these small runs need 1 byte); and 3 ranks whose
# second all-reduce is done again, wider, as when a sum does not fit (PONGRL_TEST_WIRE_RETRY);
# those two variables are read only by the test build ($HOOKS), whose bits must be the same
[ -x "$HOOKS" ] || { echo "FAIL: $HOOKS missing (make build/pongrl-testhooks)"; exit 1; }
out=$(timeout 60 mpirun -np 1 "${TCP[@]}" "$BIN" train "${ARGS[@]}" --run-dir "$tmp/np1" 2>&1)
got=$(crc "$out")
echo "1 rank under mpirun: weights crc32 ${got:-none}"
[ "$got" = "$ref" ] || { echo "$out"; echo "FAIL: 1 rank under mpirun differs"; exit 1; }
for hs in 2 8; do
    out=$(timeout 60 mpirun -x PONGRL_WIRE_HIGH=$hs -np 3 "${TCP[@]}" "$HOOKS" train "${ARGS[@]}" --run-dir "$tmp/high$hs" 2>&1)
    got=$(crc "$out")
    echo "3 ranks, $((8 + hs))-byte entries: weights crc32 ${got:-none}"
    [ "$got" = "$ref" ] || { echo "$out"; echo "FAIL: 3 ranks with $((8 + hs))-byte entries differ"; exit 1; }
done
out=$(timeout 60 mpirun -x PONGRL_TEST_WIRE_RETRY=1 -np 3 "${TCP[@]}" "$HOOKS" train "${ARGS[@]}" --run-dir "$tmp/retry" 2>&1)
got=$(crc "$out")
echo "3 ranks, an all-reduce done again: weights crc32 ${got:-none}"
[ "$got" = "$ref" ] || { echo "$out"; echo "FAIL: 3 ranks with an all-reduce done again differ"; exit 1; }
grep -q '^all-reduce: done again 1 time with wider entries' <<<"$out" || { echo "$out"; echo "FAIL: no retry reported"; exit 1; }
# half the run in one process, the rest under mpirun
timeout 60 "$BIN" train "${ARGS[@]}" --iterations 3 --run-dir "$tmp/half" >/dev/null 2>&1 || { echo "FAIL: first half"; exit 1; }
out=$(timeout 60 mpirun -np 2 "${TCP[@]}" "$BIN" train --resume "$tmp/half" --iterations 6 --workers 1 2>&1)
got=$(crc "$out")
echo "3 + 3 resumed on 2 ranks: weights crc32 ${got:-none}"
[ "$got" = "$ref" ] || { echo "$out"; echo "FAIL: resumed under mpirun differs"; exit 1; }
# only rank 0 needs the run directory: ranks 1 and 2 are given one that does not exist
timeout 60 "$BIN" train "${ARGS[@]}" --iterations 3 --run-dir "$tmp/half2" >/dev/null 2>&1 || { echo "FAIL: first half (2)"; exit 1; }
out=$(timeout 60 mpirun -np 1 "${TCP[@]}" "$BIN" train --resume "$tmp/half2" --iterations 6 --workers 1 : \
      -np 2 "${TCP[@]}" "$BIN" train --resume "$tmp/not-on-this-host" --iterations 6 --workers 1 2>&1)
got=$(crc "$out")
echo "resumed on 3 ranks, only rank 0 sees the run: weights crc32 ${got:-none}"
[ "$got" = "$ref" ] || { echo "$out"; echo "FAIL: a resume where only rank 0 sees the run differs"; exit 1; }
echo "PASS: 1 process, 1, 2 and 3 ranks, 2x2, 9/10/16-byte entries, a retried all-reduce and resumes under mpirun give weights crc32 $ref"
