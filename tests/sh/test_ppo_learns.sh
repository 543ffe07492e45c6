#!/usr/bin/env bash
# --algo ppo learns: over 240k agent steps (16 envs x 128 steps x 117 iterations) the return of
# the last 40 episodes is at least 1.5 points above that of the first 40 (lib_learner.sh).
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
source "$(dirname "$0")/lib_learner.sh"
T=(--algo ppo --envs 16 --steps 128 --hidden 64 --coarse 1 --seed 9 --quiet)
return_rises 117 && echo ok
