// policy.c: forward, backward and RMSProp of the 6400-H-1 policy, exploiting sparse input.
#include "policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/rng.h"
#include "../../util/mem.h"

int policy_alloc(Policy *p, int D, int H) {
    p->D = D;
    p->H = H;
    p->n = (size_t)D * H + H;
    p->w = big_calloc(p->n, sizeof(double));
    return p->w ? 0 : -1;
}

void policy_free(Policy *p) {
    free(p->w);
    p->w = NULL;
}

void policy_init_random(Policy *p, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    double *w1t = policy_w1t(p), *w2 = policy_w2(p);
    double s1 = sqrt((double)p->D), s2 = sqrt((double)p->H);
    // the seed draws W1 row by row (j over H, i over D), then W2
    for (int j = 0; j < p->H; j++)
        for (int i = 0; i < p->D; i++) w1t[(size_t)i * p->H + j] = rng_normal(&rng) / s1;
    for (int j = 0; j < p->H; j++) w2[j] = rng_normal(&rng) / s2;
}

// ----------------------------------------------------------------------------
// the inner loops: one row of H, contiguous, vectorised (restrict: no aliasing to check)

static void row_add(double *restrict y, const double *restrict x, int n) {
    for (int j = 0; j < n; j++) y[j] += x[j];
}

static void row_sub(double *restrict y, const double *restrict x, int n) {
    for (int j = 0; j < n; j++) y[j] -= x[j];
}

static void row_set(double *restrict y, const double *restrict x, int n, double sign) {
    for (int j = 0; j < n; j++) y[j] = sign * x[j];
}

// ----------------------------------------------------------------------------
// forward: h = relu(W1 x), p = sigmoid(W2 . h)

double policy_forward(const Policy *p, SparseX x, double *h) {
    const int H = p->H;
    const double *w1t = policy_w1t(p), *w2 = policy_w2(p);
    memset(h, 0, sizeof(double) * H);
    for (int k = 0; k < x.nnz; k++) { // x: entries in {-1, +1}
        const double *row = w1t + (size_t)x.idx[k] * H;
        if (x.sign[k] > 0)
            row_add(h, row, H);
        else
            row_sub(h, row, H);
    }
    double logp = 0.0;
    for (int j = 0; j < H; j++) {
        if (h[j] < 0.0) h[j] = 0.0; // ReLU, as h[h < 0] = 0
        logp += w2[j] * h[j];
    }
    return 1.0 / (1.0 + exp(-logp));
}

// ----------------------------------------------------------------------------
// backward: per step, so an episode never needs its (T, 6400) input matrix

void policy_backward_step(
    const Policy *p, SparseX x, const double *h, double dlogp, double *g, double *dh, const uint8_t *fresh) {
    const int H = p->H;
    const double *w2 = policy_w2(p);
    double *g1t = g, *g2 = g + (size_t)p->D * H;
    for (int j = 0; j < H; j++) {
        g2[j] += h[j] * dlogp;                     // dW2 = eph.T @ epdlogp
        dh[j] = h[j] <= 0.0 ? 0.0 : dlogp * w2[j]; // dh = outer(epdlogp, W2); dh[eph <= 0] = 0
    }
    for (int k = 0; k < x.nnz; k++) { // dW1 = dh.T @ epx, one sparse row at a time
        double *row = g1t + (size_t)x.idx[k] * H;
        if (fresh && fresh[k])
            row_set(row, dh, H, x.sign[k] > 0 ? 1.0 : -1.0);
        else if (x.sign[k] > 0)
            row_add(row, dh, H);
        else
            row_sub(row, dh, H);
    }
}

// ----------------------------------------------------------------------------
// RMSProp

void rmsprop_update(double *w, double *cache, const double *g, size_t n, double lr, double decay) {
    for (size_t k = 0; k < n; k++) {
        cache[k] = decay * cache[k] + (1.0 - decay) * (g[k] * g[k]);
        w[k] += lr * g[k] / (sqrt(cache[k]) + RMSPROP_EPS);
    }
}

void rmsprop_decay(double *cache, size_t n, int64_t times, double decay) {
    const double zero = 0.0; // the term (1 - decay) * g^2 of a zero gradient, as above
    // steps outside, entries inside: independent entries keep the vector units busy (the other
    // way round, each entry is a chain of dependent multiplies)
    for (int64_t t = 0; t < times; t++)
        for (size_t k = 0; k < n; k++) cache[k] = decay * cache[k] + (1.0 - decay) * (zero * zero);
}
