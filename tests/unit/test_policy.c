// test_policy.c: the network, the returns and the exact gradient sum.
#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"
#include "rl/rollout.h"
#include "train/gradsum.h"
#include "train/checkpoint.h"
#include "train/train.h"
#include "util/rng.h"

// ----------------------------------------------------------------------------
// returns

Test(policy, discount_resets_at_every_point) {
    // two points: -1 at t=2 and +1 at t=5; the running sum restarts after each
    double r[6] = {0, 0, -1, 0, 0, 1}, out[6];
    discount_rewards(r, out, 6, 0.5);
    double want[6] = {-0.25, -0.5, -1, 0.25, 0.5, 1};
    for (int t = 0; t < 6; t++) cr_expect_float_eq(out[t], want[t], 1e-15, "t=%d: %g vs %g", t, out[t], want[t]);
}

Test(policy, discount_trailing_steps_after_last_point_are_zero) {
    double r[4] = {1, 0, 0, 0}, out[4];
    discount_rewards(r, out, 4, 0.99);
    cr_expect_eq(out[0], 1.0);
    for (int t = 1; t < 4; t++) cr_expect_eq(out[t], 0.0);
}

Test(policy, standardize_mean_zero_unit_std) {
    double x[5] = {1, 2, 3, 4, 10};
    standardize(x, 5);
    double m = 0, v = 0;
    for (int t = 0; t < 5; t++) m += x[t];
    for (int t = 0; t < 5; t++) v += x[t] * x[t];
    cr_expect_float_eq(m / 5, 0.0, 1e-15);
    cr_expect_float_eq(v / 5, 1.0, 1e-14);   // population std, as np.std
}

Test(policy, standardize_constant_gives_zeros_not_nan) {
    // all returns equal (e.g. an episode cut by the step cap before any point): the seed
    // divides 0 by 0; we leave the centred returns, all zero
    double z[4] = {0, 0, 0, 0};
    standardize(z, 4);
    for (int t = 0; t < 4; t++) cr_expect(z[t] == 0.0);
    double x[3] = {-0.7, -0.7, -0.7};             // mean() rounds: spread ~1e-17, not a signal
    standardize(x, 3);
    for (int t = 0; t < 3; t++) cr_expect(fabs(x[t]) < 1e-15 && !isnan(x[t]), "x[%d] = %g", t, x[t]);
    double one[1] = {5};
    standardize(one, 1);
    cr_expect(one[0] == 0.0);
    standardize(one, 0);   // nothing to do, no division by zero
}

// ----------------------------------------------------------------------------
// forward and backward against finite differences on a small network

#define TD 24
#define TH 7
#define TT 9

typedef struct { uint16_t idx[TT][TD]; int8_t sign[TT][TD]; int nnz[TT]; double adv[TT]; int y[TT]; } Episode;

static void make_episode(Episode *e, Rng *rng) {
    for (int t = 0; t < TT; t++) {
        e->nnz[t] = 0;
        for (int i = 0; i < TD; i++)
            if (rng_uniform(rng) < 0.3) { e->idx[t][e->nnz[t]] = (uint16_t)i; e->sign[t][e->nnz[t]++] = rng_uniform(rng) < 0.5 ? -1 : 1; }
        e->adv[t] = rng_normal(rng);
        e->y[t] = rng_uniform(rng) < 0.5;
    }
}

// J = sum_t adv_t * log pi(a_t | x_t): its gradient is what policy_backward computes
static double objective(const Policy *p, const Episode *e) {
    double h[TH], J = 0;
    for (int t = 0; t < TT; t++) {
        double pr = policy_forward(p, (SparseX){e->nnz[t], e->idx[t], e->sign[t]}, h);
        J += e->adv[t] * (e->y[t] ? log(pr) : log(1 - pr));
    }
    return J;
}

Test(policy, backward_matches_finite_differences) {
    Policy p;
    cr_assert_eq(policy_alloc(&p, TD, TH), 0);
    policy_init_random(&p, 42);
    for (size_t k = 0; k < p.n; k++) p.w[k] *= 3;    // sizeable activations, both ReLU sides
    Rng rng;
    rng_seed(&rng, 7);
    Episode e;
    make_episode(&e, &rng);
    double *g = calloc(p.n, sizeof(double)), dh[TH], h[TH];
    for (int t = 0; t < TT; t++) {
        SparseX x = {e.nnz[t], e.idx[t], e.sign[t]};
        double pr = policy_forward(&p, x, h);
        policy_backward_step(&p, x, h, e.adv[t] * (e.y[t] - pr), g, dh, NULL);
    }
    double worst = 0, gmax = 0;
    for (size_t k = 0; k < p.n; k++) gmax = fmax(gmax, fabs(g[k]));
    for (size_t k = 0; k < p.n; k++) {
        double w0 = p.w[k], eps = 1e-6;
        p.w[k] = w0 + eps; double jp = objective(&p, &e);
        p.w[k] = w0 - eps; double jm = objective(&p, &e);
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
    cr_assert_eq(policy_alloc(&p, TD, TH), 0);
    policy_init_random(&p, 3);
    Rng rng;
    rng_seed(&rng, 8);
    Episode e;
    make_episode(&e, &rng);
    double *a = calloc(p.n, sizeof(double)), *b = malloc(p.n * sizeof(double)), dh[TH], h[TH];
    for (size_t k = 0; k < p.n; k++) b[k] = rng_normal(&rng);   // stale values
    memset(b + (size_t)TD * TH, 0, TH * sizeof(double));         // W2 is zeroed as before
    uint8_t seen[TD] = {0}, fresh[TD];
    int fresh_rows = 0;
    for (int t = 0; t < TT; t++) {
        SparseX x = {e.nnz[t], e.idx[t], e.sign[t]};
        for (int k = 0; k < x.nnz; k++) { fresh[k] = !seen[x.idx[k]]; seen[x.idx[k]] = 1; fresh_rows += fresh[k]; }
        double pr = policy_forward(&p, x, h);
        policy_backward_step(&p, x, h, e.adv[t] * (e.y[t] - pr), a, dh, NULL);
        policy_backward_step(&p, x, h, e.adv[t] * (e.y[t] - pr), b, dh, fresh);
    }
    cr_assert_gt(fresh_rows, 0);
    for (int i = 0; i <= TD; i++) {
        if (i < TD && !seen[i]) continue;
        for (int j = 0; j < TH; j++)
            cr_expect(a[i * TH + j] == b[i * TH + j], "row %d entry %d: %g, from zero %g", i, j, b[i * TH + j], a[i * TH + j]);
    }
    free(a); free(b);
    policy_free(&p);
}

Test(policy, first_step_of_an_episode_is_a_coin_flip) {
    Policy p;
    cr_assert_eq(policy_alloc(&p, TD, TH), 0);
    policy_init_random(&p, 1);
    double h[TH];
    cr_expect_eq(policy_forward(&p, (SparseX){0, NULL, NULL}, h), 0.5);   // x = zeros
    policy_free(&p);
}

Test(policy, rmsprop_is_the_seeds_formula) {
    double w[2] = {0.5, -0.25}, cache[2] = {0, 0.04}, g[2] = {2.0, -0.1};
    rmsprop_update(w, cache, g, 2, 1e-4, 0.99);
    double c0 = 0.01 * 4.0, c1 = 0.99 * 0.04 + 0.01 * 0.01;
    cr_expect_eq(cache[0], 0.99 * 0.0 + (1 - 0.99) * (2.0 * 2.0));
    cr_expect_float_eq(cache[1], c1, 1e-18);
    cr_expect_float_eq(w[0], 0.5 + 1e-4 * 2.0 / (sqrt(c0) + 1e-5), 1e-16);
    cr_expect_float_eq(w[1], -0.25 + 1e-4 * -0.1 / (sqrt(c1) + 1e-5), 1e-16);
}

// The learner updates only the rows a batch touched and owes the others their cache decays
// (train_apply_update, train_state_settle): after many batches of scattered rows, weights and
// cache must be the dense update's, bit for bit, and a checkpoint refuses an unsettled cache.
Test(policy, deferred_update_is_the_dense_update_bit_for_bit) {
    TrainConfig c;
    train_config_default(&c);
    c.hidden = 5;
    c.lr = 1e-2;
    TrainState s;
    cr_assert_eq(train_state_init(&s, &c), 0);
    cr_assert_eq(train_state_defer(&s), 0);
    const size_t n = s.policy.n, H = 5, D = POLICY_D;
    double *w = malloc(n * sizeof(double)), *cache = calloc(n, sizeof(double)), *g = calloc(n, sizeof(double));
    double *packed = calloc(n, sizeof(double));           // as Comm.end() gives it
    memcpy(w, s.policy.w, n * sizeof(double));
    RowSet rows;
    cr_assert_eq(rowset_alloc(&rows, (int)D), 0);
    Rng rng;
    rng_seed(&rng, 11);
    for (int it = 0; it < 60; it++) {
        memset(g, 0, n * sizeof(double));
        rowset_clear(&rows);
        int touched = (int)(rng_next(&rng) % 400);         // a few rows, some touched again later
        for (int k = 0; k < touched; k++) {
            int i = (int)(rng_next(&rng) % 600);
            rowset_add(&rows, i);
            for (size_t j = 0; j < H; j++) g[i * H + j] = rng_normal(&rng) * 1e-2;
        }
        for (size_t j = 0; j < H; j++) g[D * H + j] = rng_normal(&rng);
        rmsprop_update(w, cache, g, n, c.lr, c.decay);      // the seed's dense step
        for (int k = 0; k <= rows.n; k++)
            memcpy(packed + k * H, g + (k < rows.n ? rows.list[k] : D) * H, H * sizeof(double));
        train_apply_update(&s, packed, &rows);
        s.iteration++;
        if (it == 30) {                                     // a checkpoint mid-run settles
            cr_expect(!train_state_settled(&s));
            char path[] = "/tmp/pongrl-defer-XXXXXX", err[256];
            close(mkstemp(path));
            cr_expect_eq(checkpoint_write(path, &s, 0, err, sizeof(err)), -1, "an unsettled cache was written");
            cr_expect(strstr(err, "not settled") != NULL, "%s", err);
            train_state_settle(&s);
            cr_expect(train_state_settled(&s));
            cr_expect_eq(memcmp(cache, s.cache, n * sizeof(double)), 0, "settled cache differs at 30");
            cr_expect_eq(checkpoint_write(path, &s, 0, err, sizeof(err)), 0, "%s", err);
            unlink(path);
        }
    }
    cr_expect_eq(memcmp(w, s.policy.w, n * sizeof(double)), 0, "weights differ from the dense update");
    cr_expect_neq(memcmp(cache, s.cache, n * sizeof(double)), 0, "nothing was deferred: the test tests nothing");
    train_state_settle(&s);
    cr_expect_eq(memcmp(cache, s.cache, n * sizeof(double)), 0, "settled cache differs from the dense update");
    rowset_free(&rows);
    free(w); free(cache); free(g); free(packed);
    train_state_free(&s);
}

// ----------------------------------------------------------------------------
// the exact sum

Test(gradsum, order_does_not_change_a_single_bit) {
    enum { N = 1000, E = 12 };
    static double g[E][N];
    Rng rng;
    rng_seed(&rng, 3);
    for (int e = 0; e < E; e++)
        for (int k = 0; k < N; k++) g[e][k] = rng_normal(&rng) * pow(10.0, (double)(k % 12) - 6);
    GradSum a, b;
    cr_assert_eq(gradsum_alloc(&a, N), 0);
    cr_assert_eq(gradsum_alloc(&b, N), 0);
    for (int e = 0; e < E; e++) cr_assert_eq(gradsum_add(&a, g[e], 0, N), 0);
    // another order, split across two partial sums merged afterwards (threads, ranks)
    GradSum c;
    cr_assert_eq(gradsum_alloc(&c, N), 0);
    for (int e = E - 1; e >= 0; e -= 2) gradsum_add(&b, g[e], 0, N);
    for (int e = E - 2; e >= 0; e -= 2) gradsum_add(&c, g[e], 0, N);
    gradsum_merge(&b, &c);
    double sa[N], sb[N];
    gradsum_to_double(&a, sa);
    gradsum_to_double(&b, sb);
    cr_expect_eq(memcmp(sa, sb, sizeof(sa)), 0, "sums differ by order");
    // and it is the float64 sum to within rounding
    double worst = 0;
    for (int k = 0; k < N; k++) {
        double ref = 0, mag = 0;
        for (int e = 0; e < E; e++) { ref += g[e][k]; mag += fabs(g[e][k]); }
        // float64 rounding of the reference, plus the 2^-64 resolution once per episode
        worst = fmax(worst, fabs(sa[k] - ref) / (1e-15 * mag + E * 0x1p-64));
    }
    cr_expect_lt(worst, 1.0, "worst error %g of the allowance", worst);
    gradsum_free(&a); gradsum_free(&b); gradsum_free(&c);
}

Test(gradsum, refuses_nan_and_huge) {
    GradSum s;
    cr_assert_eq(gradsum_alloc(&s, 2), 0);
    double bad[2] = {1.0, NAN}, huge[2] = {3e9, 0}, neg[2] = {-1.5, -1e-20};
    cr_expect_eq(gradsum_add(&s, bad, 0, 2), -1);
    cr_expect_eq(gradsum_add(&s, huge, 0, 2), -1);
    cr_expect_eq(gradsum_add(&s, neg, 0, 2), 0);
    double out[2];
    gradsum_to_double(&s, out);
    cr_expect_eq(out[0], -1.5);
    cr_expect_float_eq(out[1], -1e-20, 1e-19);   // below 2^-64 resolution: at most one unit off
    gradsum_free(&s);
}

// A row's first episode stores instead of adding (the pool never clears its accumulators):
// the words must be those of adding to zero, whatever the range held before.
Test(gradsum, set_is_add_to_zero) {
    enum { N = 300 };
    GradSum a, b;
    cr_assert_eq(gradsum_alloc(&a, N), 0);
    cr_assert_eq(gradsum_alloc(&b, N), 0);
    Rng rng;
    rng_seed(&rng, 9);
    double x[N], y[N];
    for (int k = 0; k < N; k++) { x[k] = rng_normal(&rng) * 1e3; y[k] = rng_normal(&rng) * 1e-9; }
    x[0] = -0.0; x[1] = 0x1p-70; x[2] = -1073741823.75;
    cr_assert_eq(gradsum_add(&b, y, 0, N), 0);                  // stale values
    cr_assert_eq(gradsum_set(&b, x, 0, N), 0);
    cr_assert_eq(gradsum_add(&a, x, 0, N), 0);                  // a was zero
    cr_expect_eq(memcmp(a.hi, b.hi, sizeof(int64_t) * N), 0, "hi words differ");
    cr_expect_eq(memcmp(a.lo, b.lo, sizeof(int64_t) * N), 0, "lo words differ");
    gradsum_copy_range(&b, &a, 0, N);                           // b = x
    cr_assert_eq(gradsum_merge_range(&a, &b, 0, N), 0);         // a = x + x
    cr_assert_eq(gradsum_add(&b, x, 0, N), 0);                  // b = x, + x
    cr_expect_eq(memcmp(a.hi, b.hi, sizeof(int64_t) * N), 0, "copy then add differs from merge");
    cr_expect_eq(memcmp(a.lo, b.lo, sizeof(int64_t) * N), 0, "copy then add differs from merge");
    x[5] = NAN;
    cr_expect_eq(gradsum_set(&b, x, 0, N), -1);
    gradsum_free(&a); gradsum_free(&b);
}

// A sum must stay below 2^31 (gradsum.h): an add or a merge past it fails instead of wrapping
// round to a wrong value (signed overflow would also be undefined behaviour).
Test(gradsum, sum_past_2_31_fails) {
    GradSum a, b;
    cr_assert_eq(gradsum_alloc(&a, 2), 0);
    cr_assert_eq(gradsum_alloc(&b, 2), 0);
    double x[2] = { 1.5e9, -1.5e9 };                       // each below 2^31 = 2.147e9
    cr_expect_eq(gradsum_add(&a, x, 0, 2), 0);
    cr_expect_eq(gradsum_add(&b, x, 0, 2), 0);
    cr_expect_eq(gradsum_merge_range(&a, &b, 0, 2), -1, "3e9 merged without a failure");
    gradsum_zero(&a);
    cr_expect_eq(gradsum_add(&a, x, 0, 2), 0);
    cr_expect_eq(gradsum_add(&a, x, 0, 2), -1, "3e9 added without a failure");
    gradsum_zero(&a);
    double y[2] = { 1e9, -1e9 };                           // 2e9: still inside
    cr_expect_eq(gradsum_add(&a, y, 0, 2), 0);
    cr_expect_eq(gradsum_add(&a, y, 0, 2), 0);
    double out[2];
    gradsum_to_double(&a, out);
    cr_expect_eq(out[0], 2e9);
    cr_expect_eq(out[1], -2e9);
    gradsum_free(&a); gradsum_free(&b);
}

// gradsum_value takes a hardware conversion where the value fits int64: the same double as
// converting the 128-bit integer, at the edges too.
Test(gradsum, value_is_one_rounding_of_the_exact_sum) {
    const int64_t his[] = { 0, 1, -1, (int64_t)1 << 30, -((int64_t)1 << 30), ((int64_t)1 << 31) - 1, -((int64_t)1 << 31),
                            ((int64_t)1 << 31), INT64_C(1) << 40, -(INT64_C(1) << 40), INT64_C(123456789012) };
    const int64_t los[] = { 0, 1, 0xffffffff, INT64_C(1) << 32, (INT64_C(1) << 44) + 12345, INT64_C(0x7fffffffffff) };
    for (size_t i = 0; i < sizeof(his) / sizeof(his[0]); i++)
        for (size_t j = 0; j < sizeof(los) / sizeof(los[0]); j++) {
            __int128 v = (__int128)his[i] * ((__int128)1 << 32) + los[j];
            double want = (double)v * 0x1p-64;
            cr_expect_eq(gradsum_value(his[i], los[j]), want, "hi %lld lo %lld", (long long)his[i], (long long)los[j]);
        }
}

// gradsum_round (the vectorised conversion: a round to odd on the top 64 bits, then the
// hardware's round to nearest) against the 128-bit integer converted once, where it claims to
// hold: ties and near-ties at every shift of the significand, both signs, both sides of
// 2^63 and of the 2^71 edge; and *far set exactly outside it.
Test(gradsum, round_to_odd_is_one_rounding_of_the_exact_value) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int checked = 0;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        // a value of up to 72 bits: a random significand of 54-60 bits placed anywhere, plus a
        // pattern at its rounding position (ties, ties +- 1 unit of 2^-64)
        int bits = 54 + (int)(x % 7), shift = (int)((x >> 8) % (uint64_t)(72 - bits));
        __int128 v = (__int128)(x >> (64 - bits)) << shift;
        if (i & 1) v += (__int128)1 << (shift ? shift - 1 : 0);
        if (i & 2) v += (i & 4) ? 1 : -1;
        if (i & 8) v = -v;
        if (i % 1000 == 0) v = (i & 16) ? ((__int128)127 << 64) + (__int128)(x | 1) : -((__int128)128 << 64);
        const int64_t h = (int64_t)(v >> 64);
        const uint64_t l = (uint64_t)v;
        uint64_t far = 0;
        const double got = gradsum_round(h, l, &far);
        cr_assert_eq(far != 0, gradsum_far(h), "h %lld", (long long)h);
        if (gradsum_far(h)) continue;
        const double want = gradsum_value128(h, l);
        cr_assert(memcmp(&got, &want, sizeof(double)) == 0, "h %lld l %llu: %a, want %a", (long long)h,
                  (unsigned long long)l, got, want);
        checked++;
    }
    cr_expect_gt(checked, 190000);
    uint64_t far = 0;          // just outside: flagged
    gradsum_round(128, 0, &far);
    cr_expect_neq(far, 0);
    far = 0;
    gradsum_round(-129, ~0ull, &far);
    cr_expect_neq(far, 0);
}

// pool_for: every part runs once, all at the same time (each waits until all have started, so
// running them one after the other would never finish), with parts = the pool's threads.
typedef struct { atomic_int started, ran[4], bad; } ForProbe;
static void for_probe(void *ctx, int part, int parts) {
    ForProbe *fp = ctx;
    if (parts != 3 || part < 0 || part >= 3) { atomic_store(&fp->bad, 1); return; }
    atomic_fetch_add(&fp->ran[part], 1);
    atomic_fetch_add(&fp->started, 1);
    for (long spin = 0; atomic_load(&fp->started) < 3 && spin < 2000000000L; spin++) {}
    if (atomic_load(&fp->started) < 3) atomic_store(&fp->bad, 2);
}

Test(pool, for_runs_each_part_once_on_its_own_thread) {
    Policy shape;
    cr_assert_eq(policy_alloc(&shape, POLICY_D, 5), 0);
    Pool *pool = pool_create(3, "ALE/Pong-v5", &shape);
    cr_assert_not_null(pool);
    cr_assert_eq(pool_threads(pool), 3);
    for (int round = 0; round < 3; round++) {            // again: the threads go back to waiting
        ForProbe fp = {0};
        pool_for(pool, for_probe, &fp);
        cr_expect_eq(atomic_load(&fp.bad), 0, "round %d", round);
        for (int k = 0; k < 3; k++) cr_expect_eq(atomic_load(&fp.ran[k]), 1, "round %d part %d", round, k);
    }
    pool_destroy(pool);
    policy_free(&shape);
}
