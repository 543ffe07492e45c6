#!/usr/bin/env bash
# A closed stdout is said, not a silent death by SIGPIPE: `train | head -3` stops after the
# batch with a final checkpoint, says so in one line on stderr and exits 1 (not 141), and the
# run resumes to the weights of a straight run; the other commands report a failed stdout too.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
T=(--hidden 16 --batch-size 2 --seed 8 --workers 1)

d=$tmp/run
"$bin" train "${T[@]}" --iterations 100000000 --run-dir "$d" 2>"$tmp/err" | head -3 >/dev/null
rc=${PIPESTATUS[0]}
echo "train | head -3: rc $rc: $(cat "$tmp/err")"
[ $rc = 1 ] || fail "rc $rc (141: killed by SIGPIPE)"
[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'cannot write to stdout' "$tmp/err" || fail "not one line on stderr: $(cat "$tmp/err")"
n=$(tail -1 "$d/metrics.csv" | cut -d, -f1)
[ -e "$d/checkpoints/ckpt-$(printf %08d "$n").bin" ] || fail "no final checkpoint at iteration $n: $(ls "$d/checkpoints")"
grep -q "ckpt-$(printf %08d "$n").bin" "$tmp/err" || fail "the message does not name the checkpoint"
m=$((n + 2))
got=$("$bin" train --resume "$d" --iterations $m --quiet | crc)
want=$("$bin" train "${T[@]}" --iterations $m --quiet --run-dir "$tmp/straight" | crc)
[ "$got" = "$want" ] || fail "resumed: weights $got, straight $want"

# --quiet: only the first and last lines go to stdout; the run ends, and the lost lines are said
"$bin" train "${T[@]}" --iterations 3 --quiet --run-dir "$tmp/q" 2>"$tmp/err" >/dev/full; rc=$?
echo "train --quiet >/dev/full: rc $rc: $(cat "$tmp/err")"
[ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'cannot write to stdout' "$tmp/err" || fail "train >/dev/full: rc $rc"
[ -e "$tmp/q/checkpoints/ckpt-00000003.bin" ] || fail "train >/dev/full: no final checkpoint"
"$bin" export "$tmp/q" --out "$tmp/npy" >/dev/full 2>"$tmp/err"; rc=$?
echo "export >/dev/full: rc $rc: $(cat "$tmp/err")"
[ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'cannot write to stdout' "$tmp/err" || fail "export >/dev/full: rc $rc"
echo ok
