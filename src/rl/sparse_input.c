// sparse_input.c: the sparse input of a state (sparse_input.h).
#include "sparse_input.h"

#include <string.h>


// The input of a state (sparse_input.h): the frame's pixels (+1), then at 6400 + k the difference
// cur - prev; with coarse views, then the coarse view of the frame (+1) and its difference from
// the previous frame's. The scans skip 64 zero (or unchanged) bytes at a time, then 8: ~99% of
// the 80x80 grid is zeros, and a scan of words alone was a tenth of a training run's time.
#define SPAN 64 // POLICY_D is a multiple
// Whether SPAN bytes of a equal those of b (b NULL: are zero).
__attribute__((always_inline)) static inline bool span_same(const uint8_t *a, const uint8_t *b) {
    uint64_t u[SPAN / 8], v[SPAN / 8] = { 0 }, o = 0;
    memcpy(u, a, SPAN);
    if (b) memcpy(v, b, SPAN);
    for (int k = 0; k < SPAN / 8; k++) o |= u[k] ^ v[k];
    return !o;
}

// Appends to idx/sign (from entry n; sign may be NULL) base + k and cur[k] - prev[k] for every k
// < len where they differ (prev NULL: where cur[k] is not zero); returns the new count.
__attribute__((always_inline)) static inline int scan(
    const uint8_t *cur, const uint8_t *prev, int len, int base, uint16_t *idx, int8_t *sign, int n) {
    for (int b = 0; b < len; b += 8) {
        if (b % SPAN == 0 && b + SPAN <= len && span_same(cur + b, prev ? prev + b : NULL)) {
            b += SPAN - 8;
            continue;
        }
        uint64_t c, q = 0;
        memcpy(&c, cur + b, 8);
        if (prev) memcpy(&q, prev + b, 8);
        if (c == q) continue;
        for (int k = b; k < b + 8; k++) {
            const int d = prev ? cur[k] - prev[k] : cur[k] != 0;
            if (!d) continue;
            if (sign) sign[n] = (int8_t)d;
            idx[n++] = (uint16_t)(base + k);
        }
    }
    return n;
}

static void coarse_view(const uint8_t *f, uint8_t *c) {
    memset(c, 0, SPARSE_COARSE);
    uint16_t lit[POLICY_D];
    const int n = scan(f, NULL, POLICY_D, 0, lit, NULL, 0);
    for (int t = 0; t < n; t++) {
        const int y = lit[t] / 80, x = lit[t] % 80;
        c[(y / SPARSE_POOL) * (80 / SPARSE_POOL) + x / SPARSE_POOL] = 1;
        c[SPARSE_COARSE_ROWS + (x / SPARSE_BAND) * 80 + y] = 1;
        c[SPARSE_COARSE_COLS + (y / SPARSE_BAND) * 80 + x] = 1;
    }
}

int sparse_input(const uint8_t *cur, const uint8_t *prev, bool coarse, uint16_t *idx, int8_t *sign) {
    int n = scan(cur, NULL, POLICY_D, 0, idx, sign, 0);
    n = scan(cur, prev, POLICY_D, POLICY_D, idx, sign, n);
    if (!coarse) return n;
    uint8_t cc[SPARSE_COARSE], pc[SPARSE_COARSE];
    coarse_view(cur, cc);
    coarse_view(prev, pc);
    n = scan(cc, NULL, SPARSE_COARSE, 2 * POLICY_D, idx, sign, n);
    return scan(cc, pc, SPARSE_COARSE, 2 * POLICY_D + SPARSE_COARSE, idx, sign, n);
}
