#!/usr/bin/env bash
# A run killed while it writes its first checkpoint leaves only its temporary file,
# checkpoints/ckpt-00000000.bin.XXXXXXXX.tmp:
# there is nothing to resume, so --resume says what happened (not "no checkpoint"), and the
# same run started again in that directory is let in with a word (not "already holds a run")
# and ends with the weights of a run that was never killed.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
T=(--hidden 16 --batch-size 2 --seed 3 --quiet --workers 1 --iterations 3)

want=$("$bin" train "${T[@]}" --run-dir "$tmp/straight" | crc)
[ -n "$want" ] || fail "straight run"

# the failure this guards against: kill -9 as soon as the first checkpoint's temporary file appears
d=$tmp/d landed=
for try in 1 2 3 4 5 6 7 8; do
    rm -rf "$d"
    "$bin" train --seed 3 --checkpoint-every 1 --quiet --iterations 30 --workers 1 --run-dir "$d" >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 5000); do compgen -G "$d/checkpoints/ckpt-00000000.bin.*.tmp" >/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 0.001; done
    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
    if [ -z "$(ls "$d/checkpoints" | grep -v '\.tmp$')" ] && ls "$d/checkpoints" | grep -q '\.tmp$'; then landed=$try; break; fi
done
if [ -z "$landed" ]; then     # never inside the write on this machine: make the same state by hand
    echo "note: no kill landed inside the first write; making its leftovers by hand"
    rm -rf "$d"; mkdir -p "$d/checkpoints"; head -c 4096 /dev/urandom > "$d/checkpoints/ckpt-00000000.bin.0badf00d.tmp"
else echo "kill $landed landed inside the first checkpoint write: $(ls -A "$d" "$d/checkpoints" | tr '\n' ' ')"; fi

err=$("$bin" train --resume "$d" --iterations 3 2>&1 >/dev/null); rc=$?
echo "resume: rc $rc: $err"
[ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "--resume: rc $rc, '$err'"
grep -q 'unfinished first' <<<"$err" || fail "--resume does not say that the start was killed: '$err'"

out=$("$bin" train "${T[@]}" --run-dir "$d" 2>"$tmp/err"); rc=$?
echo "restart: rc $rc: $(cat "$tmp/err")"
[ $rc = 0 ] || fail "the run cannot be started again in $d: rc $rc, $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'starting afresh' "$tmp/err" || fail "the restart does not say so: $(cat "$tmp/err")"
[ "$(echo "$out" | crc)" = "$want" ] || fail "restarted run: weights $(echo "$out" | crc), want $want"
ls "$d/checkpoints" | grep -q '\.tmp$' && fail "the stray temporary file is still there"
# and from now on it is an ordinary run
"$bin" train "${T[@]}" --run-dir "$d" >/dev/null 2>&1 && fail "a second fresh start into the same run was let in"
echo ok
