#!/usr/bin/env bash
# A learner of a program's own: build/pongrl-testlearner is pongrl's command line with one
# learner more, tests/learner/linear.c (a linear softmax policy, REINFORCE), registered by the
# test tree's main before the arguments are parsed (algo.h's algo_register); it is built under
# the sanitizers. `train --algo linear` knows it with nothing of src/ or python/ naming it: the
# same weights on 1, 2 and 3 worker threads, a resumed run ends as an unbroken one, its
# checkpoint, its export and the export imported play alike under eval, `train --help` lists
# it, and build/pongrl (without it) refuses --algo linear and a checkpoint of it in one line.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
source "$(dirname "$0")/lib_learner.sh"
bin=${PONGRL_LEARNER_BIN:-build/pongrl-testlearner}
plain=${PONGRL_BIN:-build/pongrl}
[ -x "$bin" ] || fail "no $bin (make build/pongrl-testlearner)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}

# nothing outside the test tree names it (the Makefile's test target aside)
named=$(git grep -lw -e linear -e LINEAR_LEARNER -- src python 2>/dev/null)
[ -z "$named" ] || fail "files of src/ or python/ name the test's learner: $named"

help=$("$bin" train --help) || fail "train --help"
grep -q '^ *linear  *a test' <<<"$help" || fail "train --help does not list --algo linear"
T=(--algo linear --seed 3 --quiet)
same_bits_threads 4
resumed_same_bits 4
other_seed 2

# a checkpoint and an export of it, imported and exported again byte for byte; eval plays them alike
cp -r "$tmp/w1" "$tmp/run"
export_round_trip "linear_W.npy linear_b.npy model.txt"
plays_alike 1 2

# the plain binary has no such learner: one line each, not a crash
err=$("$plain" train --algo linear --run-dir "$tmp/plain" 2>&1 >/dev/null)
[ $? = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "no such learner" || fail "plain train: '$err'"
err=$("$plain" eval "$tmp/run" --episodes 1 2>&1 >/dev/null)
[ $? = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "algo linear" || fail "plain eval: '$err'"
echo "build/pongrl: $err"
echo "PASS"
