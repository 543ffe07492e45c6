// algo.c: the learners this build has (algo.h).
#include "algo.h"

#include "pg/pg.h"
#include "ppo.h"

const Learner *const ALGO_LEARNERS[] = { &PG_LEARNER, &PPO_LEARNER, NULL };
