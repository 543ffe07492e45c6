// test_legacy.h: checkpoints as the builds before format version 4 wrote them, for the tests
// that older files still load (not a test itself). Versions 2 and 3: the settings text, the
// counters, a block of Karpathy's network (i32 D | i32 H | u64 n; D = H = n = 0 for none), the
// flags, the arrays' entries (name, nonneg, length), then w[n] and the arrays as raw float64s,
// and the CRC of all that.
#ifndef PONGRL_TEST_LEGACY_H
#define PONGRL_TEST_LEGACY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "train/checkpoint.h"
#include "util/crc.h"

static inline void legacy_put(uint8_t *b, size_t *at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) b[(*at)++] = (uint8_t)(v >> (8 * i));
}
static inline void legacy_put_f(uint8_t *b, size_t *at, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    legacy_put(b, at, u, 8);
}

// s's settings and counters, Karpathy's network w (D*H + H of them; NULL: none) and the arrays
// a[0 .. na) as a version 2 or 3 file (malloc'd; *len its bytes).
static inline uint8_t *legacy_checkpoint(
    const TrainState *s, uint32_t version, const double *w, int H, const LearnerArray *a, int na, size_t *len) {
    const int roles = SETTING_RUN | SETTING_GOAL;
    const size_t st = train_config_write(&s->cfg, roles, NULL, 0);
    const size_t n = w ? (size_t)POLICY_D * H + H : 0;
    const size_t hb =
        8 + 4 + 4 + 4 + st + 4 * 8 + 2 * 8 + 4 + 4 + 8 + 4 + 4 + (size_t)na * (LEARNER_ARRAY_NAME_MAX + 4 + 8);
    size_t total = hb + 8 * n + 4;
    for (int i = 0; i < na; i++) total += 8 * a[i].n;
    uint8_t *b = calloc(1, total);
    char *text = malloc(st + 1);
    train_config_write(&s->cfg, roles, text, st + 1);
    size_t at = 0;
    memcpy(b, CKPT_MAGIC, 8);
    at = 8;
    legacy_put(b, &at, version, 4);
    legacy_put(b, &at, hb, 4);
    legacy_put(b, &at, st, 4);
    memcpy(b + at, text, st);
    at += st;
    free(text);
    legacy_put(b, &at, (uint64_t)s->iteration, 8);
    legacy_put(b, &at, (uint64_t)s->episodes, 8);
    legacy_put(b, &at, (uint64_t)s->agent_steps, 8);
    legacy_put(b, &at, (uint64_t)s->frames, 8);
    legacy_put_f(b, &at, s->running_reward);
    legacy_put_f(b, &at, s->wall_s);
    legacy_put(b, &at, w ? POLICY_D : 0, 4);
    legacy_put(b, &at, w ? (uint64_t)H : 0, 4);
    legacy_put(b, &at, n, 8);
    legacy_put(b, &at, 0, 4); // flags
    legacy_put(b, &at, (uint64_t)na, 4);
    for (int i = 0; i < na; i++) {
        memset(b + at, 0, LEARNER_ARRAY_NAME_MAX);
        memcpy(b + at, a[i].name, strlen(a[i].name));
        at += LEARNER_ARRAY_NAME_MAX;
        legacy_put(b, &at, a[i].nonneg, 4);
        legacy_put(b, &at, a[i].n, 8);
    }
    for (size_t i = 0; i < n; i++) legacy_put_f(b, &at, w[i]);
    for (int k = 0; k < na; k++)
        for (size_t i = 0; i < a[k].n; i++) legacy_put_f(b, &at, a[k].data[i]);
    legacy_put(b, &at, crc32_of(b, at), 4);
    *len = at;
    return b;
}

// The CRC at the end of a file of len bytes, redone after a test changed a byte before it.
static inline void legacy_recrc(uint8_t *b, size_t len) {
    size_t at = len - 4;
    legacy_put(b, &at, crc32_of(b, len - 4), 4);
}

#endif
