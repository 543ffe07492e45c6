// adam.c: one step of Adam on a range (adam.h).
#include "adam.h"

#include <math.h>

#include "../util/mem.h"

AdamStep adam_step(double lr, double beta1, double beta2, double eps, int64_t t) {
    return (AdamStep){ beta1, beta2, eps, lr / (1.0 - pow(beta1, (double)t)), 1.0 / sqrt(1.0 - pow(beta2, (double)t)) };
}

void adam_update(double *restrict w, double *restrict m, double *restrict v, const double *restrict g, size_t n,
    double coef, const AdamStep *s) {
    const double beta1 = s->beta1, beta2 = s->beta2, eps = s->eps, step = s->step, inv_bc2 = s->inv_bc2;
    for (size_t k = 0; k < n; k++) {
        const double gk = g[k] * coef; // (a product by 1.0 is exact: no clipping, no change)
        m[k] = beta1 * m[k] + (1.0 - beta1) * gk;
        v[k] = beta2 * v[k] + (1.0 - beta2) * (gk * gk);
        w[k] -= step * (m[k] / (sqrt(v[k]) * inv_bc2 + eps)); // a product, not torch's quotient: one division less
    }
}

void adam_rows(double *w, double *m, double *v, const double *g, const uint16_t *rows, int n, size_t H, size_t j0,
    size_t j1, double coef, const AdamStep *s) {
    const size_t len = j1 - j0, bytes = sizeof(double) * len;
    for (int k = 0; k < n; k++) {
        if (k + MEM_AHEAD_ROWS < n) {
            const size_t ahead = (size_t)rows[k + MEM_AHEAD_ROWS] * H + j0;
            mem_prefetch_w(w + ahead, bytes);
            mem_prefetch_w(m + ahead, bytes);
            mem_prefetch_w(v + ahead, bytes);
        }
        const size_t off = (size_t)rows[k] * H + j0;
        adam_update(w + off, m + off, v + off, g + (size_t)k * H + j0, len, coef, s);
    }
}

void adam_update_f32(float *restrict w, float *restrict m, float *restrict v, const double *restrict g, size_t n,
    double coef, const AdamStep *s) {
    const double beta1 = s->beta1, beta2 = s->beta2, eps = s->eps, step = s->step, inv_bc2 = s->inv_bc2;
    for (size_t k = 0; k < n; k++) {
        const double gk = g[k] * coef;
        const double mk = beta1 * (double)m[k] + (1.0 - beta1) * gk;
        const double vk = beta2 * (double)v[k] + (1.0 - beta2) * (gk * gk);
        m[k] = (float)mk;
        v[k] = (float)vk;
        w[k] = (float)((double)w[k] - step * (mk / (sqrt(vk) * inv_bc2 + eps)));
    }
}

void adam_rows_f32(float *w, float *m, float *v, const double *g, const uint16_t *rows, int n, size_t H, size_t j0,
    size_t j1, double coef, const AdamStep *s) {
    const size_t len = j1 - j0, bytes = sizeof(float) * len;
    for (int k = 0; k < n; k++) {
        if (k + MEM_AHEAD_ROWS < n) {
            const size_t ahead = (size_t)rows[k + MEM_AHEAD_ROWS] * H + j0;
            mem_prefetch_w(w + ahead, bytes);
            mem_prefetch_w(m + ahead, bytes);
            mem_prefetch_w(v + ahead, bytes);
        }
        const size_t off = (size_t)rows[k] * H + j0;
        adam_update_f32(w + off, m + off, v + off, g + (size_t)k * H + j0, len, coef, s);
    }
}
