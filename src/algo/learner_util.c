// learner_util.c: what the learners' folders share (learner_util.h).
#include "learner_util.h"

#include <stdio.h>
#include <stdlib.h>

int learner_settings_check(const TrainConfig *c, const char *(*check)(const TrainConfig *), char *err, size_t errlen) {
    const char *why = train_config_check(c, err, errlen);
    if (!why) why = check(c);
    if (!why) return 0;
    if (why != err) snprintf(err, errlen, "%s", why);
    return -1;
}

int learner_held_start(LearnerHeld *h, const void *owner, int64_t iteration) {
    for (int k = 0; k < h->n; k++) {
        if (!(h->part[k].data = malloc(sizeof(double) * (h->part[k].len ? h->part[k].len : 1)))) return -1;
        h->part[k].save(owner, h->part[k].data);
    }
    h->loaded = true; // a load overwrites the parts; a fresh run takes back what it saved
    h->settled_at = iteration;
    return 0;
}

void learner_held_settle(LearnerHeld *h, const void *owner, int64_t iteration) {
    if (h->loaded || h->settled_at == iteration) return;
    for (int k = 0; k < h->n; k++) h->part[k].save(owner, h->part[k].data);
    h->settled_at = iteration;
}

bool learner_held_settled(const LearnerHeld *h, int64_t iteration) { return h->loaded || h->settled_at == iteration; }

int learner_held_take(LearnerHeld *h, void *owner, char *err, size_t errlen) {
    if (!h->loaded) return 0;
    for (int k = 0; k < h->n; k++)
        if (h->part[k].load(owner, h->part[k].data)) {
            snprintf(err, errlen, "%s", h->part[k].refused);
            return -1;
        }
    h->loaded = false;
    return 0;
}

void learner_held_free(LearnerHeld *h) {
    for (int k = 0; k < h->n; k++) {
        free(h->part[k].data);
        h->part[k].data = NULL;
    }
}
