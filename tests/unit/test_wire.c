// test_wire.c: the packing of a learner's training envs for the ranks' exchange (rl/wire.h): a
// step's bytes laid out as the header says (env, action, flags, reward, ended, return, length,
// the lit pixels' count and indices), two ranks' packs one after another unpack into every env's
// step and frame; an env index out of range and a step cut short are refused; the envs' states
// go round whole (a fresh vector then plays on as the first) and a rank's own envs are left alone.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rl/train_envs.h"
#include "rl/wire.h"
#include "algo/qrdqn/qr_streams.h"

#define WN 3

static void fill(TrainEnvs *t) {
    for (int e = 0; e < WN; e++) {
        t->step[e] = (Transition){ .action = (uint8_t)(e + 1),
            .flags = (uint8_t)e,
            .reward = (int8_t)(e - 1),
            .ended = e == 2,
            .ret = e == 2 ? -21.0 : 0.0,
            .len = e == 2 ? 812 : 0 };
        uint8_t *f = t->frame + (size_t)e * POLICY_D;
        memset(f, 0, POLICY_D);
        for (int p = 0; p <= e; p++) f[p * 1000 + 7] = 1; // env e: e + 1 pixels
    }
}

Test(wire, steps_go_round_in_the_layout_the_header_gives) {
    TrainEnvs a, b;
    cr_assert_eq(train_envs_create(&a, "ALE/Pong-v5", WN, 0, 0, STREAM_QR_ENV, 1), 0);
    cr_assert_eq(train_envs_create(&b, "ALE/Pong-v5", WN, 0, 0, STREAM_QR_ENV, 1), 0);
    fill(&a);
    memset(b.frame, 1, (size_t)WN * POLICY_D); // overwritten whole
    uint8_t *buf = NULL;
    size_t cap = 0;
    cr_assert_eq(wire_reserve(&buf, &cap, wire_steps_bound(WN)), 0);
    cr_assert_geq(cap, (size_t)WN * (26 + 2 * POLICY_D));
    // rank 1 plays envs 1..2, rank 0 env 0: their packs one after another
    const size_t n1 = wire_steps_pack(&a, 1, 3, buf);
    cr_assert_eq(n1, 26 + 2 * 2 + 26 + 2 * 3);
    const size_t n0 = wire_steps_pack(&a, 0, 1, buf + n1);
    cr_assert_eq(n0, 26 + 2 * 1);
    // env 2's step, by hand
    const uint8_t *p = buf + 26 + 2 * 2;
    int32_t e;
    double ret;
    int64_t len;
    uint16_t count, pix;
    memcpy(&e, p, 4);
    cr_assert_eq(e, 2);
    cr_assert_eq(p[4], 3); // action
    cr_assert_eq(p[5], 2); // flags
    cr_assert_eq((int8_t)p[6], 1);
    cr_assert_eq(p[7], 1); // ended
    memcpy(&ret, p + 8, 8);
    memcpy(&len, p + 16, 8);
    memcpy(&count, p + 24, 2);
    cr_assert_eq(ret, -21.0);
    cr_assert_eq(len, 812);
    cr_assert_eq(count, 3);
    for (int k = 0; k < 3; k++) {
        memcpy(&pix, p + 26 + 2 * k, 2);
        cr_assert_eq(pix, k * 1000 + 7);
    }
    int bad = 99;
    cr_assert_eq(wire_steps_unpack(&b, buf, n1 + n0, &bad), 0);
    cr_assert_eq(memcmp(a.frame, b.frame, (size_t)WN * POLICY_D), 0);
    for (int k = 0; k < WN; k++) {
        const Transition *x = &a.step[k], *y = &b.step[k];
        cr_assert(x->action == y->action && x->flags == y->flags && x->reward == y->reward && x->ended == y->ended &&
                x->ret == y->ret && x->len == y->len,
            "env %d's step", k);
    }
    // a step cut short, and an env the run does not have
    cr_assert_eq(wire_steps_unpack(&b, buf, n1 + n0 - 1, &bad), -1);
    cr_assert_eq(bad, -1);
    cr_assert_eq(wire_steps_unpack(&b, buf, 10, &bad), -1);
    cr_assert_eq(bad, -1);
    const int32_t three = 3;
    memcpy(buf, &three, 4);
    cr_assert_eq(wire_steps_unpack(&b, buf, n1 + n0, &bad), -1);
    cr_assert_eq(bad, 3);
    free(buf);
    train_envs_free(&a);
    train_envs_free(&b);
}

Test(wire, env_states_go_round_and_play_on_alike) {
    TrainEnvs a, b;
    cr_assert_eq(train_envs_create(&a, "ALE/Pong-v5", WN, 0, 0, STREAM_QR_ENV, 4), 0);
    cr_assert_eq(train_envs_create(&b, "ALE/Pong-v5", WN, 0, 0, STREAM_QR_ENV, 4), 0);
    Rng r;
    rng_seed(&r, 8);
    for (int s = 0; s < 300; s++)
        for (int e = 0; e < WN; e++) {
            train_envs_observe(&a, e);
            train_envs_step(&a, e, 0, (int)rng_below(&r, ACTION_COUNT));
        }
    const size_t bytes = wire_envs_bytes(WN);
    cr_assert_eq(bytes, (size_t)WN * (ENV_RECORD_DOUBLES + 2) * sizeof(double));
    uint8_t *buf = malloc(bytes);
    wire_envs_pack(&a, 0, WN, buf);
    double head[1], tail[1];
    memcpy(head, buf + 2 * (ENV_RECORD_DOUBLES + 2) * sizeof(double), 8);
    memcpy(tail, buf + 3 * (ENV_RECORD_DOUBLES + 2) * sizeof(double) - 8, 8);
    cr_assert_eq(head[0], 2.0);
    cr_assert_eq(tail[0], (double)a.frames[2]);
    int bad = 99;
    // a rank that plays them all keeps its own
    cr_assert_eq(wire_envs_unpack(&b, buf, bytes, 0, WN, &bad), 0);
    cr_assert_eq(b.frames[0], 0);
    // a rank that plays none takes them all, and plays on as the first
    cr_assert_eq(wire_envs_unpack(&b, buf, bytes, 0, 0, &bad), 0);
    cr_assert_eq(memcmp(a.prev, b.prev, (size_t)WN * POLICY_D), 0);
    cr_assert_eq(memcmp(a.frames, b.frames, sizeof(int64_t) * WN), 0);
    for (int s = 0; s < 50; s++)
        for (int e = 0; e < WN; e++) {
            const int id = (int)rng_below(&r, ACTION_COUNT);
            cr_assert_eq(memcmp(train_envs_observe(&a, e), train_envs_observe(&b, e), POLICY_D), 0);
            train_envs_step(&a, e, 0, id);
            train_envs_step(&b, e, 0, id);
            cr_assert_eq(a.step[e].reward, b.step[e].reward);
        }
    // an env index out of range
    const double nine = 9.0;
    memcpy(buf, &nine, 8);
    cr_assert_eq(wire_envs_unpack(&b, buf, bytes, 0, 0, &bad), -1);
    cr_assert_eq(bad, -1);
    free(buf);
    train_envs_free(&a);
    train_envs_free(&b);
}
