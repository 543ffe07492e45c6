// qr_replay.c: the replay memory (qrdqn.h): a ring of slots, each a transition's action,
// reward, flags and where its frame's lit pixels lie in a second ring, the pool. A frame has a
// few dozen lit pixels of 6400, so a transition takes ~140 bytes rather than 12,800. A slot is
// gone when the ring of slots passes it or when the pool's ring overwrites its pixels
// (`oldest`: the slots are written in order, so their pixels are too).
#include "qrdqn.h"

#include <stdlib.h>
#include <string.h>

#include "../../util/mem.h"

int qr_replay_alloc(QrReplay *r, int64_t cap) {
    memset(r, 0, sizeof(*r));
    r->cap = cap;
    r->pool_cap = cap * QR_LIT_SLOT;
    r->off = calloc((size_t)cap, sizeof(uint64_t));
    r->count = calloc((size_t)cap, sizeof(uint16_t));
    r->action = calloc((size_t)cap, 1);
    r->flags = calloc((size_t)cap, 1);
    r->reward = calloc((size_t)cap, 1);
    r->pool = calloc((size_t)r->pool_cap, sizeof(uint16_t));
    return r->off && r->count && r->action && r->flags && r->reward && r->pool ? 0 : -1;
}

void qr_replay_free(QrReplay *r) {
    mem_free_all(r->off, r->count, r->action, r->flags, r->reward, r->pool);
    memset(r, 0, sizeof(*r));
}

void qr_replay_put(QrReplay *r, const uint8_t *frame, const QrStep *st) {
    const size_t k = (size_t)(r->total % r->cap);
    uint16_t n = 0;
    r->off[k] = r->pool_total;
    for (int p = 0; p < POLICY_D; p++)
        if (frame[p]) {
            r->pool[(r->pool_total + n) % (uint64_t)r->pool_cap] = (uint16_t)p;
            n++;
        }
    r->count[k] = n;
    r->action[k] = st->action;
    r->flags[k] = st->flags;
    r->reward[k] = st->reward;
    r->pool_total += n;
    r->total++;
    // the slots whose place or pixels were written over
    const uint64_t kept = r->pool_total > (uint64_t)r->pool_cap ? r->pool_total - (uint64_t)r->pool_cap : 0;
    while (r->oldest < r->total && (r->oldest <= r->total - 1 - r->cap || r->off[(size_t)(r->oldest % r->cap)] < kept))
        r->oldest++;
}

void qr_replay_frame(const QrReplay *r, int64_t k, uint8_t *out) {
    const size_t s = (size_t)(k % r->cap);
    memset(out, 0, POLICY_D);
    for (uint16_t i = 0; i < r->count[s]; i++) out[r->pool[(r->off[s] + i) % (uint64_t)r->pool_cap]] = 1;
}

// ----------------------------------------------------------------------------
// as float64s: total, pool_total, oldest; per slot its offset and one double of count, action,
// flags and reward + 128; the pool three pixels to a double (48 bits: exact)

#define HEAD 3

size_t qr_replay_doubles(const QrReplay *r) { return HEAD + 2 * (size_t)r->cap + ((size_t)r->pool_cap + 2) / 3; }

void qr_replay_save(const QrReplay *r, double *out) {
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

int qr_replay_load(QrReplay *r, const double *in) {
    const double big = 9007199254740992.0; // 2^53
    if (!whole(in[0], big) || !whole(in[1], big) || !whole(in[2], big) || in[2] > in[0]) return -1;
    const double *o = in + HEAD;
    for (size_t k = 0; k < (size_t)r->cap; k++) {
        if (!whole(o[2 * k], big) || !whole(o[2 * k + 1], 1099511627776.0)) return -1;
        const uint64_t v = (uint64_t)o[2 * k + 1];
        if ((v & 0xffff) > POLICY_D || ((v >> 16) & 0xff) >= QR_ACTIONS || ((v >> 24) & 0xff) > (QR_DONE | QR_START))
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
