#!/usr/bin/env bash
# metrics.csv is checked against the checkpoint on resume: rows cut off are said, not lost in
# silence; garbage lines and rows that contradict the checkpoint are dropped and said, the old
# file kept beside as metrics.csv.damaged; `plot` refuses a damaged file instead of drawing it.
# (Rows past the checkpoint, which a killed run writes, are still dropped without a word:
# test_resume.sh, test_sigkill.sh.)
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
iters() { tail -n +2 "$1/metrics.csv" | cut -d, -f1 | tr '\n' ' '; }
T=(--hidden 16 --batch-size 2 --seed 4 --quiet --workers 1)

want=$("$bin" train "${T[@]}" --iterations 10 --run-dir "$tmp/straight" | crc)
fresh() { "$bin" train "${T[@]}" --iterations 8 --run-dir "$1" >/dev/null || fail "run $1"; }
resume() {  # dir -> rc in $rc, stderr in $err; checks the weights
    local out; out=$("$bin" train --resume "$1" --iterations 10 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err")
    [ "$(echo "$out" | crc)" = "$want" ] || fail "$1: weights after resume"
}

# cut short: 8 iterations done, the file cut after row 4
fresh "$tmp/cut"
head -5 "$tmp/cut/metrics.csv" > "$tmp/m" && cp "$tmp/m" "$tmp/cut/metrics.csv"
resume "$tmp/cut"
echo "cut short: rc $rc: $err"
[ $rc = 0 ] && [ "$(echo "$err" | wc -l)" = 1 ] && grep -q 'metrics.csv lacks the rows of 4 of the 8 iterations' <<<"$err" ||
    fail "a metrics.csv cut short went unsaid: rc $rc '$err'"
[ "$(iters "$tmp/cut")" = "1 2 3 4 9 10 " ] || fail "rows after the resume: $(iters "$tmp/cut")"

# deleted altogether
fresh "$tmp/gone"; rm "$tmp/gone/metrics.csv"
resume "$tmp/gone"
echo "deleted: rc $rc: $err"
[ $rc = 0 ] && grep -q 'metrics.csv is missing' <<<"$err" || fail "a deleted metrics.csv went unsaid: '$err'"

# garbage: a line that is no row, a row out of order, a row 8 that contradicts the checkpoint
fresh "$tmp/bad"
sed -i -e '4s/.*/3,xx,garbage,,,-999,1e300/' -e '9s/,-[0-9.]*,\([0-9.]*\)$/,5.000000,\1/' "$tmp/bad/metrics.csv"
printf '1,2,3,0.1,-21.0000,-21.000000,900.0\n' >> "$tmp/bad/metrics.csv"
cp "$tmp/bad/metrics.csv" "$tmp/bad.csv"
rm -f "$tmp/bad/curve.png"
err=$("$bin" plot "$tmp/bad" 2>&1 >"$tmp/plot.out"); rc=$?
echo "plot of garbage: rc $rc: $err"
[ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] && grep -q 'line 4: not a metrics row' <<<"$err" || fail "plot drew garbage: rc $rc '$err'"
[ -e "$tmp/bad/curve.png" ] && fail "plot wrote a curve of garbage"
resume "$tmp/bad"
echo "garbage: rc $rc: $err"
[ $rc = 0 ] && [ "$(echo "$err" | wc -l)" = 1 ] && grep -q 'did not agree with the checkpoint at iteration 8 (3 bad lines' <<<"$err" ||
    fail "garbage in metrics.csv went unsaid: rc $rc '$err'"
cmp -s "$tmp/bad.csv" "$tmp/bad/metrics.csv.damaged" || fail "the damaged file was not kept as it was"
[ "$(iters "$tmp/bad")" = "1 2 4 5 6 7 9 10 " ] || fail "rows after the resume: $(iters "$tmp/bad")"
diff <(grep -E '^(1|2|4|5|6|7|9|10),' "$tmp/straight/metrics.csv" | cut -d, -f1-3,5-) \
     <(tail -n +2 "$tmp/bad/metrics.csv" | cut -d, -f1-3,5-) || fail "the kept rows are not the run's"
if command -v gnuplot >/dev/null; then
    "$bin" plot "$tmp/bad" >/dev/null || fail "plot of the rebuilt file"
fi
# a second resume finds the file in agreement: only the rows lost for good are said
"$bin" train --resume "$tmp/bad" --iterations 11 --quiet >/dev/null 2>"$tmp/err" || fail "second resume"
grep -q 'did not agree' "$tmp/err" && fail "the rebuilt file was judged damaged: $(cat "$tmp/err")"
echo ok
