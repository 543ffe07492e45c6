#!/usr/bin/env bash
# Exact resume: N iterations, then --resume to 2N, gives the weights (crc32) and metrics rows
# (all but wall_s) of 2N in one go; also with a different --workers, after a killed run left
# rows past its checkpoint, and past a newest checkpoint that is corrupt. Resume refuses
# run-defining flags, and a fresh run refuses a directory that already holds one.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
T=(--hidden 16 --batch-size 3 --seed 5 --quiet)

want=$("$bin" train "${T[@]}" --iterations 8 --workers 2 --run-dir "$tmp/straight" | crc)
[ -n "$want" ] || fail "straight run"
[ "$(rows "$tmp/straight" | wc -l)" = 9 ] || fail "straight metrics rows"

# 4 + resume to 8, resumed with one worker instead of two
"$bin" train "${T[@]}" --iterations 4 --workers 2 --checkpoint-every 3 --run-dir "$tmp/a" >/dev/null || fail "first half"
ls "$tmp/a/checkpoints" | tr '\n' ' '; echo
[ -f "$tmp/a/checkpoints/ckpt-00000004.bin" ] || fail "no checkpoint at the stop"
got=$("$bin" train --resume "$tmp/a" --iterations 8 --workers 1 --quiet | crc)
echo "straight $want, resumed $got"
[ "$got" = "$want" ] || fail "resumed weights differ"
diff <(rows "$tmp/straight") <(rows "$tmp/a") || fail "resumed metrics differ"
grep -q '^iteration = 8$' "$tmp/a/config.txt" || fail "config.txt not updated"

# a killed run: rows past the checkpoint (and a half-written line) are dropped on resume
"$bin" train "${T[@]}" --iterations 4 --run-dir "$tmp/k" >/dev/null || fail "k run"
printf '5,15,999,1.0,-21.0000,-21.000000,900.0\n6,18,99' >> "$tmp/k/metrics.csv"
got=$("$bin" train --resume "$tmp/k" --iterations 8 --quiet | crc)
[ "$got" = "$want" ] || fail "resume after extra rows: weights"
diff <(rows "$tmp/straight") <(rows "$tmp/k") || fail "extra rows not dropped"

# a corrupt newest checkpoint: said on one line, the one before is used, same result
"$bin" train "${T[@]}" --iterations 4 --checkpoint-every 2 --run-dir "$tmp/c" >/dev/null || fail "c run"
printf 'X' | dd of="$tmp/c/checkpoints/ckpt-00000004.bin" bs=1 seek=5000 conv=notrunc status=none
out=$("$bin" train --resume "$tmp/c" --iterations 8 --quiet 2>"$tmp/err")
cat "$tmp/err"
[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'warning: using .*ckpt-00000002.bin.*corrupted' "$tmp/err" || fail "corrupt newest not reported"
echo "$out" | grep -q 'resuming .*ckpt-00000002.bin at iteration 2' || fail "did not fall back to iteration 2"
[ "$(echo "$out" | crc)" = "$want" ] || fail "resume from the older checkpoint: weights"
diff <(rows "$tmp/straight") <(rows "$tmp/c") || fail "resume from the older checkpoint: metrics"

# resume keeps the run's configuration; a fresh run does not overwrite a run
err=$("$bin" train --resume "$tmp/a" --hidden 32 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "--resume with --hidden: rc=$rc '$err'"
# a flag of another learner than pg's (the default) says the same, not "a setting of --algo ppo"
for f in "--envs 4" "--sticky-warmup 1" "--replay 10"; do
    err=$("$bin" train --resume "$tmp/a" $f 2>&1 >/dev/null); rc=$?
    [ $rc = 2 ] && echo "$err" | grep -q -- "its own configuration: ${f%% *} may not be given" ||
        fail "--resume with $f: rc=$rc '$err'"
done
err=$("$bin" train "${T[@]}" --iterations 1 --run-dir "$tmp/a" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'already holds a run' || fail "fresh run into a used dir: rc=$rc '$err'"
err=$("$bin" train --resume "$tmp/nothing" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "resume of a missing dir: rc=$rc '$err'"
echo "$err"
echo "ok"
