#!/usr/bin/env bash
# Ranks that disagree on what makes a run reproducible (here the seed) are refused at start:
# a clear message naming the rank and its host, a non-zero exit, no hang. A rank whose weights
# drift from rank 0's during the run is stopped the same way.
set -uo pipefail
source "$(dirname "$0")/mpi_common.sh"
tmp=$(mktemp -d /tmp/pongrl-mpi-XXXXXX); trap 'rm -rf "$tmp"' EXIT
MCA=("${TCP[@]}")
A=(train --iterations 2 --batch-size 2 --workers 1)
out=$(timeout 30 mpirun "${MCA[@]}" -np 1 "$BIN" "${A[@]}" --run-dir "$tmp/r1" --seed 1 : -np 1 "$BIN" "${A[@]}" --run-dir "$tmp/r1" --seed 2 2>&1)
rc=$?; rc_seed=$rc
echo "$out" | grep -v '^ *$' | head -20
[ $rc -ne 0 ] || { echo "FAIL: mismatched seeds were accepted (rc 0)"; exit 1; }
[ $rc -ne 124 ] || { echo "FAIL: mismatched seeds hung (timeout)"; exit 1; }
grep -q "rank 1 on $(hostname)" <<<"$out" || { echo "FAIL: message does not name rank 1 and its host"; exit 1; }
grep -q "seed=2 (rank 0: seed=1)" <<<"$out" || { echo "FAIL: message does not say what differs"; exit 1; }
grep -q '^Batch ' <<<"$out" && { echo "FAIL: training started anyway"; exit 1; }
[ -e "$tmp/r1/checkpoints" ] && { echo "FAIL: the refused run wrote a checkpoint"; exit 1; }
# --workers may differ between ranks: not part of the result
out=$(timeout 30 mpirun "${MCA[@]}" -np 1 "$BIN" "${A[@]}" --run-dir "$tmp/r2" --workers 1 : -np 1 "$BIN" "${A[@]}" --run-dir "$tmp/r2" --workers 2 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "$out"; echo "FAIL: differing --workers was refused (rc $rc)"; exit 1; }
# a different build (here the same binary with a byte appended: it runs, but its crc differs)
cp "$BIN" "$tmp/pongrl2" && printf x >>"$tmp/pongrl2"
out=$(timeout 30 mpirun "${MCA[@]}" -np 1 "$BIN" "${A[@]}" --run-dir "$tmp/r3" : -np 1 "$tmp/pongrl2" "${A[@]}" --run-dir "$tmp/r3" 2>&1)
rc=$?
grep '^pongrl:' <<<"$out"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "$out"; echo "FAIL: a different binary was accepted or hung (rc $rc)"; exit 1; }
grep -q "rank 1 on $(hostname) runs a different pongrl binary" <<<"$out" || { echo "$out"; echo "FAIL: no message about the binary"; exit 1; }
# a rank whose copy of the weights drifts (PONGRL_TEST_DIVERGE=2 makes rank 2's third update
# wrong; only the test build reads it) is caught at the next iteration, before its episodes count; rank 0's newest checkpoint
# stays right: resuming it in one process ends with the weights of a straight run
D=(train --iterations 6 --batch-size 3 --workers 1 --seed 4 --checkpoint-every 1)
want=$(timeout 60 "$BIN" "${D[@]}" --run-dir "$tmp/straight" 2>&1 | sed -n 's/.*weights crc32 \([0-9a-f]*\).*/\1/p')
[ -x "$HOOKS" ] || { echo "FAIL: $HOOKS missing (make build/pongrl-testhooks)"; exit 1; }
out=$(timeout 60 mpirun "${MCA[@]}" -x PONGRL_TEST_DIVERGE=2 -np 3 "$HOOKS" "${D[@]}" --run-dir "$tmp/drift" 2>&1)
rc=$?
grep '^pongrl: rank 0:' <<<"$out"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "$out"; echo "FAIL: a drifting rank was not stopped (rc $rc)"; exit 1; }
grep -q "the weights of rank 2 differ from rank 0's after iteration 3" <<<"$out" || { echo "$out"; echo "FAIL: no message naming the drifting rank"; exit 1; }
ls "$tmp/drift/checkpoints" | tr '\n' ' '; echo
got=$(timeout 60 "$BIN" train --resume "$tmp/drift" --iterations 6 --quiet 2>&1 | sed -n 's/.*weights crc32 \([0-9a-f]*\).*/\1/p')
echo "straight run $want, resumed after the drift $got"
[ -n "$want" ] && [ "$got" = "$want" ] || { echo "FAIL: the checkpoint left by the stopped run is not right"; exit 1; }
echo "PASS: different seed refused (rc $rc_seed), different binary refused, differing --workers accepted, a drifting rank stopped"
