// qrdqn.c: one QR-DQN iteration (qrdqn.h), read from the top: T rounds, each every env's step
// (qr_envs.c, the pool's threads sharing the envs), the round's transitions into the replay
// memory (rl/replay.h) in env order, then the updates that fall due (qr_update.c). Below it:
// the schedule, the settings' check, the learner's memory made and freed.
#include "qrdqn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/mem.h"
#include "../learner_util.h"
#include "qr_streams.h"

int64_t qr_updates_at(const TrainConfig *c, int64_t s) {
    return s > c->learn_start ? (s - c->learn_start) / c->update_every : 0;
}

double qr_epsilon(const TrainConfig *c, int64_t s) {
    if (s < c->learn_start) return 1.0;
    if (c->eps_steps <= 0 || s - c->learn_start >= c->eps_steps) return c->eps_final;
    return 1.0 - (1.0 - c->eps_final) * ((double)(s - c->learn_start) / (double)c->eps_steps);
}

// ----------------------------------------------------------------------------
// one iteration

typedef struct {
    Qr *q;
} RoundJob;

// This part's range of the envs, one step each.
static void round_part(void *ctx, int part, int parts) {
    Qr *q = ((RoundJob *)ctx)->q;
    const int e0 = q->env0, n = q->env1 - q->env0;
    double *h = q->th_h + (size_t)part * q->th_hs, *qv = q->th_q + (size_t)part * q->th_qs;
    for (int e = e0 + (int)((int64_t)n * part / parts); e < e0 + (int)((int64_t)n * (part + 1) / parts); e++)
        qr_env_step(q, e, h, qv);
}

int qr_iteration(Qr *q, char *err, size_t errlen) {
    const int N = q->cfg.envs, T = q->cfg.steps, ranks = q->comm ? q->comm->size : 1;
    memset(&q->stats, 0, sizeof(q->stats));
    q->n_ended = 0;
    train_envs_begin(&q->te, q->cfg.seed, (uint64_t)q->iteration, STREAM_QR_ACT);
    if (q->mem.total != q->agent_steps) {
        snprintf(err, errlen, "the replay memory holds %lld steps, the run %lld", (long long)q->mem.total,
            (long long)q->agent_steps);
        return -1;
    }
    RoundJob job = { q };
    for (int t = 0; t < T; t++) {
        const int64_t s0 = q->agent_steps;
        q->eps = qr_epsilon(&q->cfg, s0);
        pool_for(q->pool, round_part, &job);
        if (ranks > 1 && qr_exchange_round(q, err, errlen)) return -1;
        for (int e = 0; e < N; e++) {
            const Transition *st = &q->te.step[e];
            replay_put(&q->mem, q->te.frame + (size_t)e * POLICY_D, st);
            if (st->ended) q->ended[q->n_ended++] = (EpisodeStats){ (int)st->ret, (int)st->len, 0, false };
        }
        q->agent_steps += N;
        for (int64_t u = qr_updates_at(&q->cfg, s0) + 1; u <= qr_updates_at(&q->cfg, q->agent_steps); u++)
            if (qr_update(q, u) < 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
    }
    if (ranks > 1 && qr_exchange_envs(q, err, errlen)) return -1;
    q->iteration++;
    return 0;
}

// ----------------------------------------------------------------------------
// settings

const char *qr_check(const TrainConfig *c) {
    if ((int64_t)c->envs * c->steps > 16777216) return "--envs x --steps must be at most 2^24";
    if (c->replay < (int64_t)(c->nstep + 2) * c->envs)
        return "--replay must hold at least (--nstep + 2) x --envs transitions (a state, its previous and its n-th "
               "next step of every env)";
    return NULL;
}

// ----------------------------------------------------------------------------
// create / destroy

void qr_destroy(Qr *q) {
    if (!q) return;
    train_envs_free(&q->te);
    replay_free(&q->mem);
    qr_update_free(q);
    mem_free_all(q->w, q->target, q->adam_m, q->adam_v, q->th_h, q->th_q, q->th_g, q->ended, q->wire, q);
}

void qr_free(void *q) { qr_destroy(q); }

// The arrays of q for settings c, its network drawn, its envs started. 0, or -1 (out of memory).
static int qr_make(void *obj, const TrainConfig *c) {
    Qr *q = obj;
    q->cfg = *c;
    q->sh = qr_shape(c);
    const size_t n = q->sh.n, N = (size_t)c->envs;
    q->w = big_calloc(n, sizeof(double));
    q->target = big_calloc(n, sizeof(double));
    q->adam_m = big_calloc(n, sizeof(double));
    q->adam_v = big_calloc(n, sizeof(double));
    q->ended = calloc(N * (size_t)c->steps, sizeof(EpisodeStats));
    if (!q->w || !q->target || !q->adam_m || !q->adam_v || !q->ended ||
        replay_alloc(&q->mem, c->replay, c->replay * QR_LIT_SLOT, QR_ACTIONS) || qr_update_alloc(q))
        return -1;
    q->env0 = 0;
    q->env1 = c->envs;
    qr_net_init(&q->sh, q->w, stream_qr_init(c->seed));
    memcpy(q->target, q->w, sizeof(double) * n);
    return qr_envs_start(q);
}

Qr *qr_create(const TrainConfig *c, char *err, size_t errlen) {
    return learner_object_create(c, qr_check, sizeof(Qr), qr_make, qr_free, err, errlen);
}

// Each of n threads' hidden layer and Q values, made again for n.
static int qr_threads(Qr *q, int n) {
    free(q->th_h);
    free(q->th_q);
    free(q->th_g);
    const size_t line = MEM_PAD / sizeof(double);
    q->th_hs = ((size_t)q->sh.H + line - 1) / line * line;
    q->th_qs = ((size_t)q->sh.A * q->sh.N + line - 1) / line * line;
    q->th_h = pad_calloc((size_t)n * q->th_hs, sizeof(double));
    q->th_q = pad_calloc((size_t)n * q->th_qs, sizeof(double));
    q->th_g = pad_calloc((size_t)n * QR_ROW_CHUNK * q->th_hs, sizeof(double));
    q->threads = q->th_h && q->th_q && q->th_g ? n : 0;
    return q->threads ? 0 : -1;
}

int qr_bind(Qr *q, Pool *pool, Comm *comm) { return LEARNER_BIND(q, pool, comm, qr_threads); }
