#!/usr/bin/env bash
# `pongrl train`: a short run prints Karpathy's log line and writes its metrics; bad flags
# give one line on stderr and exit code 2.
set -uo pipefail
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$bin" train --iterations 3 --batch-size 4 --run-dir "$tmp/run") || fail "train exited $?"
echo "$out"
# Karpathy's line, with how far along the run is when it ends at an iteration
[ "$(echo "$out" | grep -cE '^Batch [1-3]/3 computed 4 rollouts in [0-9.]+ seconds, running mean is -?[0-9.]+')" = 3 ] || fail "log lines"
# the header says when the run stops
echo "$out" | grep -qx 'pongrl train: stops after iteration 3' || fail "the header does not say where the run stops"
echo "$out" | grep -q "run dir $tmp/run" || fail "run dir not printed"
rows=$(tail -n +2 "$tmp/run/metrics.csv" | wc -l)
[ "$rows" = 3 ] || fail "metrics rows: $rows"
head -1 "$tmp/run/metrics.csv" | grep -q '^iteration,episodes,agent_steps,wall_s,batch_mean_reward,running_mean,mean_episode_length$' || fail "metrics header"
tail -1 "$tmp/run/metrics.csv" | grep -qE '^3,12,[0-9]+,' || fail "last row"

"$bin" train --help >"$tmp/help.txt" && grep -q -- '--target-reward' "$tmp/help.txt" || fail "help"
for bad in "--batch-size 0" "--batch-size x" "--lr -1" "--env Breakout-v5" "--bogus" "--iterations" "extra"; do
    err=$("$bin" train $bad --run-dir "$tmp/bad" 2>&1 >/dev/null); rc=$?
    [ $rc = 2 ] || fail "'$bad' exited $rc"
    [ "$(echo "$err" | wc -l)" = 1 ] || fail "'$bad' printed more than one line: $err"
    echo "$bad -> $err"
done

# --target-reward stops as soon as the running mean reaches it, and says so first; with no
# iteration to end at, the line has no "of how many"
out=$("$bin" train --target-reward -21 --batch-size 2 --run-dir "$tmp/t") || fail "target run"
echo "$out"
echo "$out" | tail -1 | grep -q "stopped after 1 iterations" || fail "target stop: $out"
echo "$out" | grep -q '^pongrl train: stops when the running mean reaches -21.00 (.*); no --iterations limit$' \
    || fail "the header does not say the target"
echo "$out" | grep -qE '^Batch 1 computed 2 rollouts ' || fail "the line of a run without --iterations"
out=$("$bin" train --target-reward 5 --iterations 1 --batch-size 2 --quiet --run-dir "$tmp/t2") || fail "target and iterations"
echo "$out" | grep -qx 'pongrl train: stops after iteration 1, or sooner when the running mean reaches +5.00' \
    || fail "the header does not say both ends: $out"

# SIGINT stops after the current batch, cleanly (exit 0, final line printed)
"$bin" train --batch-size 2 --quiet --run-dir "$tmp/int" > "$tmp/int.out" 2>&1 &
pid=$!
sleep 1.5; kill -INT $pid; wait $pid; rc=$?
[ $rc = 0 ] || fail "SIGINT exit $rc"
grep -q "stopped after" "$tmp/int.out" || fail "no final line after SIGINT"
grep -q '^pongrl train: runs until Ctrl-C (no --iterations or --target-reward)' "$tmp/int.out" \
    || fail "the header of a run without an end does not say so"
echo OK
