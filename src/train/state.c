// state.c: a run's state made, handed to its learner, and freed.
#include "state.h"

#include "packed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void saved_free(SavedArrays *a) {
    for (int i = 0; i < a->count; i++) free(a->data[i]);
    memset(a, 0, sizeof(*a));
}

int train_state_init(TrainState *s, const TrainConfig *cfg, const Learner *learner) {
    memset(s, 0, sizeof(*s));
    s->cfg = *cfg;
    s->learner = learner;
    if (learner->create(s, true)) {
        s->learner = NULL;
        return -1;
    }
    return 0;
}

void train_state_free(TrainState *s) {
    if (s->learner) s->learner->destroy(s);
    s->learner = NULL;
    s->algo = NULL;
    saved_free(&s->saved);
    saved_free(&s->fresh);
}

// The legacy block of Karpathy's network, for a learner without an array of that name.
static void saved_drop_first(SavedArrays *a) {
    free(a->data[0]);
    for (int i = 1; i < a->count; i++) {
        memcpy(a->name[i - 1], a->name[i], sizeof(a->name[i]));
        a->data[i - 1] = a->data[i];
        a->n[i - 1] = a->n[i];
        a->nonneg[i - 1] = a->nonneg[i];
    }
    a->data[--a->count] = NULL;
}


int train_state_attach(TrainState *s, const Learner *learner, char *err, size_t errlen) {
    if (s->learner == learner) return 0;
    if (s->learner) {
        snprintf(err, errlen, "internal error: the state has a learner already");
        return -1;
    }
    SavedArrays *sv = &s->saved;
    // settings read from a file (checkpoint, model.txt) meet the learner's own check as flags do
    const char *why = learner->check ? learner->check(&s->cfg) : NULL;
    if (why) {
        snprintf(err, errlen, "settings that cannot be: %s", why);
        return -1;
    }
    s->learner = learner;
    if (learner->create(s, sv->from_fresh)) {
        s->learner = NULL;
        snprintf(err, errlen, "out of memory (H=%d)", s->cfg.hidden);
        return -1;
    }
    LearnerArray a[LEARNER_ARRAYS_MAX];
    int n = learner->arrays(s, a);
    if (sv->legacy && sv->count > 0 && (n == 0 || strcmp(a[0].name, sv->name[0]))) saved_drop_first(sv);
    bool match = n == sv->count || sv->count == 0; // none: weights alone (import), its arrays as made
    for (int i = 0; match && i < sv->count; i++) match = !strcmp(a[i].name, sv->name[i]) && a[i].n == sv->n[i];
    if (!match) {
        snprintf(err, errlen, "the checkpoint's state is not that of the %s learner", learner->name);
        learner->destroy(s);
        s->learner = NULL;
        return -1;
    }
    int i = 0;
    for (; i < sv->count && match; i++) {
        if (sv->from_fresh)
            packed_xor(a[i].data, sv->data[i], a[i].n); // onto the fresh run's, as made
        else
            memcpy(a[i].data, sv->data[i], a[i].n * sizeof(double));
        match = !sv->has_crc || packed_crc(a[i].data, a[i].n) == sv->crc[i];
        if (!match) break;
    }
    const char *bad = NULL;
    for (int k = 0; match && !bad && k < sv->count; k++) bad = array_unusable(&a[k]);
    if (!match || bad) { // !match: a fresh run of its settings is not what it was where the file was written
        if (bad)
            snprintf(err, errlen, "%s", bad);
        else
            snprintf(err, errlen, "the checkpoint's array %s does not come back as it was written (its checksum)",
                a[i].name);
        learner->destroy(s);
        s->learner = NULL;
        return -1;
    }
    saved_free(&s->saved);
    return 0;
}

int train_state_take_weights(TrainState *s, const TrainState *model, char *err, size_t errlen) {
    size_t n, m;
    const double *from = train_state_weights(model, &n);
    // the learner's own array: const only for those who read it
    double *to = (double *)train_state_weights(s, &m);
    if (s->learner != model->learner || n != m || !from) {
        snprintf(err, errlen, "the model's network (%zu weights) is not this run's (%zu)", n, m);
        return -1;
    }
    memcpy(to, from, n * sizeof(double));
    return 0;
}

void train_state_settle(TrainState *s) {
    if (s->learner) s->learner->settle(s);
}

bool train_state_settled(const TrainState *s) { return !s->learner || s->learner->settled(s); }

const double *train_state_weights(const TrainState *s, size_t *n) {
    *n = 0;
    return s->learner ? s->learner->weights(s, n) : NULL;
}

int train_state_arrays(TrainState *s, LearnerArray *out) {
    if (s->learner) return s->learner->arrays(s, out);
    const SavedArrays *sv = &s->saved;
    for (int i = 0; i < sv->count; i++) out[i] = (LearnerArray){ sv->name[i], sv->data[i], sv->n[i], sv->nonneg[i] };
    return sv->count;
}

TrainCounters train_state_counters(const TrainState *s) { return s->counters; }

void train_state_adopt(TrainState *s, const TrainCounters *c) {
    s->counters = *c;
    train_state_settle(s);
}

const char *weights_unusable(const double *w, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i])) return "weights contain NaN or infinity";
    return NULL;
}

const char *array_unusable(const LearnerArray *a) {
    static _Thread_local char why[96];
    for (size_t i = 0; i < a->n; i++) {
        if (!isfinite(a->data[i]) || (a->nonneg && !(a->data[i] >= 0))) {
            snprintf(why, sizeof(why), "%s contains %s", a->name,
                a->nonneg ? "NaN, infinity or a negative value" : "NaN or infinity");
            return why;
        }
    }
    return NULL;
}
