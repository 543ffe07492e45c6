// test_replay.c: the replay memory of sparse frames (rl/replay.h), against numbers worked out by
// hand: a slot is dropped when the ring of slots passes it or when the pixel pool overwrites its
// pixels, and each kept slot gives back its frame, its lit pixels in order (across the pool's
// wrap too), its action, reward and flags; the n-step return of rewards chosen so that each
// term shows; a state's input equals sparse_input of the two whole frames; the draw is
// lo + rng_below(hi - lo + 1) of the key's own stream, within the slots that have their
// previous and n-th next steps; the float64 layout a checkpoint holds, and a load refusing what
// no save writes.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rl/replay.h"
#include "rl/sparse_input.h"
#include "util/rng.h"

// frame k: pixels k, 100 + k, ..., (n - 1) 100 + k
static void frame_of(int k, int n, uint8_t *f) {
    memset(f, 0, POLICY_D);
    for (int p = 0; p < n; p++) f[p * 100 + k] = 1;
}

static void put(Replay *r, int k, int n, int action, int reward, int flags) {
    uint8_t f[POLICY_D];
    frame_of(k, n, f);
    const Transition t = { .action = (uint8_t)action, .flags = (uint8_t)flags, .reward = (int8_t)reward };
    replay_put(r, f, &t);
}

Test(replay, the_ring_of_slots_drops_the_oldest) {
    Replay r;
    cr_assert_eq(replay_alloc(&r, 4, 1000, 3), 0); // 4 slots; the pool never binds
    uint8_t f[POLICY_D], g[POLICY_D];
    for (int k = 0; k < 10; k++) {
        put(&r, k, 2, k % 3, k % 3 - 1, 0);
        cr_assert_eq(r.total, k + 1);
        cr_assert_eq(r.oldest, k + 1 > 4 ? k + 1 - 4 : 0, "after %d puts", k + 1);
    }
    cr_assert_eq(r.pool_total, 20);
    for (int k = 6; k < 10; k++) {
        frame_of(k, 2, f);
        replay_frame(&r, k, g);
        cr_assert_eq(memcmp(f, g, POLICY_D), 0, "slot %d's frame", k);
        const size_t s = replay_slot(&r, k);
        cr_assert_eq(s, (size_t)(k % 4));
        cr_assert_eq(r.action[s], k % 3);
        cr_assert_eq(r.reward[s], k % 3 - 1);
    }
    replay_free(&r);
}

Test(replay, the_pool_drops_the_slots_whose_pixels_it_overwrites) {
    Replay r;
    cr_assert_eq(replay_alloc(&r, 8, 10, 3), 0); // a pool of 10 pixels, frames of 3
    for (int k = 0; k < 5; k++) put(&r, k, 3, 0, 0, 0);
    // offsets 0, 3, 6, 9, 12, 15 pixels written: the pool keeps the last 10, from pixel 5 on,
    // so slot 2 (pixels 6..8) is the oldest whole one
    cr_assert_eq(r.pool_total, 15);
    cr_assert_eq(r.oldest, 2);
    // slot 3's pixels lie at pool places 9, 0, 1: read back whole and ascending
    uint16_t lit[POLICY_D];
    cr_assert_eq(replay_lit(&r, 3, lit), 3);
    cr_assert_eq(lit[0], 3);
    cr_assert_eq(lit[1], 103);
    cr_assert_eq(lit[2], 203);
    uint8_t f[POLICY_D], g[POLICY_D];
    frame_of(3, 3, f);
    replay_frame(&r, 3, g);
    cr_assert_eq(memcmp(f, g, POLICY_D), 0);
    replay_free(&r);
}

Test(replay, the_nstep_return_stops_at_the_episode_end) {
    Replay r;
    cr_assert_eq(replay_alloc(&r, 16, 1000, 3), 0);
    // two envs (stride 2): env 0's rewards 1, -1, 1, 0 at slots 0, 2, 4, 6; env 1's all 0,
    // env 1's slot 3 ends its episode
    const int rew[8] = { 1, 0, -1, 0, 1, 0, 0, 0 };
    for (int k = 0; k < 8; k++) put(&r, k, 1, 0, rew[k], k == 3 ? REPLAY_DONE : 0);
    double R, disc;
    cr_assert(!replay_nstep(&r, 0, 2, 3, 0.5, &R, &disc));
    cr_assert_eq(R, 1.0 - 0.5 + 0.25);
    cr_assert_eq(disc, 0.125);
    cr_assert(replay_nstep(&r, 1, 2, 3, 0.5, &R, &disc)); // slot 1, then 3 ends it
    cr_assert_eq(R, 0.0);
    cr_assert_eq(disc, 0.25);
    cr_assert(!replay_nstep(&r, 2, 2, 2, 0.9, &R, &disc));
    cr_assert_eq(R, -1.0 + 0.9);
    replay_free(&r);
}

Test(replay, a_state_input_is_the_one_of_its_two_frames) {
    Replay r;
    cr_assert_eq(replay_alloc(&r, 6, 27, 3), 0); // the pool wraps within these 6 slots
    for (int k = 0; k < 6; k++) put(&r, k, 5, 0, 0, k == 2 ? REPLAY_START : 0);
    cr_assert_eq(r.oldest, 1); // slot 5's pixels overwrote slot 0's first three
    uint16_t cur[POLICY_D], prev[POLICY_D], idx[SPARSE_INPUT_MAX], want_idx[SPARSE_INPUT_MAX];
    int8_t sign[SPARSE_INPUT_MAX], want_sign[SPARSE_INPUT_MAX];
    uint8_t f[POLICY_D], p[POLICY_D];
    for (int k = 2; k < 6; k++)
        for (int coarse = 0; coarse < 2; coarse++) {
            frame_of(k, 5, f);
            if (k == 2)
                memset(p, 0, POLICY_D);
            else
                frame_of(k - 1, 5, p);
            const int want = sparse_input(f, p, coarse, want_idx, want_sign);
            const int n = replay_state_input(&r, k, 1, coarse, cur, prev, idx, sign);
            cr_assert_eq(n, want, "slot %d", k);
            cr_assert_eq(memcmp(idx, want_idx, sizeof(uint16_t) * (size_t)n), 0, "slot %d", k);
            cr_assert_eq(memcmp(sign, want_sign, (size_t)n), 0, "slot %d", k);
        }
    replay_free(&r);
}

Test(replay, a_draw_is_its_keys_stream_within_the_slots_with_their_neighbours) {
    Replay r;
    cr_assert_eq(replay_alloc(&r, 100, 10000, 3), 0);
    int64_t s[64], again[64];
    cr_assert(!replay_draw(&r, 3, 4, 77, 64, s)); // empty
    for (int k = 0; k < 20; k++) put(&r, k, 1, 0, 0, 0);
    cr_assert(!replay_draw(&r, 10, 10, 77, 64, s)); // lo 10 > hi 9
    // 20 slots, 3 before and 4 after: slots 3..15
    cr_assert(replay_draw(&r, 3, 4, 77, 64, s));
    Rng rng;
    rng_seed(&rng, 77);
    for (int b = 0; b < 64; b++) {
        cr_assert_eq(s[b], 3 + (int64_t)rng_below(&rng, 13), "draw %d", b);
        cr_assert(s[b] >= 3 && s[b] <= 15);
    }
    cr_assert(replay_draw(&r, 3, 4, 77, 64, again));
    cr_assert_eq(memcmp(s, again, sizeof(s)), 0);
    cr_assert(replay_draw(&r, 3, 4, 78, 64, again));
    cr_assert_neq(memcmp(s, again, sizeof(s)), 0);
    cr_assert(replay_draw(&r, 15, 4, 1, 8, s)); // one slot: 15
    for (int b = 0; b < 8; b++) cr_assert_eq(s[b], 15);
    replay_free(&r);
}

Test(replay, saves_the_layout_checkpoints_hold_and_refuses_what_no_save_writes) {
    Replay r, q;
    cr_assert_eq(replay_alloc(&r, 3, 7, 3), 0);
    put(&r, 5, 2, 2, -1, REPLAY_START); // pixels 5, 105
    put(&r, 6, 1, 1, 1, REPLAY_DONE);   // pixel 6
    const size_t n = replay_doubles(&r);
    cr_assert_eq(n, 3 + 2 * 3 + 3); // head, 2 a slot, the pool 3 pixels a double
    double *d = malloc(sizeof(double) * n);
    replay_save(&r, d);
    cr_assert_eq(d[0], 2.0);
    cr_assert_eq(d[1], 3.0);
    cr_assert_eq(d[2], 0.0);
    cr_assert_eq(d[3], 0.0); // slot 0 at pixel 0: 2 pixels, action 2, flags 2, reward -1 + 128
    cr_assert_eq(d[4], (double)(2 + (2u << 16) + (2u << 24) + (127ull << 32)));
    cr_assert_eq(d[5], 2.0);
    cr_assert_eq(d[6], (double)(1 + (1u << 16) + (1u << 24) + (129ull << 32)));
    cr_assert_eq(d[9], (double)(5 + (105ull << 16) + (6ull << 32)));
    cr_assert_eq(replay_alloc(&q, 3, 7, 3), 0);
    cr_assert_eq(replay_load(&q, d), 0);
    cr_assert_eq(q.total, 2);
    cr_assert_eq(q.pool_total, 3);
    uint8_t f[POLICY_D], g[POLICY_D];
    frame_of(6, 1, f);
    replay_frame(&q, 1, g);
    cr_assert_eq(memcmp(f, g, POLICY_D), 0);
    cr_assert_eq(q.reward[0], -1);
    const struct {
        size_t at;
        double v;
    } bad[] = { { 0, -1.0 }, { 2, 5.0 }, { 1, 0.5 }, { 4, (double)(2 + (3u << 16)) }, { 4, (double)(2 + (4u << 24)) },
        { 4, 6401.0 }, { 9, 6400.0 } };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        replay_save(&r, d);
        d[bad[k].at] = bad[k].v;
        cr_assert_eq(replay_load(&q, d), -1, "case %zu", k);
    }
    free(d);
    replay_free(&q);
    replay_free(&r);
}
