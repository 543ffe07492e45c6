#!/usr/bin/env bash
# A training run killed with SIGKILL at random moments (while playing, while writing a
# checkpoint) never leaves its newest checkpoint unreadable, and resuming it always ends
# with the weights and metrics rows of the same run done in one go.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
T=(--hidden 32 --batch-size 2 --seed 9 --quiet --workers 2)
N=16

want=$("$bin" train "${T[@]}" --iterations $N --run-dir "$tmp/straight" | crc)
[ -n "$want" ] || fail "straight run"
RANDOM=$$
for k in 1 2 3 4 5 6; do
    d="$tmp/k$k"
    # a checkpoint every iteration: the kill often lands inside a write
    "$bin" train "${T[@]}" --iterations $N --checkpoint-every 1 --run-dir "$d" >/dev/null 2>&1 &
    pid=$!
    sleep "0.$(printf '%03d' $((RANDOM % 800 + 20)))"
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    newest=$(ls "$d/checkpoints" 2>/dev/null | grep -E '^ckpt-[0-9]{8}\.bin$' | tail -1)
    inside=$(ls "$d/checkpoints" 2>/dev/null | grep -c '\.tmp$')
    if [ -z "$newest" ]; then echo "kill $k: before the first checkpoint"; continue; fi
    "$bin" export "$d/checkpoints/$newest" --out "$d/exp" >/dev/null 2>"$d/err" || fail "kill $k: newest $newest unreadable: $(cat "$d/err")"
    got=$("$bin" train --resume "$d" --iterations $N 2>"$d/err" | crc)
    [ -s "$d/err" ] && { cat "$d/err"; fail "kill $k: resume said something"; }
    echo "kill $k: newest $newest$([ "$inside" != 0 ] && echo ', killed inside a checkpoint write'), resumed to $got"
    [ "$got" = "$want" ] || fail "kill $k: weights $got, want $want"
    diff <(rows "$tmp/straight") <(rows "$d") >/dev/null || fail "kill $k: metrics rows differ"
    ls "$d/checkpoints" | grep -q '\.tmp$' && fail "kill $k: a temporary file was left after the resume"
done
echo "ok"
