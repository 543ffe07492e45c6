// test_actor.c: the policy a binding steps (algo/actor.h). Every learner of the list gives every
// action's probability (AgentPolicy.act_probs) with act's own action and P(UP); an Actor opened
// from each shipped model steps batches as single rows do, takes RGB screens as their 80x80
// frames, forgets the rows it is told to, and refuses what it cannot play in one line.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/actor.h"
#include "algo/algo.h"
#include "train/state.h"
#include "test_learners.h"

static const char *const MODELS[] = { "models/pong-v5", "models/pong-v5-ppo" };

// n 80x80 frames and their RGB screens of one game from seed, the agent moving up and down.
static void play_frames(int n, uint64_t seed, uint8_t *f80, uint8_t *rgb) {
    Env e;
    cr_assert_eq(env_init(&e, "ALE/Pong-v5", seed), ENV_OK);
    for (int t = 0; t < n; t++) {
        env_render_obs80(&e, f80 + (size_t)t * POLICY_D);
        if (rgb) env_render_rgb(&e, rgb + (size_t)t * 210 * 160 * 3);
        EnvStep s;
        cr_assert_eq(env_step(&e, (t / 8) % 2 ? ACTION_RIGHT : ACTION_LEFT, &s), ENV_OK);
    }
}

Test(actor, every_learner_gives_every_probability_as_it_acts) {
    enum { T = 40 };
    static uint8_t frames[T * POLICY_D];
    static uint16_t idx[POLICY_D];
    static int8_t sign[POLICY_D];
    play_frames(T, 3, frames, NULL);
    for (const Learner *const *l = ALGO_LEARNERS; *l; l++) {
        TrainState s;
        tiny_state(&s, *l);
        for (int greedy = 0; greedy < 2; greedy++) {
            AgentPolicy ap = (*l)->agent(&s, greedy);
            cr_assert_not_null(ap.act_probs, "%s: no act_probs", (*l)->name);
            cr_assert(ap.n_actions >= 1 && ap.n_actions <= AGENT_ACTIONS_MAX, "%s", (*l)->name);
            int up = -1;
            for (int k = 0; k < ap.n_actions; k++) {
                cr_assert(ap.actions[k] >= 0 && ap.actions[k] < ACTION_COUNT, "%s", (*l)->name);
                if (ap.actions[k] == ACTION_RIGHT) up = k;
            }
            cr_assert_geq(up, 0, "%s: RIGHT (up) is not among its actions", (*l)->name);
            double *h = malloc(sizeof(double) * (size_t)ap.h_len);
            for (int t = 0; t < T; t++) {
                const uint8_t *cur = frames + (size_t)t * POLICY_D, *prev = t ? cur - POLICY_D : NULL;
                const int nnz = prev ? agent_diff(cur, prev, idx, sign) : 0;
                const SparseX x = { nnz, idx, sign };
                const double u = (t % 10 + 0.5) / 10.0;
                double pu, probs[AGENT_ACTIONS_MAX], sum = 0.0;
                const int a = ap.act(&ap, x, cur, prev, u, h, &pu);
                const int b = ap.act_probs(&ap, x, cur, prev, u, h, probs);
                cr_assert_eq(a, b, "%s step %d: act %d, act_probs %d", (*l)->name, t, a, b);
                cr_assert(probs[up] == pu, "%s step %d: P(UP) %.17g, act's %.17g", (*l)->name, t, probs[up], pu);
                for (int k = 0; k < ap.n_actions; k++) {
                    cr_assert(probs[k] >= 0.0 && probs[k] <= 1.0);
                    sum += probs[k];
                }
                cr_assert(fabs(sum - 1.0) < 1e-12, "%s step %d: probabilities sum to %.17g", (*l)->name, t, sum);
            }
            free(h);
        }
        train_state_free(&s);
    }
}

Test(actor, a_batch_steps_as_single_rows_and_rgb_as_its_frames) {
    enum { T = 30, R = 3, RESET_AT = 15 };
    static uint8_t f80[R][T * POLICY_D], rgb[T * 210 * 160 * 3], batch[R * POLICY_D];
    static double pb[T][R * AGENT_ACTIONS_MAX];
    static int cb[T][R];
    for (int r = 0; r < R; r++) play_frames(T, 10 + (uint64_t)r, f80[r], r == 0 ? rgb : NULL);
    char err[256];
    for (int m = 0; m < 2; m++) {
        // two Actors at a time: a PPO model's takes some 60 MB
        Actor *b = actor_open(MODELS[m], err, sizeof err), *one = actor_open(MODELS[m], err, sizeof err);
        cr_assert_not_null(b, "%s: %s", MODELS[m], err);
        cr_assert_not_null(one, "%s: %s", MODELS[m], err);
        int ids[AGENT_ACTIONS_MAX];
        const int A = actor_actions(b, ids);
        cr_assert_eq(A, m == 0 ? 2 : 3);
        cr_assert_str_eq(actor_algo(b), m == 0 ? "pg" : "ppo");
        const double u[R] = { 0.2, 0.5, 0.8 };
        for (int t = 0; t < T; t++) {
            if (t == RESET_AT) { // row 1 starts an episode (its frames jump)
                const uint8_t fresh[R] = { 0, 1, 0 };
                actor_reset(b, fresh);
            }
            for (int r = 0; r < R; r++) memcpy(batch + (size_t)r * POLICY_D, f80[r] + (size_t)t * POLICY_D, POLICY_D);
            cr_assert_eq(actor_step(b, R, OBS_OBS80, batch, u, false, pb[t], cb[t]), 0);
            cr_assert_eq(actor_rows(b), R);
        }
        // each row alone, through one Actor: the same probabilities and choices, bit for bit
        for (int r = 0; r < R; r++) {
            actor_reset(one, NULL);
            for (int t = 0; t < T; t++) {
                double p1[AGENT_ACTIONS_MAX];
                int c1;
                if (t == RESET_AT && r == 1) actor_reset(one, NULL);
                cr_assert_eq(actor_step(one, 1, OBS_OBS80, f80[r] + (size_t)t * POLICY_D, u + r, false, p1, &c1), 0);
                cr_assert(!memcmp(p1, pb[t] + (size_t)r * A, sizeof(double) * (size_t)A), "%s step %d row %d",
                    MODELS[m], t, r);
                cr_assert_eq(c1, cb[t][r]);
                cr_assert(c1 >= 0 && c1 < A);
            }
        }
        // an RGB screen is its 80x80 frame, preprocessed as the seed does (row 0's game)
        actor_reset(one, NULL);
        for (int t = 0; t < RESET_AT; t++) {
            double ps[AGENT_ACTIONS_MAX];
            cr_assert_eq(actor_step(one, 1, OBS_RGB, rgb + (size_t)t * 210 * 160 * 3, u, false, ps, NULL), 0);
            cr_assert(!memcmp(ps, pb[t], sizeof(double) * (size_t)A), "%s step %d: rgb", MODELS[m], t);
        }
        // a batch of another size starts every row afresh: row 0 as a fresh single row
        double p2[2 * AGENT_ACTIONS_MAX], pf[AGENT_ACTIONS_MAX];
        actor_reset(one, NULL);
        cr_assert_eq(actor_step(b, 2, OBS_OBS80, batch, NULL, true, p2, NULL), 0);
        cr_assert_eq(actor_step(one, 1, OBS_OBS80, batch, NULL, true, pf, NULL), 0);
        cr_assert(!memcmp(p2, pf, sizeof(double) * (size_t)A));
        // what cannot be a step
        cr_assert_eq(actor_step(b, 0, OBS_OBS80, batch, NULL, true, p2, NULL), -1);
        cr_assert_eq(actor_step(b, 1, OBS_GRAYSCALE, batch, NULL, true, p2, NULL), -1);
        cr_assert_eq(actor_step(b, 1, OBS_OBS80, NULL, NULL, true, p2, NULL), -1);
        actor_close(b);
        actor_close(one);
    }
}

Test(actor, refusals_say_why) {
    char err[256];
    cr_assert_null(actor_open("tests/no-such-model", err, sizeof err));
    cr_assert_neq(err[0], 0);
    cr_assert(actor_plays("pg") && actor_plays("ppo"));
    cr_assert(!actor_plays("toy") && !actor_plays(NULL));
    actor_close(NULL);
}
