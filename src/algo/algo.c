// algo.c: the learners this build has (algo.h).
#include "algo.h"

#include "pg.h"

const Learner *const ALGO_LEARNERS[] = { &PG_LEARNER, NULL };
