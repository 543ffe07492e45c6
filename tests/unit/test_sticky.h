// test_sticky.h: how often an env keeps its previous action, counted frame by frame, for the
// unit tests of sticky actions (test_env.c, test_env_repeat.c; not a test itself).
#ifndef PONGRL_TEST_STICKY_H
#define PONGRL_TEST_STICKY_H

#include <criterion/criterion.h>

#include "env/env.h"

// An env of `id` (frameskip 1) stepped nsteps times with random actions from their own stream;
// prob >= 0 sets its repeat-action probability first (env_set_repeat_prob), < 0 keeps the id's.
// Of the frames whose chosen action differs from the previous frame's applied one, the fraction
// that kept the previous one: the repeat-action probability.
static inline double sticky_kept_fraction(const char *id, double prob, int64_t nsteps) {
    Env env;
    cr_assert_eq(env_init(&env, id, 3), ENV_OK);
    if (prob >= 0) cr_assert(env_set_repeat_prob(&env, prob));
    Rng ar;
    rng_seed(&ar, 4);
    int64_t informative = 0, kept = 0;
    for (int64_t i = 0; i < nsteps; i++) {
        int prev = env.last_action, a = (int)rng_below(&ar, ACTION_COUNT);
        EnvStep st;
        cr_assert_eq(env_step(&env, a, &st), ENV_OK);
        cr_assert(env.last_action == a || env.last_action == prev);
        if (a != prev) {
            informative++;
            kept += env.last_action == prev;
        }
        if (st.terminated || st.truncated) env_reset(&env, 1000 + (uint64_t)i);
    }
    return (double)kept / (double)informative;
}

#endif
