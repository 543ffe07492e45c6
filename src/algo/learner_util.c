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

void learner_box_destroy(TrainState *s) {
    LearnerBox *b = learner_box(s);
    if (!b) return;
    b->obj_free(b->obj);
    for (int k = 0; k < b->held.n; k++) free(b->held.part[k].data);
    free(b);
    s->algo = NULL;
}

void *learner_object_create(const TrainConfig *c, const char *(*check)(const TrainConfig *), size_t size,
    int (*make)(void *obj, const TrainConfig *c), void (*destroy)(void *obj), char *err, size_t errlen) {
    if (learner_settings_check(c, check, err, errlen)) return NULL;
    void *obj = calloc(1, size);
    if (obj && !make(obj, c)) return obj;
    snprintf(err, errlen, "out of memory");
    if (obj) destroy(obj);
    return NULL;
}

int learner_box_create(TrainState *s, void *obj, void (*obj_free)(void *), const LearnerHeldPart *parts, int n) {
    LearnerBox *b = calloc(1, sizeof(*b));
    if (!b) {
        obj_free(obj);
        return -1;
    }
    *b = (LearnerBox){ obj, obj_free, { .n = n, .loaded = true, .settled_at = s->iteration } };
    s->algo = b;
    for (int k = 0; k < n; k++) {
        LearnerHeldPart *p = &b->held.part[k];
        *p = parts[k];
        if (!(p->data = malloc(sizeof(double) * (p->len ? p->len : 1)))) {
            learner_box_destroy(s);
            return -1;
        }
        p->save(obj, p->data); // a load overwrites the parts; a fresh run takes back what it saved
    }
    return 0;
}

void learner_box_settle(TrainState *s) {
    LearnerBox *b = learner_box(s);
    if (b->held.loaded || b->held.settled_at == s->iteration) return;
    for (int k = 0; k < b->held.n; k++) b->held.part[k].save(b->obj, b->held.part[k].data);
    b->held.settled_at = s->iteration;
}

bool learner_box_settled(const TrainState *s) {
    const LearnerHeld *h = &learner_box(s)->held;
    return h->loaded || h->settled_at == s->iteration;
}

int learner_box_arrays(const TrainState *s, LearnerArray *out) {
    const LearnerHeld *h = &learner_box(s)->held;
    for (int k = 0; k < h->n; k++)
        out[k] = (LearnerArray){ h->part[k].name, h->part[k].data, h->part[k].len, h->part[k].nonneg };
    return h->n;
}

int learner_box_begin(TrainState *s, int bound, char *err, size_t errlen) {
    LearnerBox *b = learner_box(s);
    if (bound) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!b->held.loaded) return 0;
    for (int k = 0; k < b->held.n; k++)
        if (b->held.part[k].load(b->obj, b->held.part[k].data)) {
            snprintf(err, errlen, "%s", b->held.part[k].refused);
            return -1;
        }
    b->held.loaded = false;
    return 0;
}
