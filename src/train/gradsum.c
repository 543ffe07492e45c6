// gradsum.c: exact, order-independent accumulation of float64 gradients in fixed point.
#include "gradsum.h"
#include "../util/mem.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int gradsum_alloc(GradSum *s, size_t n) {
    s->n = n;
    s->hi = big_calloc(n, sizeof(int64_t));
    s->lo = big_calloc(n, sizeof(int64_t));
    if (!s->hi || !s->lo) {
        gradsum_free(s);
        return -1;
    }
    return 0;
}

void gradsum_free(GradSum *s) {
    free(s->hi);
    free(s->lo);
    s->hi = s->lo = NULL;
    s->n = 0;
}

void gradsum_zero(GradSum *s) { gradsum_zero_range(s, 0, s->n); }

void gradsum_zero_range(GradSum *s, size_t off, size_t len) {
    memset(s->hi + off, 0, len * sizeof(int64_t));
    memset(s->lo + off, 0, len * sizeof(int64_t));
}

// g's entries in fixed point, added to the sum's (add) or in place of them: the same words as
// adding them to zero. Where every entry is below 2^19 (a gradient's are), the conversions to
// int64 take gradsum_small_to_i64, exact there and vectorised without AVX-512; else the
// hardware's (the test is outside the loop: the compiler makes a loop of each).
static inline int64_t to_i64(double f, bool small) { return small ? gradsum_small_to_i64(f) : (int64_t)f; }

static inline int convert(GradSum *s, const double *g, size_t off, size_t len, bool add) {
    int64_t *hi = s->hi + off, *lo = s->lo + off;
    const double *x = g + off;
    int bad = 0, big = 0;
    for (size_t k = 0; k < len; k++) {
        bad |= !(fabs(x[k]) < GRADSUM_MAX_ABS); // NaN fails too
        big |= !(fabs(x[k]) < GRADSUM_SMALL * 0x1p-32);
    }
    if (bad) return -1;
    const bool small = !big;
    uint64_t over = 0;
    for (size_t k = 0; k < len; k++) {
        double y = x[k] * 0x1p32; // exact: a power-of-two scaling
        double f = floor(y);
        int64_t h = to_i64(f, small), l = to_i64(floor((y - f) * 0x1p32), small); // the fraction, in [0, 2^32]
        if (add) {
            uint64_t a = (uint64_t)hi[k], b = (uint64_t)h, c = a + b; // wraps: defined
            over |= (a ^ c) & (b ^ c);                                // sign bit set: the signed sum overflowed
            hi[k] = (int64_t)c;
            lo[k] += l;
        } else {
            hi[k] = h;
            lo[k] = l;
        }
    }
    return over >> 63 ? -1 : 0;
}

int gradsum_add(GradSum *s, const double *g, size_t off, size_t len) { return convert(s, g, off, len, true); }
int gradsum_set(GradSum *s, const double *g, size_t off, size_t len) { return convert(s, g, off, len, false); }

int gradsum_merge(GradSum *dst, const GradSum *src) { return gradsum_merge_range(dst, src, 0, dst->n); }

int gradsum_merge_range(GradSum *dst, const GradSum *src, size_t off, size_t len) {
    int64_t *restrict hi = dst->hi + off, *restrict lo = dst->lo + off;
    const int64_t *restrict shi = src->hi + off, *restrict slo = src->lo + off;
    uint64_t over = 0;
    for (size_t k = 0; k < len; k++) {
        uint64_t a = (uint64_t)hi[k], b = (uint64_t)shi[k], c = a + b;
        over |= (a ^ c) & (b ^ c);
        hi[k] = (int64_t)c;
        lo[k] += slo[k];
    }
    return over >> 63 ? -1 : 0;
}

void gradsum_copy_range(GradSum *dst, const GradSum *src, size_t off, size_t len) {
    memcpy(dst->hi + off, src->hi + off, len * sizeof(int64_t));
    memcpy(dst->lo + off, src->lo + off, len * sizeof(int64_t));
}

void gradsum_to_double(const GradSum *s, double *out) { gradsum_to_double_range(s, out, 0, s->n); }

void gradsum_to_double_range(const GradSum *s, double *restrict out, size_t off, size_t len) {
    const int64_t *restrict hi = s->hi + off, *restrict lo = s->lo + off;
    // in vector operations below 2^7 in magnitude (gradsum_round), else the exact conversion
    uint64_t far = 0;
    for (size_t k = 0; k < len; k++) {
        int64_t h;
        uint64_t l;
        gradsum_split(hi[k], lo[k], &h, &l);
        out[k] = gradsum_round(h, l, &far);
    }
    for (size_t k = 0; far && k < len; k++) {
        int64_t h;
        uint64_t l;
        gradsum_split(hi[k], lo[k], &h, &l);
        if (gradsum_far(h)) out[k] = gradsum_value(hi[k], lo[k]);
    }
}
