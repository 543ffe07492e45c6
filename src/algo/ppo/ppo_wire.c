// ppo_wire.c: under MPI, the ranks' exchange of what each played (Comm.allgather), so that
// every rank holds the whole rollout and every env's state, as one process does. Per env: its
// index, counters, the value after the rollout, its game (env_clone, with its random stream)
// and previous frame (a bit a pixel), then per step its input's size, action, end,
// log-probability, value and reward, the episodes it ended (return, length), and the inputs.
// The same binary reads what it wrote.
#include "ppo_parts.h"

#include <stdio.h>
#include <stdlib.h>

static size_t env_wire_bytes(const Ppo *p, int e) {
    const int T = p->cfg.steps;
    const uint32_t nnz = p->xoff[(size_t)e * (T + 1) + T];
    return 4 + 5 * 8 + 4 + ENV_STATE_BYTES + POLICY_D / 8 + (size_t)T * (4 + 2 + 3 * 8 + 16) + (size_t)nnz * 3;
}

static int wire_pack(Ppo *p) {
    const int T = p->cfg.steps;
    size_t need = 0;
    for (int e = p->env0; e < p->env1; e++) need += env_wire_bytes(p, e);
    if (need > p->wire_cap) {
        uint8_t *bigger = realloc(p->wire.p, need + need / 4);
        if (!bigger) return -1;
        p->wire.p = bigger;
        p->wire_cap = need + need / 4;
    }
    ByteWriter *w = &p->wire;
    w->pos = 0;
    for (int e = p->env0; e < p->env1; e++) {
        const PpoEnv *v = &p->envs[e];
        const uint32_t *off = p->xoff + (size_t)e * (T + 1);
        const size_t s0 = (size_t)e * T;
        int64_t episodes, ep_len;
        double ep_return;
        ppo_env_counters(p, e, &episodes, &ep_return, &ep_len);
        bytes_put_u32(w, (uint32_t)e);
        bytes_put(w, &episodes, 8);
        bytes_put(w, &ep_return, 8);
        bytes_put(w, &ep_len, 8);
        bytes_put(w, &v->frames, 8);
        bytes_put(w, &p->next_value[e], 8);
        bytes_put_u32(w, off[T]);
        vecenv_clone(p->venv, e, true, w->p + w->pos);
        w->pos += ENV_STATE_BYTES;
        for (int k = 0; k < POLICY_D; k += 8) {
            uint8_t b = 0;
            for (int j = 0; j < 8; j++) b |= (uint8_t)(v->prev[k + j] << j);
            bytes_put_u8(w, b);
        }
        bytes_put(w, off + 1, sizeof(uint32_t) * (size_t)T);
        bytes_put(w, p->action + s0, (size_t)T);
        bytes_put(w, p->done + s0, (size_t)T);
        bytes_put(w, p->logp + s0, sizeof(double) * (size_t)T);
        bytes_put(w, p->value + s0, sizeof(double) * (size_t)T);
        bytes_put(w, p->reward + s0, sizeof(double) * (size_t)T);
        for (int t = 0; t < T; t++)
            if (p->done[s0 + t]) {
                bytes_put(w, &p->ended_slot[s0 + t].ret, 8);
                bytes_put(w, &p->ended_slot[s0 + t].len, 8);
            }
        bytes_put(w, p->xidx[e], sizeof(uint16_t) * off[T]);
        bytes_put(w, p->xsign[e], off[T]);
    }
    return 0;
}

// Env e's part of the rollout and its state from another rank's bytes. 0, or -1 (malformed,
// or out of memory).
static int wire_unpack_env(Ppo *p, ByteReader *r, int e) {
    const int T = p->cfg.steps;
    PpoEnv *v = &p->envs[e];
    uint32_t *off = p->xoff + (size_t)e * (T + 1);
    const size_t s0 = (size_t)e * T;
    if (bytes_get_u32(r) != (uint32_t)e) return -1;
    int64_t episodes, ep_len;
    double ep_return;
    bytes_get(r, &episodes, 8);
    bytes_get(r, &ep_return, 8);
    bytes_get(r, &ep_len, 8);
    bytes_get(r, &v->frames, 8);
    bytes_get(r, &p->next_value[e], 8);
    const uint32_t nnz = bytes_get_u32(r);
    if (!bytes_take(r, ENV_STATE_BYTES + POLICY_D / 8)) return -1;
    if (ppo_env_set(p, e, r->p + r->pos, episodes, ep_return, ep_len)) return -1;
    r->pos += ENV_STATE_BYTES;
    for (int k = 0; k < POLICY_D; k += 8) {
        const uint8_t b = bytes_get_u8(r);
        for (int j = 0; j < 8; j++) v->prev[k + j] = (uint8_t)(b >> j & 1);
    }
    off[0] = 0;
    bytes_get(r, off + 1, sizeof(uint32_t) * (size_t)T);
    if (off[T] != nnz) return -1;
    for (int t = 0; t < T; t++)
        if (off[t + 1] < off[t] || off[t + 1] - off[t] > (uint32_t)p->net.D) return -1;
    bytes_get(r, p->action + s0, (size_t)T);
    bytes_get(r, p->done + s0, (size_t)T);
    bytes_get(r, p->logp + s0, sizeof(double) * (size_t)T);
    bytes_get(r, p->value + s0, sizeof(double) * (size_t)T);
    bytes_get(r, p->reward + s0, sizeof(double) * (size_t)T);
    for (int t = 0; t < T; t++) {
        if (p->action[s0 + t] >= PPO_ACTIONS || p->done[s0 + t] > 1) return -1;
        if (!p->done[s0 + t]) continue;
        PpoEpisode *ep = &p->ended_slot[s0 + t];
        ep->t = t;
        ep->env = e;
        bytes_get(r, &ep->ret, 8);
        bytes_get(r, &ep->len, 8);
    }
    if (ppo_reserve_inputs(p, e, (size_t)nnz + (size_t)p->net.D)) return -1;
    bytes_get(r, p->xidx[e], sizeof(uint16_t) * nnz);
    bytes_get(r, p->xsign[e], nnz);
    for (uint32_t k = 0; k < nnz; k++)
        if (p->xidx[e][k] >= p->net.D) return -1;
    return r->short_read ? -1 : 0;
}

// Every rank's envs to every rank: then each holds the whole rollout and every env's state.
int ppo_exchange(Ppo *p) {
    Comm *c = p->comm;
    const int N = p->cfg.envs;
    if (wire_pack(p)) {
        snprintf(p->why, sizeof(p->why), "out of memory");
        return -1;
    }
    const uint8_t *all;
    const size_t *sizes;
    if (c->allgather(c, p->wire.p, p->wire.pos, &all, &sizes, p->why, sizeof(p->why))) return -1;
    for (int q = 0; q < c->size; q++) {
        ByteReader r = { all, sizes[q], 0, false };
        for (int e = (int)((int64_t)N * q / c->size); e < (int)((int64_t)N * (q + 1) / c->size); e++)
            if (q != c->rank && wire_unpack_env(p, &r, e)) {
                snprintf(p->why, sizeof(p->why),
                    "rank %d's rollout of env %d is not one this build wrote "
                    "(or out of memory)",
                    q, e);
                return -1;
            }
        all += sizes[q];
    }
    return 0;
}
