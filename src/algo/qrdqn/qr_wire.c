// qr_wire.c: the ranks' exchange of QR-DQN under MPI (qrdqn.h). Each rank plays its range of
// the envs; after each round every rank gets every env's step (action, reward, flags, ended
// episode, the frame's lit pixels) through Comm.allgather, so that every rank writes the same
// transitions into its replay memory and takes the same updates: the weights are the same bits
// on any number of ranks. After the last round the envs' states go round too (a checkpoint
// holds every env; rank 0 writes it), with the frames each emulated.
#include "qrdqn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rl/learner_envs.h"

static int reserve(Qr *q, size_t need) {
    if (need <= q->wire_cap) return 0;
    uint8_t *w = realloc(q->wire, need);
    if (!w) return -1;
    q->wire = w;
    q->wire_cap = need;
    return 0;
}

#define PUT(p, v) (memcpy((p), &(v), sizeof(v)), (p) += sizeof(v))
#define GET(p, v) (memcpy(&(v), (p), sizeof(v)), (p) += sizeof(v))

// a step: env (int32), action, flags, reward, ended (4 bytes), ret (double), len (int64), the
// frame's lit pixels (uint16 count, then the indices)
#define STEP_HEAD (4 + 4 + 8 + 8 + 2)

int qr_exchange_round(Qr *q, char *err, size_t errlen) {
    if (reserve(q, (size_t)(q->env1 - q->env0) * (STEP_HEAD + 2 * POLICY_D))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint8_t *p = q->wire;
    for (int e = q->env0; e < q->env1; e++) {
        const QrStep *st = &q->step[e];
        const uint8_t *f = q->frames + (size_t)e * POLICY_D;
        const int32_t e32 = e;
        const uint8_t b[4] = { st->action, st->flags, (uint8_t)st->reward, st->ended };
        PUT(p, e32);
        memcpy(p, b, 4);
        p += 4;
        PUT(p, st->ret);
        PUT(p, st->len);
        uint8_t *count = p;
        p += 2;
        uint16_t n = 0;
        for (int k = 0; k < POLICY_D; k++)
            if (f[k]) {
                const uint16_t k16 = (uint16_t)k;
                PUT(p, k16);
                n++;
            }
        memcpy(count, &n, 2);
    }
    const uint8_t *all;
    const size_t *sizes;
    if (q->comm->allgather(q->comm, q->wire, (size_t)(p - q->wire), &all, &sizes, err, errlen)) return -1;
    size_t total = 0;
    for (int r = 0; r < q->comm->size; r++) total += sizes[r];
    for (const uint8_t *g = all, *end = all + total; g < end;) {
        int32_t e;
        uint8_t b[4];
        uint16_t n;
        GET(g, e);
        memcpy(b, g, 4);
        g += 4;
        if (e < 0 || e >= q->cfg.envs) {
            snprintf(err, errlen, "a rank sent a step of env %d (the run has %d)", (int)e, q->cfg.envs);
            return -1;
        }
        QrStep *st = &q->step[e];
        st->action = b[0];
        st->flags = b[1];
        st->reward = (int8_t)b[2];
        st->ended = b[3] != 0;
        GET(g, st->ret);
        GET(g, st->len);
        GET(g, n);
        uint8_t *f = q->frames + (size_t)e * POLICY_D;
        memset(f, 0, POLICY_D);
        for (uint16_t i = 0; i < n; i++) {
            uint16_t k;
            GET(g, k);
            f[k % POLICY_D] = 1;
        }
    }
    return 0;
}

int qr_exchange_envs(Qr *q, char *err, size_t errlen) {
    const size_t rec = ENV_RECORD_DOUBLES + 2; // the env's index, its state, its frames
    if (reserve(q, (size_t)(q->env1 - q->env0) * rec * sizeof(double))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    double *d = (double *)(void *)q->wire;
    for (int e = q->env0; e < q->env1; e++, d += rec) {
        d[0] = e;
        env_record_save(q->venv, e, q->envs[e].prev, d + 1);
        d[rec - 1] = (double)q->envs[e].frames;
    }
    const uint8_t *all;
    const size_t *sizes;
    if (q->comm->allgather(
            q->comm, q->wire, (size_t)(q->env1 - q->env0) * rec * sizeof(double), &all, &sizes, err, errlen))
        return -1;
    size_t total = 0;
    for (int r = 0; r < q->comm->size; r++) total += sizes[r];
    double one[rec];
    for (size_t off = 0; off + rec * sizeof(double) <= total; off += rec * sizeof(double)) {
        memcpy(one, all + off, rec * sizeof(double));
        const int e = (int)one[0];
        if (e < q->env0 || e >= q->env1) {
            if (e < 0 || e >= q->cfg.envs || env_record_load(q->venv, e, one + 1, q->envs[e].prev)) {
                snprintf(err, errlen, "a rank sent an env state that is not valid (env %d)", e);
                return -1;
            }
            q->envs[e].frames = (int64_t)one[rec - 1];
        }
    }
    return 0;
}
