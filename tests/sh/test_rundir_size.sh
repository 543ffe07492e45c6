#!/usr/bin/env bash
# Run directories stay small: a 3-iteration run of Karpathy's recipe (train --iterations 3,
# defaults) and of PPO (train --algo ppo --iterations 3) leave at most a quarter of what they
# left when checkpoints held raw float64s (41,001,117 and 92,323,202 bytes, `du -sb`: two
# checkpoints each, iteration 0's and 3's): each array is stored as what differs from a fresh
# run's, packed and deflated (checkpoint.h, packed.h), so iteration 0's checkpoint is a few kB.
# Each still resumes to the bits of a run never stopped.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"

size_of() {  # name raw-bytes train-args...
    local name=$1 raw=$2; shift 2
    "$bin" train "$@" --iterations 3 --quiet --run-dir "$tmp/$name" >/dev/null || fail "$name: train"
    local got; got=$(du -sb "$tmp/$name" | cut -f1)
    echo "$name: $got bytes (checkpoints: $(cd "$tmp/$name/checkpoints" && du -b * | tr '\t\n' '= ')), was $raw"
    [ "$got" -le $((raw / 4)) ] || fail "$name: $got bytes, more than a quarter of $raw"
}
size_of pg 41001117
size_of ppo 92323202 --algo ppo

# stopped at 3 and resumed to 5: the bits of 5 straight
for algo in pg ppo; do
    a=$("$bin" train --algo $algo --iterations 5 --quiet --run-dir "$tmp/${algo}5" | crc)
    b=$("$bin" train --resume "$tmp/$algo" --iterations 5 --quiet | crc)
    echo "$algo: 5 straight $a, 3 + 2 resumed $b"
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "$algo: resumed weights differ"
done
echo ok
