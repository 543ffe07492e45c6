// actor.c: a model as a policy a binding steps on its own envs' observations (actor.h).
#include "actor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../train/model.h"
#include "../train/state.h"
#include "../util/mem.h"
#include "algo.h"

struct Actor {
    TrainState *model;          // model_open's: the network the policies act with
    AgentPolicy sample, greedy; // the learner's, sampling and greedy
    double *h;                  // (h_len) the policies' scratch
    int rows;                   // the batch the frames are of (0: no step yet)
    uint8_t *prev;              // (rows, 6400) each row's last frame
    uint8_t *fresh;             // (rows) 1: the row's next step starts an episode
    uint8_t cur[POLICY_D];      // this step's frame of one row
    uint16_t idx[POLICY_D];     // its difference with the row's last, sparse
    int8_t sign[POLICY_D];
};

// ----------------------------------------------------------------------------
// open and close

bool actor_plays(const char *name) {
    const Learner *l = name ? algo_find(name) : NULL;
    return l && l->agent;
}

Actor *actor_open(const char *path, char *err, size_t errlen) {
    TrainState *s = model_open(path, err, errlen);
    if (!s) return NULL;
    Actor *a = calloc(1, sizeof *a);
    if (!a) {
        model_close(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->model = s;
    const Learner *l = algo_find(s->cfg.algo);
    if (!l || !l->agent) {
        snprintf(err, errlen, "%s: a model of --algo %s, which this build cannot play", path, s->cfg.algo);
        goto fail;
    }
    // a network of its own is in its learner's arrays: the learner takes them (as eval does)
    if (l->weights && !s->learner && train_state_attach(s, l, err, errlen)) goto fail;
    a->sample = l->agent(s, false);
    a->greedy = l->agent(s, true);
    if (!a->sample.act_probs || a->sample.n_actions < 1 || a->sample.n_actions > AGENT_ACTIONS_MAX) {
        snprintf(err, errlen, "%s: --algo %s gives no action probabilities (AgentPolicy.act_probs)", path, s->cfg.algo);
        goto fail;
    }
    a->h = malloc(sizeof(double) * (size_t)(a->sample.h_len > 0 ? a->sample.h_len : 1));
    if (!a->h) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    return a;
fail:
    actor_close(a);
    return NULL;
}

void actor_close(Actor *a) {
    if (!a) return;
    model_close(a->model);
    mem_free_all(a->h, a->prev, a->fresh, a);
}

int actor_actions(const Actor *a, int *ids) {
    for (int k = 0; k < a->sample.n_actions; k++) ids[k] = a->sample.actions[k];
    return a->sample.n_actions;
}

const char *actor_algo(const Actor *a) { return a->model->cfg.algo; }
int actor_hidden(const Actor *a) { return a->model->cfg.hidden; }
const TrainState *actor_model(const Actor *a) { return a->model; }
int actor_rows(const Actor *a) { return a->rows; }

// ----------------------------------------------------------------------------
// a step

// Karpathy's preprocessing of a (210, 160, 3) screen: rows 35..194 and every second column,
// every second of those rows, red channel; the background (144, 109) and black erased.
static void prepro_rgb(const uint8_t *rgb, uint8_t *out) {
    for (int y = 0; y < 80; y++) {
        const uint8_t *row = rgb + (size_t)(35 + 2 * y) * 160 * 3;
        for (int x = 0; x < 80; x++) {
            const uint8_t r = row[2 * x * 3];
            out[y * 80 + x] = r != 144 && r != 109 && r != 0;
        }
    }
}

static void prepro_80(const uint8_t *obs, uint8_t *out) {
    for (int i = 0; i < POLICY_D; i++) out[i] = obs[i] != 0;
}

// Room for a batch of rows, every row fresh when their number changes. 0 or -1 (out of memory).
static int reserve_rows(Actor *a, int rows) {
    if (rows == a->rows) return 0;
    uint8_t *prev = realloc(a->prev, (size_t)rows * POLICY_D), *fresh = realloc(a->fresh, (size_t)rows);
    if (prev) a->prev = prev;
    if (fresh) a->fresh = fresh;
    if (!prev || !fresh) {
        a->rows = 0;
        return -1;
    }
    a->rows = rows;
    memset(a->fresh, 1, (size_t)rows);
    return 0;
}

int actor_step(
    Actor *a, int rows, int kind, const uint8_t *obs, const double *u, bool greedy, double *probs, int *choice) {
    if (rows < 1 || (kind != OBS_OBS80 && kind != OBS_RGB) || !obs || !probs) return -1;
    if (reserve_rows(a, rows)) return -1;
    const AgentPolicy *ap = greedy || !u ? &a->greedy : &a->sample;
    const size_t row_bytes = kind == OBS_RGB ? (size_t)210 * 160 * 3 : POLICY_D;
    const int A = ap->n_actions;
    for (int r = 0; r < rows; r++) {
        uint8_t *prev = a->prev + (size_t)r * POLICY_D;
        if (kind == OBS_RGB)
            prepro_rgb(obs + (size_t)r * row_bytes, a->cur);
        else
            prepro_80(obs + (size_t)r * row_bytes, a->cur);
        // as agent_step: the difference with the row's last frame, or nothing on its first step
        const bool had_prev = !a->fresh[r];
        const int nnz = had_prev ? agent_diff(a->cur, prev, a->idx, a->sign) : 0;
        const double ur = ap == &a->sample ? u[r] : 0.0;
        int action = ap->act_probs(
            ap, (SparseX){ nnz, a->idx, a->sign }, a->cur, had_prev ? prev : NULL, ur, a->h, probs + (size_t)r * A);
        memcpy(prev, a->cur, POLICY_D);
        a->fresh[r] = 0;
        if (choice) {
            int k = 0;
            while (k < A - 1 && ap->actions[k] != action) k++;
            choice[r] = k;
        }
    }
    return 0;
}

void actor_reset(Actor *a, const uint8_t *fresh) {
    for (int r = 0; r < a->rows; r++)
        if (!fresh || fresh[r]) a->fresh[r] = 1;
}
