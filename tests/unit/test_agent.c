// test_agent.c: the agent's step (rl/agent.h): its sparse difference frame equals the plain
// per-pixel difference, and training and play, acting through it, see the same inputs and take
// the same actions for the same seeds.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rl/agent.h"
#include "algo/algo.h"
#include "algo/pg/rollout.h"
#include "train/state.h"
#include "test_learners.h"

Test(agent, diff_is_the_per_pixel_difference) {
    static uint8_t cur[POLICY_D], prev[POLICY_D];
    static uint16_t idx[POLICY_D];
    static int8_t sign[POLICY_D];
    srand(7);
    for (int round = 0; round < 50; round++) {
        int density = 1 + round % 10; // from a few pixels to most of them
        for (int i = 0; i < POLICY_D; i++) {
            cur[i] = rand() % 10 < density;
            prev[i] = rand() % 10 < density;
        }
        int n = agent_diff(cur, prev, idx, sign), k = 0;
        for (int i = 0; i < POLICY_D; i++) {
            int d = (int)cur[i] - (int)prev[i];
            if (!d) continue;
            cr_assert_lt(k, n, "round %d: pixel %d missing", round, i);
            cr_assert_eq(idx[k], i, "round %d: entry %d", round, k);
            cr_assert_eq(sign[k], d);
            k++;
        }
        cr_assert_eq(k, n, "round %d: %d entries for %d differing pixels", round, n, k);
    }
}

// rollout_play (training) and a bare agent loop with Karpathy's sampling policy: the same
// actions and inputs, step for step.
Test(agent, training_and_a_bare_agent_act_alike) {
    Policy p;
    cr_assert_eq(policy_alloc(&p, POLICY_D, 8), 0);
    srand(3);
    for (size_t i = 0; i < p.n; i++) p.w[i] = ((double)rand() / RAND_MAX - 0.5) * 0.02;
    Worker w;
    Env e1, e2;
    cr_assert_eq(worker_alloc(&w, &p), 0);
    cr_assert_eq(env_init(&e1, "ALE/Pong-v5", 0), ENV_OK);
    cr_assert_eq(env_init(&e2, "ALE/Pong-v5", 0), ENV_OK);
    EpisodeStats st;
    cr_assert_eq(rollout_play(&w, &p, &e1, 11, 12, &st), 0);
    Agent a;
    AgentPolicy ap = pg_agent_policy(&p, false);
    agent_reset(&a, &e2, 11, 12);
    static uint16_t idx[POLICY_D];
    static int8_t sign[POLICY_D];
    double *h = malloc(sizeof(double) * 8), pu;
    for (int t = 0; t < w.tr.T; t++) {
        AgentInput in = { idx, sign, 0 };
        EnvStep s;
        int action = agent_step(&a, &ap, &in, h, &pu, &s);
        cr_assert_eq(action, w.tr.action[t], "step %d", t);
        cr_assert_eq((uint32_t)in.nnz, w.tr.xoff[t + 1] - w.tr.xoff[t], "step %d", t);
        cr_assert(!memcmp(idx, w.tr.idx + w.tr.xoff[t], sizeof(uint16_t) * in.nnz));
        cr_assert_eq(s.terminated || s.truncated, t == w.tr.T - 1, "step %d", t);
    }
    free(h);
    worker_free(&w);
    policy_free(&p);
}

// eval, record, watch, export and import reach every learner through the table alone: each has
// the slots they call, and a fresh run's acting policy steps an env.
Test(agent, every_learner_acts_and_exports_through_the_table) {
    for (const Learner *const *l = ALGO_LEARNERS; *l; l++) {
        cr_assert_not_null((*l)->agent, "%s: no agent", (*l)->name);
        cr_assert_not_null((*l)->export_npy, "%s: no export_npy", (*l)->name);
        cr_assert_not_null((*l)->import_npy, "%s: no import_npy", (*l)->name);
        TrainState s;
        tiny_state(&s, *l);
        AgentPolicy ap = (*l)->agent(&s, false);
        cr_assert_gt(ap.h_len, 0, "%s", (*l)->name);
        Env e;
        cr_assert_eq(env_init(&e, "ALE/Pong-v5", 0), ENV_OK);
        Agent a;
        agent_reset(&a, &e, 1, 2);
        static uint16_t idx[POLICY_D];
        static int8_t sign[POLICY_D];
        double *h = malloc(sizeof(double) * (size_t)ap.h_len), pu;
        for (int t = 0; t < 3; t++) {
            AgentInput in = { idx, sign, 0 };
            EnvStep st;
            int action = agent_step(&a, &ap, &in, h, &pu, &st);
            cr_assert(action >= 0 && action < ACTION_COUNT, "%s: action %d", (*l)->name, action);
        }
        free(h);
        train_state_free(&s);
    }
}
