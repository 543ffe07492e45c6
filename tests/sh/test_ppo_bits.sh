#!/usr/bin/env bash
# --algo ppo: same seed, same bits. The weights (crc32) and metrics rows (all but wall_s) after
# N iterations are the same with 1, 2 and 3 worker threads (a W1 row's gradient is summed over
# its samples in sample order whoever sums it, the tail exactly over fixed blocks of samples;
# --chunk no longer plays a part), and N/2 iterations then --resume to N gives them too
# (the checkpoint, format version 4, holds Adam's moments and every env's game, random stream
# and previous frame; a fresh run's rollouts run on past episode ends). The runs have a separate
# value network (--value-hidden, default H/2); so does the shared one of the runs before it
# (--value-hidden 0), whose weights are other. Another seed gives other
# weights; eval and record play a PPO model; PPO's flags are refused for Karpathy's recipe.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
source "$(dirname "$0")/lib_learner.sh"
# 8 envs x 100 steps x 10 iterations: 1,000 steps an env, past the ends of random episodes;
# minibatches of 160 samples: 20 blocks of 8 for the threads; 64 hidden units, two tiles of 32:
# on 2 threads the hidden sums go by rows (ppo_rows_forward), on 1 and 3 by samples
T=(--algo ppo --envs 8 --steps 100 --hidden 64 --minibatches 5 --epochs 2 --seed 3 --quiet)

same_bits_threads 10
# --chunk is retired: no longer a flag, but the files of older runs that hold it still read
# (models/pong-v5-ppo/model.txt has chunk=128)
"$bin" train "${T[@]}" --chunk 16 --iterations 10 --run-dir "$tmp/c3" >/dev/null 2>&1 && fail "--chunk 16 accepted"
"$bin" export "$(dirname "$0")/../../models/pong-v5-ppo" --out "$tmp/c3x" >/dev/null || fail "a model.txt with chunk= does not read"
eps=$(tail -1 "$tmp/w1/metrics.csv" | cut -d, -f2)
[ "$eps" -gt 0 ] || fail "no episode ended: the resume below would not cross an episode's end"

resumed_same_bits 10
head -c 12 "$tmp/r/checkpoints/ckpt-00000005.bin" | od -An -tu4 -j8 | grep -q ' 4$' || fail "not format version 4"

# one network for both heads (as before --value-hidden): the same bits with 1 and 3 threads and
# stopped and resumed; another network than the default's H/2 split
grep -q '^value_hidden = -1$' "$tmp/w1/config.txt" || fail "the default value_hidden (-1: H/2) not in config.txt"
V=(--value-hidden 0)
v1=$("$bin" train "${T[@]}" "${V[@]}" --iterations 10 --workers 1 --run-dir "$tmp/v1" | crc)
v3=$("$bin" train "${T[@]}" "${V[@]}" --iterations 10 --workers 3 --run-dir "$tmp/v3" | crc)
"$bin" train "${T[@]}" "${V[@]}" --iterations 5 --workers 2 --run-dir "$tmp/vr" >/dev/null || fail "--value-hidden: first half"
vr=$("$bin" train --resume "$tmp/vr" --iterations 10 --workers 2 --quiet | crc)
echo "--value-hidden 0, workers 1: $v1  3: $v3  resumed: $vr  (H/2, the default: $a)"
[ -n "$v1" ] && [ "$v1" = "$v3" ] && [ "$v1" = "$vr" ] || fail "--value-hidden 0: weights differ with threads or resume"
diff <(rows "$tmp/v1") <(rows "$tmp/vr") || fail "--value-hidden 0: resumed metrics differ"
[ "$v1" != "$a" ] || fail "--value-hidden 0 gives the separate value network's weights"
grep -q '^value_hidden = 0$' "$tmp/vr/config.txt" || fail "value_hidden 0 not in the resumed run's config.txt"

# PPO's line says what it played: the iteration of how many, its agent steps, the episodes that
# ended in them; an iteration that ends none (16 steps an env) has no mean length to print and
# leaves metrics.csv's batch mean, running mean and length empty (a 0 would read as a tied game)
line=$("$bin" train --algo ppo --envs 2 --steps 16 --hidden 8 --minibatches 1 --iterations 1 \
    --run-dir "$tmp/line" | grep '^Iteration 1/1: ')
echo "$line"
grep -qE '^Iteration 1/1: 32 agent steps, no episode ended in [0-9.]+ seconds, running mean is - \| [0-9]+ steps/s( \| eta [0-9hms]+)?$' \
    <<<"$line" || fail "the line of an iteration without an ended episode"
row=$(tail -1 "$tmp/line/metrics.csv" | cut -d, -f1-7)
echo "$row"
grep -qE '^1,0,32,[0-9.]+,,,$' <<<"$row" || fail "metrics.csv row of an iteration without an ended episode: $row"
# one that ends some: how many, their mean length, the batch mean and running mean in the row
line=$("$bin" train --algo ppo --envs 8 --hidden 32 --minibatches 5 --epochs 2 --seed 3 --steps 250 --iterations 4 --workers 2 --run-dir "$tmp/ended" | grep '^Iteration 4/4: ')
echo "$line"
grep -qE '^Iteration 4/4: 2000 agent steps, [0-9]+ episodes? ended in [0-9.]+ seconds, running mean is -?[0-9.]+ \| [0-9]+ steps/s \| mean length [0-9]+' \
    <<<"$line" || fail "the line of an iteration that ended episodes"
grep -qE '^4,[1-9][0-9]*,8000,[0-9.]+,-?[0-9.]+,-?[0-9.]+,[0-9.]+,' "$tmp/ended/metrics.csv" || fail "metrics.csv row 4: $(tail -1 "$tmp/ended/metrics.csv")"

other_seed 2
# the game's flavour (--mode, --difficulty) is the one the rollout plays
f=$("$bin" train "${T[@]}" --iterations 2 --mode 1 --difficulty 1 --run-dir "$tmp/m1" | crc)
echo "mode 1, difficulty 1: $f"
[ -n "$f" ] && [ "$f" != "$e" ] || fail "--mode 1 --difficulty 1 played the default flavour"

# eval and record play the PPO network (sampled and greedy); export and import: test_ppo_export.sh
plays_model 2
refused 2 "--envs without --algo ppo" --envs 4 --iterations 1
echo "ok"
