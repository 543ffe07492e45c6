// wire.c: a learner's training envs packed for the ranks' exchange, and unpacked (wire.h).
#include "wire.h"

#include <stdlib.h>
#include <string.h>


int wire_reserve(uint8_t **buf, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    uint8_t *w = realloc(*buf, need);
    if (!w) return -1;
    *buf = w;
    *cap = need;
    return 0;
}

#define PUT(p, v) (memcpy((p), &(v), sizeof(v)), (p) += sizeof(v))
#define GET(p, v) (memcpy(&(v), (p), sizeof(v)), (p) += sizeof(v))

size_t wire_steps_bound(int n) { return (size_t)n * (WIRE_STEP_HEAD + 2 * POLICY_D); }

size_t wire_steps_pack(const TrainEnvs *t, int e0, int e1, uint8_t *out) {
    uint8_t *p = out;
    for (int e = e0; e < e1; e++) {
        const Transition *st = &t->step[e];
        const uint8_t *f = t->frame + (size_t)e * POLICY_D;
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
    return (size_t)(p - out);
}

int wire_steps_unpack(TrainEnvs *t, const uint8_t *in, size_t len, int *bad) {
    for (const uint8_t *g = in, *end = in + len; g < end;) {
        int32_t e;
        uint8_t b[4];
        uint16_t n;
        *bad = -1;
        if ((size_t)(end - g) < WIRE_STEP_HEAD) return -1;
        GET(g, e);
        memcpy(b, g, 4);
        g += 4;
        if (e < 0 || e >= t->n) {
            *bad = (int)e;
            return -1;
        }
        Transition *st = &t->step[e];
        st->action = b[0];
        st->flags = b[1];
        st->reward = (int8_t)b[2];
        st->ended = b[3] != 0;
        GET(g, st->ret);
        GET(g, st->len);
        GET(g, n);
        if ((size_t)(end - g) < 2 * (size_t)n) return -1;
        uint8_t *f = t->frame + (size_t)e * POLICY_D;
        memset(f, 0, POLICY_D);
        for (uint16_t i = 0; i < n; i++) {
            uint16_t k;
            GET(g, k);
            f[k % POLICY_D] = 1;
        }
    }
    return 0;
}

size_t wire_envs_bytes(int n) { return (size_t)n * WIRE_ENV_DOUBLES * sizeof(double); }

void wire_envs_pack(const TrainEnvs *t, int e0, int e1, uint8_t *out) {
    double d[WIRE_ENV_DOUBLES];
    for (int e = e0; e < e1; e++, out += sizeof(d)) {
        d[0] = e;
        env_record_save(t->venv, e, t->prev + (size_t)e * POLICY_D, d + 1);
        d[WIRE_ENV_DOUBLES - 1] = (double)t->frames[e];
        memcpy(out, d, sizeof(d));
    }
}

int wire_envs_unpack(TrainEnvs *t, const uint8_t *in, size_t len, int e0, int e1, int *bad) {
    double one[WIRE_ENV_DOUBLES];
    for (size_t off = 0; off + sizeof(one) <= len; off += sizeof(one)) {
        memcpy(one, in + off, sizeof(one));
        if (one[0] >= e0 && one[0] < e1) continue; // this rank's own
        const int e = one[0] >= 0 && one[0] < t->n ? (int)one[0] : -1;
        if (e < 0 || env_record_load(t->venv, e, one + 1, t->prev + (size_t)e * POLICY_D)) {
            *bad = e;
            return -1;
        }
        t->frames[e] = (int64_t)one[WIRE_ENV_DOUBLES - 1];
    }
    return 0;
}
