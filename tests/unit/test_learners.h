// test_learners.h: a small fresh run of a learner, for the unit tests that walk the list of
// learners (not a test itself).
#ifndef PONGRL_TEST_LEARNERS_H
#define PONGRL_TEST_LEARNERS_H

#include <criterion/criterion.h>

#include "train/config.h"
#include "train/learner.h"
#include "train/state.h"

// A fresh run of l with its defaults, H = 4 and one worker, in *s (train_state_free it).
static inline void tiny_state(TrainState *s, const Learner *l) {
    TrainConfig c;
    train_config_fresh(&c, l->name);
    c.hidden = 4;
    c.workers = 1;
    cr_assert_eq(train_state_init(s, &c, l), 0, "%s", l->name);
}

#endif
