// policy.h: Karpathy's policy network, 6400 -> H (ReLU) -> 1 (sigmoid), float64, no biases,
// with Karpathy's initialisation, backward pass and RMSProp.
//
// The input is the difference of two binary 80x80 frames: a few dozen entries in {-1, +1}
// among 6400 zeros. It is passed sparse (indices and signs), so forward and backward cost
// O(nnz x H), not O(6400 x H).
//
// Storage: all parameters in one float64 array, W1 first, then W2. W1 is kept transposed,
// (D, H) row-major, so that the H weights of input pixel i are contiguous:
//   w1t[i*H + j] == Karpathy's W1[j, i]        W2[j] == Karpathy's W2[j]
#ifndef PONGRL_POLICY_H
#define PONGRL_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "../../rl/agent.h"

#define POLICY_H_DEFAULT 200  // Karpathy's H
#define RMSPROP_EPS      1e-5 // Karpathy's 1e-5 in w += lr*g/(sqrt(cache)+1e-5)

typedef struct {
    int D, H;
    size_t n;  // D*H + H
    double *w; // (n,)  w[0 .. D*H) = W1 transposed (D, H); w[D*H .. n) = W2 (H,)
} Policy;

int policy_alloc(Policy *p, int D, int H); // 0 or -1 (out of memory); weights zero
void policy_free(Policy *p);
// W1 = randn(H, D) / sqrt(D), W2 = randn(H) / sqrt(H), drawn in Karpathy's element order.
void policy_init_random(Policy *p, uint64_t seed);
static inline double *policy_w1t(const Policy *p) { return p->w; }
static inline double *policy_w2(const Policy *p) { return p->w + (size_t)p->D * p->H; }

// h: (H,) hidden activations after ReLU; returns p = sigmoid(W2 . h), the probability of UP.
double policy_forward(const Policy *p, SparseX x, double *h);

// Backward pass of one step, accumulated into a dense gradient g of the policy's shape:
//   g_W2 += h * dlogp;  dh = dlogp * W2 masked by h > 0;  g_W1[:, idx] += sign * dh
// dh: (H,) scratch. dlogp is the advantage-modulated (y - p) of that step. fresh: NULL, or
// (x.nnz,) with 1 where g's row idx[k] holds nothing yet: that row is written (sign * dh)
// instead of added to, so it need not be zeroed first (0 + v is v, up to the sign of a zero).
void policy_backward_step(
    const Policy *p, SparseX x, const double *h, double dlogp, double *g, double *dh, const uint8_t *fresh);

// RMSProp exactly as the seed: cache = decay*cache + (1-decay)*g^2; w += lr*g/(sqrt(cache)+1e-5)
// (gradient ascent on the raw batch sum; the cache starts at zero).
void rmsprop_update(double *w, double *cache, const double *g, size_t n, double lr, double decay);

// The same update with g = 0, applied `times` times: what rmsprop_update does to entries whose
// gradient is zero (the cache decays; w + 0 leaves w's bits alone, as w is never -0.0). A W1 row no episode of a batch touched has a
// zero gradient, so the learner may defer those steps and apply them together when the row is
// touched again (or before the cache is saved): the bits are those of the dense update.
void rmsprop_decay(double *cache, size_t n, int64_t times, double decay);

#endif
