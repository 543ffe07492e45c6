#!/usr/bin/env bash
# --algo ppo's schedules, --ent-anneal-steps (the entropy coefficient falling to 0) and
# --sticky-warmup (the training envs' repeat-action probability rising from 0 to the env's own):
# both are functions of the agent steps at an iteration's start, so the weights (crc32) and the
# metrics rows are the same with 1 and 2 worker threads and stopped halfway then resumed (the
# envs' states in a checkpoint hold the warm-up's probability of their time). At 0 (the default)
# each is today's run; set, each gives other weights. ALE/Pong-v5 warmed up over more steps than
# the run plays (the probability a few 1e-16) plays PongDeterministic-v4's games: the same
# presets but for the probability, the draws from the env's own stream.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
# 8 envs x 100 steps: 800 agent steps an iteration, 10 iterations pass random episodes' ends
T=(--algo ppo --envs 8 --steps 100 --hidden 32 --minibatches 5 --epochs 2 --seed 3 --quiet)
# the entropy coefficient, larger than the default so that its anneal moves the weights, at 0
# after iteration 5; the warm-up halfway at the resume (iteration 5: 0.25 x 4000 / 6000)
S=(--ent-coef 0.01 --ent-anneal-steps 4000 --sticky-warmup 6000)

base=$("$bin" train "${T[@]}" --iterations 10 --workers 2 --run-dir "$tmp/base" | crc)
zero=$("$bin" train "${T[@]}" --ent-anneal-steps 0 --sticky-warmup 0 --iterations 10 --workers 1 --run-dir "$tmp/zero" |
    crc)
echo "defaults: $base  both 0: $zero"
[ -n "$base" ] && [ "$base" = "$zero" ] || fail "--ent-anneal-steps 0 --sticky-warmup 0 is not the default run"
grep -q '^ent_anneal_steps = 0$' "$tmp/base/config.txt" || fail "ent_anneal_steps 0 not in config.txt"
grep -q '^sticky_warmup = 0$' "$tmp/base/config.txt" || fail "sticky_warmup 0 not in config.txt"

a=$("$bin" train "${T[@]}" "${S[@]}" --iterations 10 --workers 1 --run-dir "$tmp/w1" | crc)
b=$("$bin" train "${T[@]}" "${S[@]}" --iterations 10 --workers 2 --run-dir "$tmp/w2" | crc)
"$bin" train "${T[@]}" "${S[@]}" --iterations 5 --workers 2 --run-dir "$tmp/r" >/dev/null || fail "first half"
r=$("$bin" train --resume "$tmp/r" --iterations 10 --workers 1 --quiet | crc)
echo "both set, workers 1: $a  2: $b  resumed: $r"
[ -n "$a" ] && [ "$a" = "$b" ] || fail "schedules: weights differ with the thread count"
[ "$a" = "$r" ] || fail "schedules: resumed weights differ"
diff <(rows "$tmp/w1") <(rows "$tmp/w2") || fail "schedules: metrics differ, workers 1 and 2"
diff <(rows "$tmp/w1") <(rows "$tmp/r") || fail "schedules: resumed metrics differ"
grep -q '^ent_anneal_steps = 4000$' "$tmp/r/config.txt" || fail "ent_anneal_steps not in the resumed run's config.txt"
grep -q '^sticky_warmup = 6000$' "$tmp/r/config.txt" || fail "sticky_warmup not in the resumed run's config.txt"

# each alone: other weights than the defaults and than each other, thread-free
E=(--ent-coef 0.01)
ec=$("$bin" train "${T[@]}" "${E[@]}" --iterations 10 --workers 2 --run-dir "$tmp/ec" | crc)
ea=$("$bin" train "${T[@]}" "${E[@]}" --ent-anneal-steps 4000 --iterations 10 --workers 2 --run-dir "$tmp/ea" | crc)
ea1=$("$bin" train "${T[@]}" "${E[@]}" --ent-anneal-steps 4000 --iterations 10 --workers 1 --run-dir "$tmp/ea1" | crc)
sw=$("$bin" train "${T[@]}" --sticky-warmup 6000 --iterations 10 --workers 2 --run-dir "$tmp/sw" | crc)
sw1=$("$bin" train "${T[@]}" --sticky-warmup 6000 --iterations 10 --workers 1 --run-dir "$tmp/sw1" | crc)
echo "ent-coef 0.01: $ec  annealed: $ea (1 worker: $ea1)  sticky warm-up: $sw (1 worker: $sw1)"
[ -n "$ea" ] && [ "$ea" = "$ea1" ] && [ "$ea" != "$ec" ] || fail "--ent-anneal-steps: the same weights as a constant bonus, or thread-dependent"
[ -n "$sw" ] && [ "$sw" = "$sw1" ] && [ "$sw" != "$base" ] || fail "--sticky-warmup: the default's weights, or thread-dependent"
[ "$a" != "$ea" ] && [ "$a" != "$sw" ] || fail "both schedules: the weights of one alone"

# a warm-up longer than the run: no action is kept, PongDeterministic-v4's games and weights
long=$("$bin" train "${T[@]}" --sticky-warmup 9000000000000000000 --iterations 10 --workers 2 --run-dir "$tmp/long" |
    crc)
det=$("$bin" train "${T[@]}" --env PongDeterministic-v4 --iterations 10 --workers 2 --run-dir "$tmp/det" | crc)
echo "ALE/Pong-v5 warmed up over 9e18 steps: $long  PongDeterministic-v4: $det"
[ -n "$long" ] && [ "$long" = "$det" ] || fail "--sticky-warmup does not start from a probability of 0"
diff <(rows "$tmp/long") <(rows "$tmp/det") || fail "--sticky-warmup 9e18: other metrics than PongDeterministic-v4"

# errors that speak: one line, exit 2
for bad in "--ent-anneal-steps -1" "--sticky-warmup -5" "--sticky-warmup x"; do
    err=$("$bin" train "${T[@]}" $bad --iterations 1 --run-dir "$tmp/bad" 2>&1 >/dev/null)
    rc=$?
    echo "$bad: $err"
    [ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && grep -q '^pongrl' <<<"$err" || fail "$bad: rc=$rc '$err'"
done
err=$("$bin" train --sticky-warmup 100 --iterations 1 --run-dir "$tmp/pg" 2>&1 >/dev/null)
rc=$?
echo "$err"
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "--sticky-warmup without --algo ppo: rc=$rc '$err'"
echo "ok"
