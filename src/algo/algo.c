// algo.c: the learners this build has (algo.h).
#include "algo.h"

#include "../train/model.h"
#include "pg/pg.h"
#include "ppo/ppo.h"
#include "qrdqn/qrdqn.h"

const Learner *const ALGO_LEARNERS[] = { &PG_LEARNER, &PPO_LEARNER, &QRDQN_LEARNER, NULL };

TrainState *model_open(const char *src, char *err, size_t errlen) {
    return model_open_with(src, ALGO_LEARNERS, err, errlen);
}
