// state.c: a run's state made, freed, and its deferred cache decays settled.
#include "state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "../util/rng.h"

int train_state_init(TrainState *s, const TrainConfig *cfg) {
    memset(s, 0, sizeof(*s));
    s->cfg = *cfg;
    if (policy_alloc(&s->policy, POLICY_D, cfg->hidden)) return -1;
    s->cache = big_calloc(s->policy.n, sizeof(double));
    if (!s->cache) { policy_free(&s->policy); return -1; }
    policy_init_random(&s->policy, rng_key(cfg->seed, 0x696e6974 /* "init" */, 0, 0));
    return 0;
}

void train_state_free(TrainState *s) {
    policy_free(&s->policy);
    free(s->cache);
    free(s->cache_at);
    s->cache = NULL;
    s->cache_at = NULL;
}

int train_state_defer(TrainState *s) {
    if (s->cache_at) return 0;
    if (!(s->cache_at = malloc(sizeof(int64_t) * (size_t)s->policy.D))) return -1;
    for (int i = 0; i < s->policy.D; i++) s->cache_at[i] = s->iteration;     // settled
    return 0;
}

void train_state_settle(TrainState *s) {
    if (!s->cache_at) return;
    const size_t H = (size_t)s->policy.H;
    for (int i = 0; i < s->policy.D; i++) {
        if (s->cache_at[i] == s->iteration) continue;
        rmsprop_decay(s->cache + i * H, H, s->iteration - s->cache_at[i], s->cfg.decay);
        s->cache_at[i] = s->iteration;
    }
}

bool train_state_settled(const TrainState *s) {
    for (int i = 0; s->cache_at && i < s->policy.D; i++)
        if (s->cache_at[i] != s->iteration) return false;
    return true;
}

const char *weights_unusable(const double *w, const double *cache, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i])) return "weights contain NaN or infinity";
    for (size_t i = 0; cache && i < n; i++)
        if (!(cache[i] >= 0) || !isfinite(cache[i])) return "RMSProp cache contains NaN, infinity or a negative value";
    return NULL;
}
