// train_envs.c: a learner's caller-stepped training envs and what each step leaves
// (train_envs.h).
#include "train_envs.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "learner_envs.h"

int train_envs_create(
    TrainEnvs *t, const char *env_id, int n, int mode, int difficulty, uint32_t env_word, uint64_t seed) {
    memset(t, 0, sizeof(*t));
    t->n = n;
    t->prev = calloc((size_t)n, POLICY_D);
    t->frame = calloc((size_t)n, POLICY_D);
    t->frames = calloc((size_t)n, sizeof(int64_t));
    t->rng = calloc((size_t)n, sizeof(Rng));
    t->step = calloc((size_t)n, sizeof(Transition));
    if (!t->prev || !t->frame || !t->frames || !t->rng || !t->step) return -1;
    t->venv = learner_envs_create(env_id, n, mode, difficulty, env_word, seed);
    return t->venv ? 0 : -1;
}

void train_envs_free(TrainEnvs *t) {
    vecenv_free(t->venv);
    mem_free_all(t->prev, t->frame, t->frames, t->rng, t->step);
    memset(t, 0, sizeof(*t));
}

void train_envs_begin(TrainEnvs *t, uint64_t seed, uint64_t iteration, uint32_t draw_word) {
    for (int e = 0; e < t->n; e++) {
        rng_seed(&t->rng[e], rng_key(seed, iteration, (uint64_t)e, draw_word));
        t->frames[e] = 0;
    }
}

const uint8_t *train_envs_observe(TrainEnvs *t, int e) {
    uint8_t *cur = t->frame + (size_t)e * POLICY_D;
    env_render_obs80(vecenv_env(t->venv, e), cur);
    return cur;
}

void train_envs_step(TrainEnvs *t, int e, int action, int action_id) {
    uint8_t *prev = t->prev + (size_t)e * POLICY_D;
    Transition *st = &t->step[e];
    VecEnvCounters c;
    vecenv_env_counters(t->venv, e, &c);
    VecEnvStep es;
    vecenv_step_env(t->venv, e, action_id, &es); // a valid action, an env of this run
    t->frames[e] += es.frames;
    memset(st, 0, sizeof(*st));
    st->action = (uint8_t)action;
    st->reward = (int8_t)es.reward;
    st->flags = c.ep_length == 0 ? REPLAY_START : 0; // no step of this episode yet
    memcpy(prev, t->frame + (size_t)e * POLICY_D, POLICY_D);
    if (es.terminated || es.truncated) {
        // a truncated episode too: a target does not bootstrap past it (rare: 27,000 steps)
        st->flags |= REPLAY_DONE;
        st->ended = true;
        st->ret = es.episode_return;
        st->len = es.episode_length;
        memset(prev, 0, POLICY_D);
    }
}

size_t train_envs_doubles(const TrainEnvs *t) { return (size_t)t->n * ENV_RECORD_DOUBLES; }

void train_envs_save(const TrainEnvs *t, double *out) { env_records_save(t->venv, t->n, t->prev, POLICY_D, out); }

int train_envs_load(TrainEnvs *t, const double *in) { return env_records_load(t->venv, t->n, in, t->prev, POLICY_D); }
