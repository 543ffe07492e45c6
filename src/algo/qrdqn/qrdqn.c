// qrdqn.c: one QR-DQN iteration (qrdqn.h), read from the top: T rounds, each every env's step
// (qr_envs.c, the pool's threads sharing the envs), the round's transitions into the replay
// memory (rl/replay.h) in env order, then the updates that fall due (qr_update.c). Below it:
// the schedule, the settings' check, the learner's memory made and freed.
#include "qrdqn.h"

#include <stdio.h>
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
            qr_update(q, u);
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
    arrays_free(&q->arrays);
    arrays_free(&q->bind_arrays);
    mem_free_all(q->wire, q);
}

void qr_free(void *q) { qr_destroy(q); }

// n rounded up to a whole number of MEM_PAD lines of elements of elem bytes.
static size_t whole_lines(size_t n, size_t elem) {
    const size_t line = MEM_PAD / elem;
    return (n + line - 1) / line * line;
}

// The arrays of q for settings c (QR_ARRAYS), its network drawn, its envs started. 0, or -1
// (out of memory).
static int qr_make(void *obj, const TrainConfig *c) {
    Qr *q = obj;
    q->cfg = *c;
    q->sh = qr_shape(c);
    q->hp = whole_lines((size_t)q->sh.H, sizeof(double));
    q->qp = whole_lines((size_t)q->sh.A * (size_t)q->sh.N, sizeof(double));
    const size_t B = (size_t)c->minibatch;
    struct {
        size_t n, NT, gn, D, X, words, B, BN, B2, BH, BQ;
    } z = { q->sh.n, (size_t)c->envs * (size_t)c->steps, q->sh.n - q->sh.tail, (size_t)q->sh.D, B * SPARSE_INPUT_MAX,
        ((size_t)q->sh.D + 63) / 64, B, B * (size_t)q->sh.N, B * 2, B * q->hp, B * q->qp };
#define X(FIELD, TYPE, LEN, BLOCK) { sizeof(TYPE), (LEN), (BLOCK), NULL },
    ArraySpec spec[] = { QR_ARRAYS(X) };
#undef X
    if (arrays_make(spec, (int)(sizeof(spec) / sizeof(spec[0])), &q->arrays)) return -1;
    int i = 0;
#define X(FIELD, TYPE, LEN, BLOCK) q->FIELD = (TYPE *)spec[i++].at;
    QR_ARRAYS(X)
#undef X
    if (replay_alloc(&q->mem, c->replay, c->replay * QR_LIT_SLOT, QR_ACTIONS)) return -1;
    q->env0 = 0;
    q->env1 = c->envs;
    qr_net_init(&q->sh, q->w, stream_qr_init(c->seed));
    memcpy(q->target, q->w, sizeof(double) * z.n);
    return qr_envs_start(q);
}

Qr *qr_create(const TrainConfig *c, char *err, size_t errlen) {
    return learner_object_create(c, qr_check, sizeof(Qr), qr_make, qr_free, err, errlen);
}

// Each of n threads' scratch (QR_BIND_ARRAYS), made again for n.
static int qr_threads(Qr *q, int n) {
    arrays_free(&q->bind_arrays);
#define X(FIELD, TYPE, LEN) q->FIELD = NULL;
    QR_BIND_ARRAYS(X)
#undef X
    q->threads = 0;
    q->th_hs = whole_lines((size_t)q->sh.H, sizeof(double));
    q->th_qs = whole_lines((size_t)q->sh.A * (size_t)q->sh.N, sizeof(double));
    q->th_ls = whole_lines(2 * (size_t)POLICY_D, sizeof(uint16_t));
    const size_t m = (size_t)n;
    struct {
        size_t h, q, g, lit;
    } z = { m * q->th_hs, m * q->th_qs, m * QR_ROW_CHUNK * q->th_hs, m * q->th_ls };
#define X(FIELD, TYPE, LEN) { sizeof(TYPE), (LEN), 0, NULL },
    ArraySpec spec[] = { QR_BIND_ARRAYS(X) };
#undef X
    if (arrays_make(spec, (int)(sizeof(spec) / sizeof(spec[0])), &q->bind_arrays)) return -1;
    int i = 0;
#define X(FIELD, TYPE, LEN) q->FIELD = (TYPE *)spec[i++].at;
    QR_BIND_ARRAYS(X)
#undef X
    q->threads = n;
    return 0;
}

int qr_bind(Qr *q, Pool *pool, Comm *comm) { return LEARNER_BIND(q, pool, comm, qr_threads); }
