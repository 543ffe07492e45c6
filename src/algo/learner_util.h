// learner_util.h: what the learners' folders (algo/<name>/) share that is no part of the
// loop's shape (train/learner.h), so that a new learner calls it instead of copying it.
#ifndef PONGRL_LEARNER_UTIL_H
#define PONGRL_LEARNER_UTIL_H

#include <stddef.h>

#include "../train/config.h"

// A learner's create takes only settings that can be: every row of TRAIN_SETTINGS in its range
// (train_config_check), then the learner's own check of them together (check, its
// Learner.check). 0, or -1 with one line in err.
int learner_settings_check(const TrainConfig *c, const char *(*check)(const TrainConfig *), char *err, size_t errlen);

#endif
