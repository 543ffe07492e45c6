// test_gradsum.c: the exact fixed-point gradient sum (train/gradsum.h): order-free to the bit,
// overflow refused, one rounding to float64.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/gradsum.h"
#include "util/rng.h"

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
        for (int e = 0; e < E; e++) {
            ref += g[e][k];
            mag += fabs(g[e][k]);
        }
        // float64 rounding of the reference, plus the 2^-64 resolution once per episode
        worst = fmax(worst, fabs(sa[k] - ref) / (1e-15 * mag + E * 0x1p-64));
    }
    cr_expect_lt(worst, 1.0, "worst error %g of the allowance", worst);
    gradsum_free(&a);
    gradsum_free(&b);
    gradsum_free(&c);
}

Test(gradsum, refuses_nan_and_huge) {
    GradSum s;
    cr_assert_eq(gradsum_alloc(&s, 2), 0);
    double bad[2] = { 1.0, NAN }, huge[2] = { 3e9, 0 }, neg[2] = { -1.5, -1e-20 };
    cr_expect_eq(gradsum_add(&s, bad, 0, 2), -1);
    cr_expect_eq(gradsum_add(&s, huge, 0, 2), -1);
    cr_expect_eq(gradsum_add(&s, neg, 0, 2), 0);
    double out[2];
    gradsum_to_double(&s, out);
    cr_expect_eq(out[0], -1.5);
    cr_expect_float_eq(out[1], -1e-20, 1e-19); // below 2^-64 resolution: at most one unit off
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
    for (int k = 0; k < N; k++) {
        x[k] = rng_normal(&rng) * 1e3;
        y[k] = rng_normal(&rng) * 1e-9;
    }
    x[0] = -0.0;
    x[1] = 0x1p-70;
    x[2] = -1073741823.75;
    cr_assert_eq(gradsum_add(&b, y, 0, N), 0); // stale values
    cr_assert_eq(gradsum_set(&b, x, 0, N), 0);
    cr_assert_eq(gradsum_add(&a, x, 0, N), 0); // a was zero
    cr_expect_eq(memcmp(a.hi, b.hi, sizeof(int64_t) * N), 0, "hi words differ");
    cr_expect_eq(memcmp(a.lo, b.lo, sizeof(int64_t) * N), 0, "lo words differ");
    gradsum_copy_range(&b, &a, 0, N);                   // b = x
    cr_assert_eq(gradsum_merge_range(&a, &b, 0, N), 0); // a = x + x
    cr_assert_eq(gradsum_add(&b, x, 0, N), 0);          // b = x, + x
    cr_expect_eq(memcmp(a.hi, b.hi, sizeof(int64_t) * N), 0, "copy then add differs from merge");
    cr_expect_eq(memcmp(a.lo, b.lo, sizeof(int64_t) * N), 0, "copy then add differs from merge");
    x[5] = NAN;
    cr_expect_eq(gradsum_set(&b, x, 0, N), -1);
    gradsum_free(&a);
    gradsum_free(&b);
}

// A sum must stay below 2^31 (gradsum.h): an add or a merge past it fails instead of wrapping
// round to a wrong value (signed overflow would also be undefined behaviour).
Test(gradsum, sum_past_2_31_fails) {
    GradSum a, b;
    cr_assert_eq(gradsum_alloc(&a, 2), 0);
    cr_assert_eq(gradsum_alloc(&b, 2), 0);
    double x[2] = { 1.5e9, -1.5e9 }; // each below 2^31 = 2.147e9
    cr_expect_eq(gradsum_add(&a, x, 0, 2), 0);
    cr_expect_eq(gradsum_add(&b, x, 0, 2), 0);
    cr_expect_eq(gradsum_merge_range(&a, &b, 0, 2), -1, "3e9 merged without a failure");
    gradsum_zero(&a);
    cr_expect_eq(gradsum_add(&a, x, 0, 2), 0);
    cr_expect_eq(gradsum_add(&a, x, 0, 2), -1, "3e9 added without a failure");
    gradsum_zero(&a);
    double y[2] = { 1e9, -1e9 }; // 2e9: still inside
    cr_expect_eq(gradsum_add(&a, y, 0, 2), 0);
    cr_expect_eq(gradsum_add(&a, y, 0, 2), 0);
    double out[2];
    gradsum_to_double(&a, out);
    cr_expect_eq(out[0], 2e9);
    cr_expect_eq(out[1], -2e9);
    gradsum_free(&a);
    gradsum_free(&b);
}

// gradsum_value takes a hardware conversion where the value fits int64: the same double as
// converting the 128-bit integer, at the edges too.
Test(gradsum, value_is_one_rounding_of_the_exact_sum) {
    const int64_t his[] = { 0, 1, -1, (int64_t)1 << 30, -((int64_t)1 << 30), ((int64_t)1 << 31) - 1,
        -((int64_t)1 << 31), ((int64_t)1 << 31), INT64_C(1) << 40, -(INT64_C(1) << 40), INT64_C(123456789012) };
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
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
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
    uint64_t far = 0; // just outside: flagged
    gradsum_round(128, 0, &far);
    cr_expect_neq(far, 0);
    far = 0;
    gradsum_round(-129, ~0ull, &far);
    cr_expect_neq(far, 0);
}

// The conversions without a conversion instruction (AVX2 has none for int64): the same results
// as the hardware's, at the edges and on random values.
Test(gradsum, int64_conversions_are_the_hardwares) {
    const int64_t edges[] = { 0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1, (INT64_C(1) << 53) + 1,
        -((INT64_C(1) << 53) + 1), (INT64_C(1) << 53) + 3, (INT64_C(1) << 62) + 1023, (INT64_C(1) << 62) + 1024,
        (INT64_C(1) << 62) + 1025, INT64_C(0xffffffff), INT64_C(0x100000000) };
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
        const double got = gradsum_i64_to_double(edges[i]), want = (double)edges[i];
        cr_assert(memcmp(&got, &want, 8) == 0, "%lld: %a, want %a", (long long)edges[i], got, want);
    }
    uint64_t x = 0x243f6a8885a308d3ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const int64_t v = (int64_t)(x >> (x % 64)); // every magnitude, both signs
        const double got = gradsum_i64_to_double(v), want = (double)v;
        cr_assert(memcmp(&got, &want, 8) == 0, "%lld: %a, want %a", (long long)v, got, want);
        const double f = (double)((int64_t)(x >> 13) - (INT64_C(1) << 50)); // integral, |f| < 2^51
        cr_assert_eq(gradsum_small_to_i64(f), (int64_t)f, "%a", f);
    }
    cr_expect_eq(gradsum_small_to_i64(-0x1p51 + 1), -(INT64_C(1) << 51) + 1);
    cr_expect_eq(gradsum_small_to_i64(0x1p51 - 1), (INT64_C(1) << 51) - 1);
}

// gradsum_add takes a faster path where every entry is below 2^19 and the hardware's
// conversion elsewhere: the words are the same either way. Here the same entries go through
// both (alone: the fast path; beside one large entry: the other).
Test(gradsum, both_conversion_paths_give_the_same_words) {
    enum { N = 513 };
    double x[N];
    Rng rng;
    rng_seed(&rng, 11);
    for (int k = 0; k < N - 1; k++) x[k] = rng_normal(&rng) * pow(10.0, (double)(k % 14) - 9); // 1e-9 to 1e4
    x[0] = -0.0;
    x[1] = -0x1p-70;
    x[2] = 0x1p19 - 0x1p-33;
    x[3] = -0x1p19 + 0x1p-33;
    x[4] = -3e-20;
    GradSum a, b;
    cr_assert_eq(gradsum_alloc(&a, N), 0);
    cr_assert_eq(gradsum_alloc(&b, N), 0);
    x[N - 1] = 0.0;
    cr_assert_eq(gradsum_add(&a, x, 0, N), 0);
    cr_assert_eq(gradsum_add(&a, x, 0, N), 0);
    x[N - 1] = 1e6; // past 2^19: the whole range takes the other path
    cr_assert_eq(gradsum_add(&b, x, 0, N), 0);
    cr_assert_eq(gradsum_add(&b, x, 0, N), 0);
    cr_expect_eq(memcmp(a.hi, b.hi, sizeof(int64_t) * (N - 1)), 0, "hi words differ between the paths");
    cr_expect_eq(memcmp(a.lo, b.lo, sizeof(int64_t) * (N - 1)), 0, "lo words differ between the paths");
    gradsum_free(&a);
    gradsum_free(&b);
}
