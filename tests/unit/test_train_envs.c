// test_train_envs.c: a learner's training envs (rl/train_envs.h) against one env played by hand
// (env.h, episode 0 of (seed, e) with the learner's word): each round's frame is the env's
// obs80, each step's Transition its reward with REPLAY_START on an episode's first step only and
// REPLAY_DONE, the return and length on its last; prev is the frame just played, zeros after an
// episode's end; the frames counted are the env's; an iteration's draws are rng_key(seed,
// iteration, env, word)'s stream; the save is learner_envs.h's records and loads back.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rl/learner_envs.h"
#include "rl/train_envs.h"
#include "algo/qrdqn/qr_streams.h"

#define TE_N 2

Test(train_envs, steps_as_an_env_played_by_hand) {
    const uint64_t seed = 12;
    TrainEnvs t;
    cr_assert_eq(train_envs_create(&t, "ALE/Pong-v5", TE_N, 0, 0, STREAM_QR_ENV, seed), 0);
    train_envs_begin(&t, seed, 7, STREAM_QR_ACT);
    for (int e = 0; e < TE_N; e++) {
        Rng r;
        rng_seed(&r, rng_key(seed, 7, (uint64_t)e, STREAM_QR_ACT));
        for (int k = 0; k < 5; k++) cr_assert_eq(rng_next(&t.rng[e]), rng_next(&r));
    }
    const int e = 1;
    Env ref;
    cr_assert_eq(env_init(&ref, "ALE/Pong-v5", rng_key(seed, (uint64_t)e, 0, STREAM_QR_ENV)), ENV_OK);
    static uint8_t want[POLICY_D], zeros[POLICY_D];
    int ret = 0, len = 0, ended = 0;
    int64_t frames = 0;
    Rng pick;
    rng_seed(&pick, 3);
    for (int s = 0; s < 2000 && ended < 1; s++) {
        const int a = (int)rng_below(&pick, 3), id = a == 0 ? ACTION_NOOP : a == 1 ? ACTION_RIGHT : ACTION_LEFT;
        env_render_obs80(&ref, want);
        const uint8_t *cur = train_envs_observe(&t, e);
        cr_assert_eq(memcmp(cur, want, POLICY_D), 0, "step %d's frame", s);
        EnvStep es;
        cr_assert_eq(env_step(&ref, id, &es), ENV_OK);
        train_envs_step(&t, e, a, id);
        const Transition *st = &t.step[e];
        frames += es.frames;
        ret += es.reward;
        len++;
        cr_assert_eq(st->action, a);
        cr_assert_eq(st->reward, es.reward, "step %d's reward", s);
        cr_assert_eq((st->flags & REPLAY_START) != 0, s == 0, "step %d: REPLAY_START", s);
        cr_assert_eq(t.frames[e], frames);
        if (es.terminated || es.truncated) {
            cr_assert(st->ended && (st->flags & REPLAY_DONE));
            cr_assert_eq(st->ret, ret);
            cr_assert_eq(st->len, len);
            cr_assert_eq(memcmp(t.prev + e * POLICY_D, zeros, POLICY_D), 0);
            ended++;
        } else {
            cr_assert(!st->ended && !(st->flags & REPLAY_DONE));
            cr_assert_eq(memcmp(t.prev + e * POLICY_D, want, POLICY_D), 0, "step %d's prev", s);
        }
    }
    cr_assert_eq(ended, 1, "a random player's episode ends within 2000 steps");
    // the next episode's first step starts it
    train_envs_observe(&t, e);
    train_envs_step(&t, e, 0, ACTION_NOOP);
    cr_assert(t.step[e].flags & REPLAY_START);
    cr_assert_eq(t.frames[0], 0); // env 0 not stepped

    // the save is the records of learner_envs.h, and loads into fresh envs
    const size_t n = train_envs_doubles(&t);
    cr_assert_eq(n, (size_t)TE_N * ENV_RECORD_DOUBLES);
    double *d = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    train_envs_save(&t, d);
    env_records_save(t.venv, TE_N, t.prev, POLICY_D, w);
    cr_assert_eq(memcmp(d, w, sizeof(double) * n), 0);
    TrainEnvs u;
    cr_assert_eq(train_envs_create(&u, "ALE/Pong-v5", TE_N, 0, 0, STREAM_QR_ENV, seed), 0);
    cr_assert_eq(train_envs_load(&u, d), 0);
    train_envs_save(&u, w);
    cr_assert_eq(memcmp(d, w, sizeof(double) * n), 0);
    d[3] = -1.0;
    cr_assert_eq(train_envs_load(&u, d), -1);
    free(d);
    free(w);
    train_envs_free(&u);
    train_envs_free(&t);
}

Test(train_envs, refuses_what_learner_envs_refuses) {
    TrainEnvs t;
    cr_assert_eq(train_envs_create(&t, "Breakout-v5", 1, 0, 0, STREAM_QR_ENV, 5), -1);
    train_envs_free(&t);
}
