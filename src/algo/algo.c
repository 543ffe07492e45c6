// algo.c: the learners this build has (algo.h).
#include "algo.h"

#include "pg.h"
#include "ppo/ppo.h"

const Learner *const ALGO_LEARNERS[] = { &PG_LEARNER, &PPO_LEARNER, NULL };
