// qr_envs.c: QR-DQN's N games are rl/train_envs.h's training envs, caller-stepped: the pool's
// threads step their ranges of envs themselves, a forward pass between two steps of an env.
// Each seeds its episode j from (run seed, env, j) with QR-DQN's own word ("qrde"), and draws
// its epsilon-greedy choices of iteration i from (run seed, i, env, "qrda"), so that an env's
// games do not depend on who plays them. Under MPI each rank plays its range of the envs, and
// after each round every rank gets every env's step (packed by rl/wire.h) through
// Comm.allgather, so that every rank writes the same transitions into its replay memory and
// takes the same updates: the weights are the same bits on any number of ranks. After the last
// round the envs' states go round too (a checkpoint holds every env; rank 0 writes it), with the
// frames each emulated.
#include "qrdqn.h"

#include <stdio.h>

#include "../../rl/wire.h"
#include "qr_streams.h"

int qr_envs_start(Qr *q) {
    const TrainConfig *c = &q->cfg;
    return train_envs_create(&q->te, c->env_id, c->envs, c->mode, c->difficulty, STREAM_QR_ENV, c->seed);
}

// Env e's step of the round: its frame into q->te.frame, an epsilon-greedy action (two draws a
// step whatever epsilon is, so that the stream's place does not depend on it), the game's step,
// and what it left in q->te.step[e].
void qr_env_step(Qr *q, int e, double *h, double *qv) {
    TrainEnvs *t = &q->te;
    const double u = rng_uniform(&t->rng[e]);
    const int any = (int)rng_below(&t->rng[e], QR_ACTIONS);
    const uint8_t *cur = train_envs_observe(t, e);
    int a = any;
    if (u >= q->eps) { // the network's action (not asked while epsilon is 1)
        uint16_t idx[SPARSE_INPUT_MAX], lit[POLICY_D], lit_prev[POLICY_D];
        int8_t sign[SPARSE_INPUT_MAX];
        // sparse_input's entries from the two frames' lit pixels: a scan of each, not of the pair
        // and of both frames again for their coarse views
        const int nc = sparse_lit(cur, lit), np = sparse_lit(t->prev + (size_t)e * POLICY_D, lit_prev);
        const int nnz = sparse_input_lit(lit, nc, lit_prev, np, true, idx, sign);
        qr_forward(&q->sh, q->w, (SparseX){ nnz, idx, sign }, h, qv);
        a = qr_greedy(&q->sh, qv, NULL);
    }
    train_envs_step(t, e, a, QR_ACTION_ID[a]);
}

// ----------------------------------------------------------------------------
// under MPI

// q->wire's len bytes out, every rank's in: *all, *total bytes of them, in rank order.
static int gather(Qr *q, size_t len, const uint8_t **all, size_t *total, char *err, size_t errlen) {
    const size_t *sizes;
    if (q->comm->allgather(q->comm, q->wire, len, all, &sizes, err, errlen)) return -1;
    *total = 0;
    for (int r = 0; r < q->comm->size; r++) *total += sizes[r];
    return 0;
}

int qr_exchange_round(Qr *q, char *err, size_t errlen) {
    if (wire_reserve(&q->wire, &q->wire_cap, wire_steps_bound(q->env1 - q->env0))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const size_t len = wire_steps_pack(&q->te, q->env0, q->env1, q->wire);
    const uint8_t *all;
    size_t total;
    if (gather(q, len, &all, &total, err, errlen)) return -1;
    int bad;
    if (wire_steps_unpack(&q->te, all, total, &bad)) {
        if (bad < 0)
            snprintf(err, errlen, "a rank sent a step cut short");
        else
            snprintf(err, errlen, "a rank sent a step of env %d (the run has %d)", bad, q->cfg.envs);
        return -1;
    }
    return 0;
}

int qr_exchange_envs(Qr *q, char *err, size_t errlen) {
    const size_t len = wire_envs_bytes(q->env1 - q->env0);
    if (wire_reserve(&q->wire, &q->wire_cap, len)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    wire_envs_pack(&q->te, q->env0, q->env1, q->wire);
    const uint8_t *all;
    size_t total;
    if (gather(q, len, &all, &total, err, errlen)) return -1;
    int bad;
    if (wire_envs_unpack(&q->te, all, total, q->env0, q->env1, &bad)) {
        snprintf(err, errlen, "a rank sent an env state that is not valid (env %d)", bad);
        return -1;
    }
    return 0;
}
