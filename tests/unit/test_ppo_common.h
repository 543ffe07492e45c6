// test_ppo_common.h: a small PPO for the unit tests of its parts (not a test itself).
#ifndef PONGRL_TEST_PPO_COMMON_H
#define PONGRL_TEST_PPO_COMMON_H

#include <criterion/criterion.h>

#include "test_learner_common.h"
#include "algo/ppo/ppo.h"
#include "train/pool.h"

// A fresh PPO of learner_run_config's `settings` into *c, bound to a new pool of `threads`
// threads (*pool: the caller destroys both).
static inline Ppo *ppo_test_create(TrainConfig *c, const char *settings, int threads, Pool **pool) {
    learner_run_config(c, "ppo", settings);
    char err[256] = "";
    Ppo *p = ppo_create(c, err, sizeof(err));
    cr_assert_not_null(p, "%s", err);
    *pool = pool_create(threads);
    cr_assert_not_null(*pool);
    cr_assert_eq(ppo_bind(p, *pool, NULL), 0);
    return p;
}

#endif
