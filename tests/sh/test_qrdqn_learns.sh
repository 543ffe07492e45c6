#!/usr/bin/env bash
# --algo qrdqn learns: over 225k agent steps (16 envs x 64 steps x 220 iterations; updates from
# 2,000 agent steps on, epsilon down to 0.01 by 22,000) the return of the last 40 episodes is at
# least 1.5 points above that of the first 40 (lib_learner.sh).
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
source "$(dirname "$0")/lib_learner.sh"
T=(--algo qrdqn --hidden 128 --lr 0.0005 --target-every 500 --learn-start 2000 --eps-steps 20000 --seed 9 --workers 2
    --quiet)
return_rises 220 && echo ok
