// replay.c: the replay memory of sparse frames (replay.h): a ring of slots, each a transition's
// action, reward, flags and where its frame's lit pixels lie in a second ring, the pool. The
// slots are written in order, so their pixels are too: `oldest` only moves on.
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "../util/rng.h"
#include "sparse_input.h"

int replay_alloc(Replay *r, int64_t cap, int64_t pool_cap, int actions) {
    memset(r, 0, sizeof(*r));
    r->cap = cap;
    r->pool_cap = pool_cap;
    r->actions = actions;
    r->off = calloc((size_t)cap, sizeof(uint64_t));
    r->count = calloc((size_t)cap, sizeof(uint16_t));
    r->action = calloc((size_t)cap, 1);
    r->flags = calloc((size_t)cap, 1);
    r->reward = calloc((size_t)cap, 1);
    r->pool = calloc((size_t)pool_cap, sizeof(uint16_t));
    return r->off && r->count && r->action && r->flags && r->reward && r->pool ? 0 : -1;
}

void replay_free(Replay *r) {
    mem_free_all(r->off, r->count, r->action, r->flags, r->reward, r->pool);
    memset(r, 0, sizeof(*r));
}

void replay_put(Replay *r, const uint8_t *frame, const Transition *t) {
    const size_t k = replay_slot(r, r->total);
    uint16_t n = 0;
    r->off[k] = r->pool_total;
    for (int p = 0; p < POLICY_D; p++)
        if (frame[p]) {
            r->pool[(r->pool_total + n) % (uint64_t)r->pool_cap] = (uint16_t)p;
            n++;
        }
    r->count[k] = n;
    r->action[k] = t->action;
    r->flags[k] = t->flags;
    r->reward[k] = t->reward;
    r->pool_total += n;
    r->total++;
    // the slots whose place or pixels were written over
    const uint64_t kept = r->pool_total > (uint64_t)r->pool_cap ? r->pool_total - (uint64_t)r->pool_cap : 0;
    while (r->oldest < r->total && (r->oldest <= r->total - 1 - r->cap || r->off[replay_slot(r, r->oldest)] < kept))
        r->oldest++;
}

void replay_frame(const Replay *r, int64_t k, uint8_t *out) {
    const size_t s = replay_slot(r, k);
    memset(out, 0, POLICY_D);
    for (uint16_t i = 0; i < r->count[s]; i++) out[r->pool[(r->off[s] + i) % (uint64_t)r->pool_cap]] = 1;
}

int replay_lit(const Replay *r, int64_t k, uint16_t *out) {
    const size_t s = replay_slot(r, k), n = r->count[s], at = (size_t)(r->off[s] % (uint64_t)r->pool_cap);
    const size_t first = n < (size_t)r->pool_cap - at ? n : (size_t)r->pool_cap - at; // the pool is a ring
    memcpy(out, r->pool + at, sizeof(uint16_t) * first);
    memcpy(out + first, r->pool, sizeof(uint16_t) * (n - first));
    return (int)n;
}

int replay_state_input(const Replay *r, int64_t k, int64_t stride, bool coarse, uint16_t *cur, uint16_t *prev,
    uint16_t *idx, int8_t *sign) {
    const int nc = replay_lit(r, k, cur);
    const int np = r->flags[replay_slot(r, k)] & REPLAY_START ? 0 : replay_lit(r, k - stride, prev);
    return sparse_input_lit(cur, nc, prev, np, coarse, idx, sign);
}

bool replay_nstep(const Replay *r, int64_t k, int64_t stride, int n, double gamma, double *R, double *disc) {
    double sum = 0.0, d = 1.0;
    bool ended = false;
    for (int m = 0; m < n && !ended; m++) {
        const size_t s = replay_slot(r, k + (int64_t)m * stride);
        sum += d * r->reward[s];
        d *= gamma;
        ended = r->flags[s] & REPLAY_DONE;
    }
    *R = sum;
    *disc = d;
    return ended;
}

bool replay_draw(const Replay *r, int64_t before, int64_t after, uint64_t key, int n, int64_t *slots) {
    const int64_t lo = r->oldest + before, hi = r->total - 1 - after;
    if (hi < lo) return false;
    Rng rng;
    rng_seed(&rng, key);
    for (int b = 0; b < n; b++) slots[b] = lo + (int64_t)rng_below(&rng, (uint64_t)(hi - lo + 1));
    return true;
}

// ----------------------------------------------------------------------------
// as float64s: total, pool_total, oldest; per slot its offset and one double of count, action,
// flags and reward + 128; the pool three pixels to a double (48 bits: exact)

#define HEAD 3

size_t replay_doubles(const Replay *r) { return HEAD + 2 * (size_t)r->cap + ((size_t)r->pool_cap + 2) / 3; }

void replay_save(const Replay *r, double *out) {
    out[0] = (double)r->total;
    out[1] = (double)r->pool_total;
    out[2] = (double)r->oldest;
    double *o = out + HEAD;
    for (size_t k = 0; k < (size_t)r->cap; k++) {
        o[2 * k] = (double)r->off[k];
        o[2 * k + 1] = (double)((uint64_t)r->count[k] | (uint64_t)r->action[k] << 16 | (uint64_t)r->flags[k] << 24 |
            (uint64_t)(r->reward[k] + 128) << 32);
    }
    o += 2 * (size_t)r->cap;
    for (size_t k = 0; k < (size_t)r->pool_cap; k += 3) {
        uint64_t v = 0;
        for (size_t b = 0; b < 3 && k + b < (size_t)r->pool_cap; b++) v |= (uint64_t)r->pool[k + b] << (16 * b);
        o[k / 3] = (double)v;
    }
}

static bool whole(double d, double below) { return d >= 0 && d < below && d == (double)(uint64_t)d; }

int replay_load(Replay *r, const double *in) {
    const double big = 9007199254740992.0; // 2^53
    if (!whole(in[0], big) || !whole(in[1], big) || !whole(in[2], big) || in[2] > in[0]) return -1;
    const double *o = in + HEAD;
    for (size_t k = 0; k < (size_t)r->cap; k++) {
        if (!whole(o[2 * k], big) || !whole(o[2 * k + 1], 1099511627776.0)) return -1;
        const uint64_t v = (uint64_t)o[2 * k + 1];
        if ((v & 0xffff) > POLICY_D || ((v >> 16) & 0xff) >= (uint64_t)r->actions ||
            ((v >> 24) & 0xff) > (REPLAY_DONE | REPLAY_START))
            return -1;
        r->off[k] = (uint64_t)o[2 * k];
        r->count[k] = (uint16_t)(v & 0xffff);
        r->action[k] = (uint8_t)(v >> 16);
        r->flags[k] = (uint8_t)(v >> 24);
        r->reward[k] = (int8_t)((int)((v >> 32) & 0xff) - 128);
    }
    o += 2 * (size_t)r->cap;
    for (size_t k = 0; k < (size_t)r->pool_cap; k += 3) {
        if (!whole(o[k / 3], 281474976710656.0)) return -1;
        const uint64_t v = (uint64_t)o[k / 3];
        for (size_t b = 0; b < 3 && k + b < (size_t)r->pool_cap; b++) {
            const uint16_t p = (uint16_t)(v >> (16 * b));
            if (p >= POLICY_D) return -1;
            r->pool[k + b] = p;
        }
    }
    r->total = (int64_t)in[0];
    r->pool_total = (uint64_t)in[1];
    r->oldest = (int64_t)in[2];
    return 0;
}
