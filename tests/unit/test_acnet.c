// test_acnet.c: the forward pass (acnet_forward) gives the bits of the plain sum it stands for,
// whatever H: each hidden unit the input's float32 rows added or subtracted in the input's order
// in float32, then b1 in float64, then the ReLU; each head its bias plus its dot product summed
// in order. The widths take every path: 128 columns a chunk (with AVX-512), 64, a chunk and a
// tail, a tail alone; the heads
// are summed 4 at a time: 3 actions and the value, 6 and the value. acnet_heads_batch, the heads
// of up to ACNET_BATCH samples side by side (a minibatch's block), gives each sample those bits.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "algo/ppo/acnet.h"

static uint64_t next(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

Test(acnet, forward_is_the_plain_sum_in_order_bit_for_bit) {
    const int widths[] = { 8, 32, 64, 72, 128, 200 };
    uint64_t r = 88172645463325252ull;
    for (size_t wi = 0; wi < 2 * sizeof(widths) / sizeof(widths[0]); wi++) {
        const int H = widths[wi / 2], A = wi % 2 ? ACNET_A_MAX : 3, D = ACNET_D;
        AcNet net;
        cr_assert_eq(acnet_alloc(&net, D, H, A), 0);
        acnet_init_random(&net, 7 + (uint64_t)H);
        AcParts p = acnet_tail_parts(&net, net.t);
        for (int j = 0; j < H; j++) p.b1[j] = ((double)(next(&r) % 2001) - 1000.0) / 997.0; // not all zero
        for (int a = 0; a < A; a++) p.bpi[a] = 0.25 * (a + 1);
        p.bv[0] = -0.5;
        double *h = malloc(sizeof(double) * H), *want = malloc(sizeof(double) * H);
        uint16_t idx[300];
        int8_t sign[300];
        for (int trial = 0; trial < 20; trial++) {
            int nnz = 0;
            for (int k = 0; k < D && nnz < 300; k += 1 + (int)(next(&r) % 90)) { // ascending
                idx[nnz] = (uint16_t)k;
                sign[nnz++] = next(&r) & 1 ? 1 : -1;
            }
            if (trial == 0) nnz = 0; // no input: b1 alone
            double logits[ACNET_A_MAX], want_logits[ACNET_A_MAX];
            const double v = acnet_forward(&net, (SparseX){ nnz, idx, sign }, h, logits);
            for (int j = 0; j < H; j++) {
                float s32 = 0.0f;
                for (int k = 0; k < nnz; k++) {
                    const float w = net.w1[(size_t)idx[k] * H + j];
                    s32 = sign[k] > 0 ? s32 + w : s32 - w;
                }
                const double s = p.b1[j] + (double)s32;
                want[j] = s < 0.0 ? 0.0 : s;
            }
            for (int a = 0; a < A; a++) {
                double s = 0.0;
                for (int j = 0; j < H; j++) s += p.Wpi[(size_t)a * H + j] * want[j];
                want_logits[a] = p.bpi[a] + s;
            }
            double sv = 0.0;
            for (int j = 0; j < H; j++) sv += p.wv[j] * want[j];
            const double want_v = p.bv[0] + sv;
            cr_assert(
                !memcmp(h, want, sizeof(double) * H), "H %d, trial %d (%d entries): other hidden units", H, trial, nnz);
            cr_assert(
                !memcmp(logits, want_logits, sizeof(double) * A), "H %d, A %d, trial %d: other logits", H, A, trial);
            cr_assert(!memcmp(&v, &want_v, sizeof(v)), "H %d, A %d, trial %d: value %.17g, not %.17g", H, A, trial, v,
                want_v);
        }
        free(h);
        free(want);
        acnet_free(&net);
    }
}

Test(acnet, heads_of_a_batch_are_each_samples_plain_sums_bit_for_bit) {
    const int widths[] = { 8, 64, 72, 128, 200 };
    uint64_t r = 2463534242ull;
    for (size_t wi = 0; wi < 2 * sizeof(widths) / sizeof(widths[0]); wi++) {
        const int H = widths[wi / 2], A = wi % 2 ? ACNET_A_MAX : 3;
        AcNet net;
        cr_assert_eq(acnet_alloc(&net, 16, H, A), 0);
        acnet_init_random(&net, 11 + (uint64_t)H);
        AcParts p = acnet_tail_parts(&net, net.t);
        for (int a = 0; a < A; a++) p.bpi[a] = -0.125 * (a + 1);
        p.bv[0] = 0.75;
        double *h = malloc(sizeof(double) * ACNET_BATCH * H), *h0 = malloc(sizeof(double) * ACNET_BATCH * H);
        for (int n = 1; n <= ACNET_BATCH; n++) {
            for (int k = 0; k < n * H; k++) h0[k] = ((double)(next(&r) % 4001) - 2000.0) / 1013.0; // half below 0
            memcpy(h, h0, sizeof(double) * (size_t)(n * H));
            double logits[ACNET_BATCH * ACNET_A_MAX], values[ACNET_BATCH];
            acnet_heads_batch(&net, h, n, logits, values);
            for (int s = 0; s < n; s++) {
                const double *x = h0 + (size_t)s * H;
                for (int j = 0; j < H; j++) {
                    const double relu = x[j] < 0.0 ? 0.0 : x[j];
                    cr_assert(
                        !memcmp(&h[(size_t)s * H + j], &relu, sizeof(relu)), "H %d n %d: sample %d's ReLU", H, n, s);
                }
                for (int a = 0; a <= A; a++) {
                    const double *w = a < A ? p.Wpi + (size_t)a * H : p.wv;
                    double dot = 0.0;
                    for (int j = 0; j < H; j++) dot += w[j] * (x[j] < 0.0 ? 0.0 : x[j]);
                    const double want = (a < A ? p.bpi[a] : p.bv[0]) + dot, got = a < A ? logits[s * A + a] : values[s];
                    cr_assert(!memcmp(&got, &want, sizeof(got)), "H %d A %d n %d: sample %d head %d %.17g, not %.17g",
                        H, A, n, s, a, got, want);
                }
            }
        }
        free(h);
        free(h0);
        acnet_free(&net);
    }
}
