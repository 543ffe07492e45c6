// algo.c: the learners this build has (algo.h).
#include "algo.h"

#include <stdio.h>

#include "../train/model.h"
#include "pg/pg.h"
#include "ppo/ppo.h"
#include "qrdqn/qrdqn.h"

const Learner *const ALGO_LEARNERS[] = { &PG_LEARNER, &PPO_LEARNER, &QRDQN_LEARNER, NULL };

void algo_print_npy_files(void) {
    for (const Learner *const *l = ALGO_LEARNERS; *l; l++) printf("  --algo %-6s %s\n", (*l)->name, (*l)->npy_files);
}

TrainState *model_open(const char *src, char *err, size_t errlen) {
    return model_open_with(src, ALGO_LEARNERS, err, errlen);
}
