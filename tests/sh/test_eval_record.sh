#!/usr/bin/env bash
# eval, record, plot on a small trained run: eval is reproducible (same seed, same output,
# whatever --workers); record writes a world-readable GIF of the whole game at real speed;
# plot draws curve.png (when gnuplot is installed); bad arguments give one line.
set -uo pipefail
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" train --hidden 16 --batch-size 2 --iterations 3 --quiet --run-dir "$tmp/run" >/dev/null || fail "train"
a=$("$bin" eval "$tmp/run" --episodes 6 --seed 4 --workers 1 --verbose) || fail "eval"
b=$("$bin" eval "$tmp/run" --episodes 6 --seed 4 --workers 3 --verbose) || fail "eval"
echo "$a"
[ "$(echo "$a" | tail -n +3)" = "$(echo "$b" | tail -n +3)" ] || fail "eval differs between --workers 1 and 3"
c=$("$bin" eval "$tmp/run" --episodes 6 --seed 4 --workers 2 --verbose)
[ "$(echo "$a" | tail -n +3)" = "$(echo "$c" | tail -n +3)" ] || fail "eval not reproducible"
echo "$a" | grep -qE '^mean score: -?[0-9.]+ ± [0-9.]+ \(95%' || fail "no interval line"
echo "$a" | grep -qE '^points won: [0-9.]+% \([0-9]+ of [0-9]+\)$' || fail "no points line"
echo "$a" | grep -qE '^mean episode length: [0-9]+ steps' || fail "no length line"
g=$("$bin" eval "$tmp/run" --episodes 6 --seed 4 --workers 1 --verbose --greedy) && echo "$g" | grep -q greedy || fail "greedy"
[ "$(echo "$a" | grep '^episode')" != "$(echo "$g" | grep '^episode')" ] || fail "--greedy plays as the stochastic policy does"

# record: episode 0 of eval with the same seed, to the end of the game
r=$("$bin" record "$tmp/run" --seed 4 --out "$tmp/game.gif" --with-input) || fail "record"
echo "$r"
[ "$(stat -c %a "$tmp/game.gif")" = 644 ] || fail "gif mode $(stat -c %a "$tmp/game.gif")"
head -c 6 "$tmp/game.gif" | grep -q GIF89a || fail "not a GIF89a"
steps=$(echo "$r" | sed -n 's/.*game over after \([0-9]*\) steps.*/\1/p')
want=$(echo "$a" | sed -n 's/^episode 0: .*, \([0-9]*\) steps.*/\1/p')
[ -n "$steps" ] && [ "$steps" = "$want" ] || fail "record played $steps steps, eval's episode 0 $want"
echo "$r" | grep -q '320x210' || fail "with-input size"
r=$("$bin" record "$tmp/run" --out "$tmp/short.gif" --max-steps 50) && echo "$r" | grep -q 'stopped at --max-steps' || fail "max-steps"
err=$("$bin" record "$tmp/run" --out "$tmp/no/such/dir/x.gif" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "record to a bad path: rc=$rc '$err'"
err=$("$bin" eval 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "eval without a model: rc=$rc"

# plot (training already drew one at its checkpoints)
if command -v gnuplot >/dev/null; then
    rm -f "$tmp/run/curve.png"
    p=$("$bin" plot "$tmp/run") && echo "$p" | grep -q curve.png || fail "plot"
    head -c 8 "$tmp/run/curve.png" | grep -q PNG || fail "curve.png is not a PNG"
else
    echo "note: gnuplot missing: plot not tested"
fi
echo ok
