#!/usr/bin/env bash
# ALE's modes and difficulties on the command line: `train --mode/--difficulty` keeps them in the
# run (config.txt, the checkpoints; --resume may not change them), `eval` and `record` play the
# model's flavour unless told another; bad values give one line on stderr and exit code 2.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$bin" train --iterations 2 --batch-size 2 --workers 1 --mode 1 --difficulty 2 --run-dir "$tmp/run") || fail "train exited $?"
echo "$out" | head -1
echo "$out" | head -1 | grep -q '^pongrl train: ALE/Pong-v5 mode 1 difficulty 2, ' || fail "train header"
grep -qx 'mode = 1' "$tmp/run/config.txt" && grep -qx 'difficulty = 2' "$tmp/run/config.txt" || fail "config.txt: $(cat "$tmp/run/config.txt")"

# eval and record: the model's flavour by default, another when asked
out=$("$bin" eval "$tmp/run" --episodes 2 --workers 1) || fail "eval exited $?"
echo "$out" | sed -n 2p
echo "$out" | sed -n 2p | grep -q '^  ALE/Pong-v5 mode 1 difficulty 2, 2 episodes' || fail "eval of the run's flavour"
out=$("$bin" eval "$tmp/run" --episodes 2 --workers 1 --mode 0 --difficulty 0) || fail "eval --mode 0"
echo "$out" | sed -n 2p | grep -q '^  ALE/Pong-v5, 2 episodes' || fail "eval --mode 0 --difficulty 0: $out"
out=$("$bin" eval models/pong-v5 --episodes 2 --workers 1 --difficulty 3) || fail "eval --difficulty 3"
echo "$out" | sed -n 2p | grep -q '^  ALE/Pong-v5 mode 0 difficulty 3, 2 episodes' || fail "eval --difficulty 3: $out"
out=$("$bin" record models/pong-v5 --mode 1 --difficulty 1 --max-steps 20 --out "$tmp/g.gif") || fail "record --mode 1"
echo "$out" | sed -n 2p | grep -q '^  ALE/Pong-v5 mode 1 difficulty 1, seed 1' || fail "record header: $out"
[ "$(head -c 6 "$tmp/g.gif")" = GIF89a ] || fail "record wrote no GIF"

# --resume keeps the run's flavour
err=$("$bin" train --resume "$tmp/run" --mode 0 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "--resume --mode 0: rc=$rc '$err'"

for cmd in "train --run-dir $tmp/bad" "eval models/pong-v5" "record models/pong-v5 --out $tmp/b.gif"; do
    for bad in "--mode 2" "--mode -1" "--mode x" "--difficulty 4" "--difficulty -1"; do
        err=$("$bin" $cmd $bad 2>&1 >/dev/null); rc=$?
        [ $rc = 2 ] || fail "'$cmd $bad' exited $rc"
        [ "$(echo "$err" | wc -l)" = 1 ] || fail "'$cmd $bad' printed more than one line: $err"
    done
    echo "${cmd%% *} --mode 2 -> $("$bin" $cmd --mode 2 2>&1 >/dev/null)"
done
echo ok
