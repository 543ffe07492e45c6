// test_policy.c: the network, the returns and RMSProp (the exact sum: test_gradsum.c; the
// learner's deferred update: test_update.c; the worker pool: test_pool.c).
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo/pg/policy.h"
#include "algo/pg/rollout.h"
#include "util/rng.h"

// ----------------------------------------------------------------------------
// returns

Test(policy, discount_resets_at_every_point) {
    // two points: -1 at t=2 and +1 at t=5; the running sum restarts after each
    double r[6] = { 0, 0, -1, 0, 0, 1 }, out[6];
    discount_rewards(r, out, 6, 0.5);
    double want[6] = { -0.25, -0.5, -1, 0.25, 0.5, 1 };
    for (int t = 0; t < 6; t++) cr_expect_float_eq(out[t], want[t], 1e-15, "t=%d: %g vs %g", t, out[t], want[t]);
}

Test(policy, discount_trailing_steps_after_last_point_are_zero) {
    double r[4] = { 1, 0, 0, 0 }, out[4];
    discount_rewards(r, out, 4, 0.99);
    cr_expect_eq(out[0], 1.0);
    for (int t = 1; t < 4; t++) cr_expect_eq(out[t], 0.0);
}

Test(policy, standardize_mean_zero_unit_std) {
    double x[5] = { 1, 2, 3, 4, 10 };
    standardize(x, 5);
    double m = 0, v = 0;
    for (int t = 0; t < 5; t++) m += x[t];
    for (int t = 0; t < 5; t++) v += x[t] * x[t];
    cr_expect_float_eq(m / 5, 0.0, 1e-15);
    cr_expect_float_eq(v / 5, 1.0, 1e-14); // population std, as np.std
}

Test(policy, standardize_constant_gives_zeros_not_nan) {
    // all returns equal (e.g. an episode cut by the step cap before any point): the seed
    // divides 0 by 0; we leave the centred returns, all zero
    double z[4] = { 0, 0, 0, 0 };
    standardize(z, 4);
    for (int t = 0; t < 4; t++) cr_expect(z[t] == 0.0);
    double x[3] = { -0.7, -0.7, -0.7 }; // mean() rounds: spread ~1e-17, not a signal
    standardize(x, 3);
    for (int t = 0; t < 3; t++) cr_expect(fabs(x[t]) < 1e-15 && !isnan(x[t]), "x[%d] = %g", t, x[t]);
    double one[1] = { 5 };
    standardize(one, 1);
    cr_expect(one[0] == 0.0);
    standardize(one, 0); // nothing to do, no division by zero
}

// ----------------------------------------------------------------------------
// forward and backward against finite differences on a small network

#define TD 24
#define TH 7
#define TT 9

typedef struct {
    uint16_t idx[TT][TD];
    int8_t sign[TT][TD];
    int nnz[TT];
    double adv[TT];
    int y[TT];
} Episode;

static void make_episode(Episode *e, Rng *rng) {
    for (int t = 0; t < TT; t++) {
        e->nnz[t] = 0;
        for (int i = 0; i < TD; i++)
            if (rng_uniform(rng) < 0.3) {
                e->idx[t][e->nnz[t]] = (uint16_t)i;
                e->sign[t][e->nnz[t]++] = rng_uniform(rng) < 0.5 ? -1 : 1;
            }
        e->adv[t] = rng_normal(rng);
        e->y[t] = rng_uniform(rng) < 0.5;
    }
}

// J = sum_t adv_t * log pi(a_t | x_t): its gradient is what policy_backward_step sums, step by step
static double objective(const Policy *p, const Episode *e) {
    double h[TH], J = 0;
    for (int t = 0; t < TT; t++) {
        double pr = policy_forward(p, (SparseX){ e->nnz[t], e->idx[t], e->sign[t] }, h);
        J += e->adv[t] * (e->y[t] ? log(pr) : log(1 - pr));
    }
    return J;
}

// A TD-TH-1 network with seeded random weights.
static void make_policy(Policy *p, uint64_t seed) {
    cr_assert_eq(policy_alloc(p, TD, TH), 0);
    policy_init_random(p, seed);
}

// Step t of the episode: the forward pass, then its gradient added to g (fresh: NULL, or which
// of the step's rows are written instead of added to).
static void backward_at(const Policy *p, const Episode *e, int t, double *g, const uint8_t *fresh) {
    double h[TH], dh[TH];
    SparseX x = { e->nnz[t], e->idx[t], e->sign[t] };
    double pr = policy_forward(p, x, h);
    policy_backward_step(p, x, h, e->adv[t] * (e->y[t] - pr), g, dh, fresh);
}

Test(policy, backward_matches_finite_differences) {
    Policy p;
    make_policy(&p, 42);
    for (size_t k = 0; k < p.n; k++) p.w[k] *= 3; // sizeable activations, both ReLU sides
    Rng rng;
    rng_seed(&rng, 7);
    Episode e;
    make_episode(&e, &rng);
    double *g = calloc(p.n, sizeof(double));
    for (int t = 0; t < TT; t++) backward_at(&p, &e, t, g, NULL);
    double worst = 0, gmax = 0;
    for (size_t k = 0; k < p.n; k++) gmax = fmax(gmax, fabs(g[k]));
    for (size_t k = 0; k < p.n; k++) {
        double w0 = p.w[k], eps = 1e-6;
        p.w[k] = w0 + eps;
        double jp = objective(&p, &e);
        p.w[k] = w0 - eps;
        double jm = objective(&p, &e);
        p.w[k] = w0;
        double num = (jp - jm) / (2 * eps);
        double rel = fabs(num - g[k]) / gmax;
        if (rel > worst) worst = rel;
    }
    cr_log_info("finite differences: worst error %.3e of the largest gradient, %zu parameters", worst, p.n);
    cr_expect_lt(worst, 1e-6, "worst relative error %g", worst);
    free(g);
    policy_free(&p);
}

// A row's first step writes it (fresh) instead of adding to it: on stale memory the gradient
// must equal the one accumulated from zero (== on every entry: only a zero's sign may differ,
// which the fixed-point sum does not see).
Test(policy, fresh_rows_equal_rows_added_from_zero) {
    Policy p;
    make_policy(&p, 3);
    Rng rng;
    rng_seed(&rng, 8);
    Episode e;
    make_episode(&e, &rng);
    double *a = calloc(p.n, sizeof(double)), *b = malloc(p.n * sizeof(double));
    for (size_t k = 0; k < p.n; k++) b[k] = rng_normal(&rng); // stale values
    memset(b + (size_t)TD * TH, 0, TH * sizeof(double));      // W2 is zeroed as before
    uint8_t seen[TD] = { 0 }, fresh[TD];
    int fresh_rows = 0;
    for (int t = 0; t < TT; t++) {
        SparseX x = { e.nnz[t], e.idx[t], e.sign[t] };
        for (int k = 0; k < x.nnz; k++) {
            fresh[k] = !seen[x.idx[k]];
            seen[x.idx[k]] = 1;
            fresh_rows += fresh[k];
        }
        backward_at(&p, &e, t, a, NULL);
        backward_at(&p, &e, t, b, fresh);
    }
    cr_assert_gt(fresh_rows, 0);
    for (int i = 0; i <= TD; i++) {
        if (i < TD && !seen[i]) continue;
        for (int j = 0; j < TH; j++)
            cr_expect(a[i * TH + j] == b[i * TH + j], "row %d entry %d: %g, from zero %g", i, j, b[i * TH + j],
                a[i * TH + j]);
    }
    free(a);
    free(b);
    policy_free(&p);
}

Test(policy, first_step_of_an_episode_is_a_coin_flip) {
    Policy p;
    make_policy(&p, 1);
    double h[TH];
    cr_expect_eq(policy_forward(&p, (SparseX){ 0, NULL, NULL }, h), 0.5); // x = zeros
    policy_free(&p);
}

Test(policy, rmsprop_is_the_seeds_formula) {
    double w[2] = { 0.5, -0.25 }, cache[2] = { 0, 0.04 }, g[2] = { 2.0, -0.1 };
    rmsprop_update(w, cache, g, 2, 1e-4, 0.99);
    double c0 = 0.01 * 4.0, c1 = 0.99 * 0.04 + 0.01 * 0.01;
    cr_expect_eq(cache[0], 0.99 * 0.0 + (1 - 0.99) * (2.0 * 2.0));
    cr_expect_float_eq(cache[1], c1, 1e-18);
    cr_expect_float_eq(w[0], 0.5 + 1e-4 * 2.0 / (sqrt(c0) + 1e-5), 1e-16);
    cr_expect_float_eq(w[1], -0.25 + 1e-4 * -0.1 / (sqrt(c1) + 1e-5), 1e-16);
}
