// linear.h: the test tree's own learner (linear.c), which no file of src/ names: registered by
// the test program (main.c) as a user's program would register one of its own.
#ifndef PONGRL_TEST_LINEAR_H
#define PONGRL_TEST_LINEAR_H

#include "train/learner.h"

extern const Learner LINEAR_LEARNER;

#endif
