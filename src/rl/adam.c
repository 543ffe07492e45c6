// adam.c: one step of Adam on a range (adam.h).
#include "adam.h"

#include <float.h>
#include <math.h>

#include "../util/mem.h"

AdamStep adam_step(double lr, double beta1, double beta2, double eps, int64_t t) {
    return (AdamStep){ beta1, beta2, eps, lr / (1.0 - pow(beta1, (double)t)), 1.0 / sqrt(1.0 - pow(beta2, (double)t)) };
}

// A moment below the smallest normal number of its storage (min: DBL_MIN or FLT_MIN) as 0
// (adam.h): a subnormal moment costs a microcode assist at every operation on it, and the
// moments of a unit that is always off decay through the subnormals for tens of thousands of
// steps (QR-DQN ran 2.6 times slower at 6 M agent steps); 0 decays for free. A compare and a
// blend a vector: no branch.
static inline double flush(double x, double min) { return fabs(x) < min ? 0.0 : x; }
static inline float flushf(float x) { return fabsf(x) < FLT_MIN ? 0.0f : x; }

void adam_update(double *restrict w, double *restrict m, double *restrict v, const double *restrict g, size_t n,
    double coef, const AdamStep *s) {
    const double beta1 = s->beta1, beta2 = s->beta2, eps = s->eps, step = s->step, inv_bc2 = s->inv_bc2;
    for (size_t k = 0; k < n; k++) {
        const double gk = g[k] * coef; // (a product by 1.0 is exact: no clipping, no change)
        const double mk = flush(beta1 * m[k] + (1.0 - beta1) * gk, DBL_MIN);
        const double vk = flush(beta2 * v[k] + (1.0 - beta2) * (gk * gk), DBL_MIN);
        m[k] = mk;
        v[k] = vk;
        w[k] -= step * (mk / (sqrt(vk) * inv_bc2 + eps)); // a product, not torch's quotient: one division less
    }
}

// Asks for the columns [j0, j0 + len) of row rows[k + MEM_AHEAD_ROWS] of w, m and v (entries of
// `size` bytes), MEM_AHEAD_ROWS rows before their step reads them.
static void rows_ahead(
    void *w, void *m, void *v, size_t size, const uint16_t *rows, int k, int n, size_t H, size_t j0, size_t len) {
    if (k + MEM_AHEAD_ROWS >= n) return;
    const size_t ahead = ((size_t)rows[k + MEM_AHEAD_ROWS] * H + j0) * size;
    mem_prefetch_w((char *)w + ahead, size * len);
    mem_prefetch_w((char *)m + ahead, size * len);
    mem_prefetch_w((char *)v + ahead, size * len);
}


void adam_update_f32(float *restrict w, float *restrict m, float *restrict v, const float *restrict g, size_t n,
    double coef, const AdamStep *s) {
    // the constants rounded once, as torch's float32 step has them (1 - beta taken in float64)
    const float beta1 = (float)s->beta1, beta2 = (float)s->beta2, one_b1 = (float)(1.0 - s->beta1),
                one_b2 = (float)(1.0 - s->beta2), eps = (float)s->eps, step = (float)s->step,
                inv_bc2 = (float)s->inv_bc2, c = (float)coef;
    for (size_t k = 0; k < n; k++) {
        const float gk = g[k] * c;
        const float mk = flushf(beta1 * m[k] + one_b1 * gk);
        const float vk = flushf(beta2 * v[k] + one_b2 * (gk * gk));
        m[k] = mk;
        v[k] = vk;
        w[k] -= step * (mk / (sqrtf(vk) * inv_bc2 + eps));
    }
}

// The lazy first layer's step over rows (adam.h), for float64 and for float32: one body, its
// entry type T (of the weights, the moments and the gradient) and its step UPDATE.
#define ADAM_ROWS(NAME, T, UPDATE) \
    void NAME(T *w, T *m, T *v, const T *g, const uint16_t *rows, int n, size_t H, size_t j0, size_t j1, double coef, \
        const AdamStep *s) { \
        const size_t len = j1 - j0; \
        for (int k = 0; k < n; k++) { \
            rows_ahead(w, m, v, sizeof(*w), rows, k, n, H, j0, len); \
            const size_t off = (size_t)rows[k] * H + j0; \
            UPDATE(w + off, m + off, v + off, g + (size_t)k * H + j0, len, coef, s); \
        } \
    }
ADAM_ROWS(adam_rows, double, adam_update)
ADAM_ROWS(adam_rows_f32, float, adam_update_f32)
