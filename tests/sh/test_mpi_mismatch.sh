#!/usr/bin/env bash
# Ranks that disagree on what makes a run reproducible (here the seed) are refused at start:
# a clear message naming the rank and its host, a non-zero exit, no hang.
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${PONGRL_BIN:-$PWD/build/pongrl}
command -v mpirun >/dev/null || { echo "skip: mpirun not installed (apt-get install openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d /tmp/pongrl-mpi-XXXXXX); trap 'rm -rf "$tmp"' EXIT
MCA=(--oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
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
echo "PASS: different seed refused (rc $rc_seed), different binary refused (rc $rc), differing --workers accepted"
