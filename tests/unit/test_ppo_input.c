// test_ppo_input.c: the rollout builds each step's input from the lit pixels of its frame and
// of the frame before (kept from the step before, not scanned again): every stored input is
// ppo_input of the frame it holds and the previous step's frame, zeros after an episode's end,
// within a rollout and across two; sparse_lit lists a frame's lit pixels.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_ppo_common.h"
#include "algo/ppo/ppo.h"
#include "algo/ppo/ppo_parts.h"
#include "rl/sparse_input.h"
#include "train/pool.h"

Test(ppo_input, sparse_lit_lists_the_lit_pixels_ascending) {
    static uint8_t f[POLICY_D];
    static uint16_t lit[POLICY_D];
    uint64_t x = 88172645463325252ull;
    for (int trial = 0; trial < 40; trial++) {
        const int n = (int[]){ 0, 1, 7, 60, 3000 }[trial % 5];
        memset(f, 0, sizeof(f));
        for (int k = 0; k < n; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            f[x % POLICY_D] = 1;
        }
        if (trial == 5) f[POLICY_D - 1] = f[0] = 1; // the grid's ends
        const int got = sparse_lit(f, lit);
        int want = 0;
        for (int k = 0; k < POLICY_D; k++)
            if (f[k]) cr_assert_eq(lit[want++], k, "trial %d: lit pixel %d", trial, want - 1);
        cr_assert_eq(got, want, "trial %d: %d lit pixels, not %d", trial, got, want);
    }
}

// The frame a stored input holds: its first POLICY_D entries' pixels.
static void frame_of(SparseX x, uint8_t *f) {
    memset(f, 0, POLICY_D);
    for (int k = 0; k < x.nnz && x.idx[k] < POLICY_D; k++) f[x.idx[k]] = 1;
}

Test(ppo_input, every_step_is_ppo_input_of_its_frame_and_the_one_before) {
    TrainConfig c;
    Pool *pool;
    Ppo *p = ppo_test_create(&c, "envs=2 steps=500 hidden=4 minibatches=1 epochs=1 coarse=1", 2, &pool);
    const int N = c.envs, T = c.steps;
    static uint8_t cur[POLICY_D], want_prev[2][POLICY_D];
    static uint16_t idx[SPARSE_INPUT_MAX];
    static int8_t sign[SPARSE_INPUT_MAX];
    memset(want_prev, 0, sizeof(want_prev)); // a fresh env's
    int ends = 0;
    for (int rollout = 0; rollout < 4; rollout++) {
        cr_assert_eq(ppo_collect(p), 0, "%s", p->why);
        for (int e = 0; e < N; e++)
            for (int t = 0; t < T; t++) {
                const int s = e * T + t;
                const SparseX x = ppo_sample_x(p, s);
                frame_of(x, cur);
                const int n = ppo_input(cur, want_prev[e], true, idx, sign);
                cr_assert_eq(x.nnz, n, "rollout %d, env %d, step %d: %d entries, not %d", rollout, e, t, x.nnz, n);
                cr_assert_eq(
                    memcmp(x.idx, idx, sizeof(uint16_t) * (size_t)n), 0, "rollout %d, env %d, step %d", rollout, e, t);
                cr_assert_eq(memcmp(x.sign, sign, (size_t)n), 0, "rollout %d, env %d, step %d", rollout, e, t);
                if (p->done[s]) {
                    memset(want_prev[e], 0, POLICY_D);
                    ends++;
                } else
                    memcpy(want_prev[e], cur, POLICY_D);
            }
    }
    cr_assert_geq(ends, 2, "%d episodes ended: the previous frame's reset is not seen", ends);
    pool_destroy(pool);
    ppo_destroy(p);
}
