// test_qrdqn.c: QR-DQN's checkpoint gives back every setting and every bit of its arrays (the
// weights, the target, Adam's moments, the replay memory, the envs), and its state resumes;
// every prefix and single-byte changes are refused (test_learner_common.h, the checks every
// learner's checkpoint passes). The replay memory's own tests: test_replay.c. The updates give the
// same bits on any number of threads. The input built from two frames' lit pixels (as the
// update builds it from the replay) is the one built from the frames.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_learner_common.h"
#include "algo/qrdqn/qrdqn.h"
#include "rl/sparse_input.h"
#include "train/checkpoint.h"
#include "train/comm.h"
#include "train/pool.h"

// A small run that updates from its third iteration on.
static void qr_run_config(TrainConfig *c) {
    learner_run_config(c, "qrdqn",
        "envs=3 steps=40 hidden=4 quantiles=4 minibatch=4 learn_start=60 update_every=2 replay=100 target_every=7 "
        "eps_steps=100");
}

Test(qrdqn, checkpoint_round_trip_and_resume) {
    TrainConfig c;
    qr_run_config(&c);
    learner_checkpoint_round_trip(&c, &QRDQN_LEARNER, 6);
}

Test(qrdqn, quantile_loss_is_zero_at_the_targets_and_pulls_towards_them) {
    double qa[4] = { 1, 2, 3, 4 }, dq[4];
    cr_assert_eq(qr_quantile_loss(qa, qa, 1, dq), 0.0);
    cr_assert_eq(dq[0], 0.0);
    const double tgt[4] = { 10, 10, 10, 10 };
    const double loss = qr_quantile_loss(qa, tgt, 4, dq);
    cr_assert_gt(loss, 0.0);
    for (int i = 0; i < 4; i++) cr_assert_lt(dq[i], 0.0, "quantile %d not pulled up", i); // descent raises it
}

// The update's threads share the transitions, then the gradient's columns, 8 at a time: H = 21
// splits into blocks of 8, 8 and 5, so 2 threads take 8 and 13 columns and 3 threads one block
// each. The weights, the target and Adam's moments after the updates of 4 iterations are the
// same bits on 1, 2 and 3 threads.
Test(qrdqn, updates_same_bits_on_1_2_3_threads) {
    TrainConfig c;
    qr_run_config(&c);
    c.hidden = 21;
    c.quantiles = 5;
    c.minibatch = 6;
    double *first = NULL;
    for (int threads = 1; threads <= 3; threads++) {
        char err[256];
        Qr *q = qr_create(&c, err, sizeof(err));
        cr_assert_not_null(q, "%s", err);
        Pool *pool = pool_create(threads);
        cr_assert_not_null(pool);
        cr_assert_eq(qr_bind(q, pool, NULL), 0);
        int64_t updates = 0;
        for (int i = 0; i < 4; i++) {
            q->iteration = i;
            cr_assert_eq(qr_iteration(q, err, sizeof(err)), 0, "%s", err);
            updates += q->stats.updates;
        }
        cr_assert_gt(updates, 100);
        const size_t n = q->sh.n;
        double *got = malloc(sizeof(double) * 4 * n);
        cr_assert_not_null(got);
        memcpy(got, q->w, sizeof(double) * n);
        memcpy(got + n, q->target, sizeof(double) * n);
        memcpy(got + 2 * n, q->adam_m, sizeof(double) * n);
        memcpy(got + 3 * n, q->adam_v, sizeof(double) * n);
        if (!first)
            first = got;
        else {
            for (size_t k = 0; k < 4 * n; k++)
                cr_assert_eq(memcmp(first + k, got + k, sizeof(double)), 0, "%d threads: entry %zu of %zu x 4 differs",
                    threads, k % n, n);
            free(got);
        }
        qr_destroy(q);
        pool_destroy(pool);
    }
    free(first);
}

// Frames of 0 to ~3,000 lit pixels (none, a few, the ball and paddles' few dozen, half the grid),
// with the previous frame empty, equal, or drawn apart: sparse_input_lit gives sparse_input's
// entries in its order.
Test(qrdqn, input_from_lit_pixels_is_the_frames_input) {
    static uint8_t cur[POLICY_D], prev[POLICY_D];
    static uint16_t lc[POLICY_D], lp[POLICY_D], ia[SPARSE_INPUT_MAX], ib[SPARSE_INPUT_MAX];
    static int8_t sa[SPARSE_INPUT_MAX], sb[SPARSE_INPUT_MAX];
    uint64_t x = 88172645463325252ull;
    for (int trial = 0; trial < 400; trial++) {
        const int lit = (int[]){ 0, 1, 5, 40, 3200 }[trial % 5], mode = trial / 5 % 3;
        for (int f = 0; f < 2; f++) {
            uint8_t *fr = f ? prev : cur;
            memset(fr, 0, POLICY_D);
            for (int p = 0; p < lit; p++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                fr[x % POLICY_D] = 1;
            }
        }
        if (mode == 1) memset(prev, 0, POLICY_D);
        if (mode == 2) memcpy(prev, cur, POLICY_D);
        int nc = 0, np = 0;
        for (int p = 0; p < POLICY_D; p++) {
            if (cur[p]) lc[nc++] = (uint16_t)p;
            if (prev[p]) lp[np++] = (uint16_t)p;
        }
        for (int coarse = 0; coarse < 2; coarse++) {
            const int na = sparse_input(cur, prev, coarse, ia, sa),
                      nb = sparse_input_lit(lc, nc, lp, np, coarse, ib, sb);
            cr_assert_eq(nb, na, "trial %d: %d entries, not %d", trial, nb, na);
            cr_assert_eq(memcmp(ia, ib, sizeof(uint16_t) * (size_t)na), 0, "trial %d: other entries", trial);
            cr_assert_eq(memcmp(sa, sb, (size_t)na), 0, "trial %d: other signs", trial);
        }
    }
}
