// learner_util.c: what the learners' folders share (learner_util.h).
#include "learner_util.h"

#include <stdio.h>

int learner_settings_check(const TrainConfig *c, const char *(*check)(const TrainConfig *), char *err, size_t errlen) {
    const char *why = train_config_check(c, err, errlen);
    if (!why) why = check(c);
    if (!why) return 0;
    if (why != err) snprintf(err, errlen, "%s", why);
    return -1;
}
