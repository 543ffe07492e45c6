// ppo_dump.c: build/ppo_dump, test support (not part of the product binary): one PPO batch
// and one minibatch step exported as .npy for the NumPy reference (tests/py/test_ppo_reference.py).
//
//   build/ppo_dump [--seed N] [--threads N] [--iterations N (6)] [--coarse 0|1] [--value-hidden V]
//                  [--ent-coef X] --out DIR
//
// A small learner (8 envs x 32 steps, H = 16, 2 minibatches) trains for
// --iterations iterations (so that Adam's moments are not zero), then plays rollouts until one
// holds an episode's end. --value-hidden V: a separate value network (the last V of the 16 units).
// Writes to DIR, in the network's layout (acnet.h):
//   w, m, v (n,) weights and Adam moments before the step (float64; W1's part is float32 in the
//   network, widened: exact); shape.npy (D, H, A, adam_t, M, V)
//   x (B, D) int8 inputs (D = 12,800, or 14,880 with the coarse views); action (B,) int32; logp, value, reward (B,); done (B,) uint8;
//   next_value (N,); adv, ret (B,) GAE; mb (M,) int32 the minibatch's samples;
//   grad (n,) its gradient (zero on W1 rows it does not touch); stats (5,) its mean policy
//   loss, value loss, entropy, approx kl, clip fraction; hyper (8,): lr, gamma, lambda, clip,
//   ent_coef, vf_coef, max_grad_norm, norm (before clipping); w_new, m_new, v_new (n,) after
//   the step.
//
//   build/ppo_dump --model MODEL [--seed N] [--play N (600)] --out DIR
//
// A trained model (whatever `pongrl eval` takes) plays N steps of its env (the first episode
// seeded with --seed, the next ones with --seed + 1, ...; actions sampled as eval samples them,
// the step's uniform draws from --seed), for tests/py/test_ppo_policy.py. Writes to DIR:
//   frames (N, 80, 80) uint8 the 80x80 frame of each step; start (N,) uint8 1 where an
//   episode starts; action (N,) int32 the env action taken; probs (N, 3) float64 the network's
//   action probabilities (NOOP, RIGHT, LEFT) on the step's input, which the player's own act
//   (ppo_agent_policy) is checked to have used (its p(RIGHT) equal to the bit).
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "algo/ppo/ppo.h"
#include "train/model.h"
#include "dump_common.h"

static void usage(const char *why) {
    fprintf(stderr,
        "ppo_dump: %s (usage: ppo_dump [--seed N] [--threads N] [--iterations N] [--coarse 0|1] "
        "[--value-hidden V] [--ent-coef X] --out DIR, "
        "or ppo_dump --model MODEL [--seed N] [--play N] --out DIR)\n",
        why);
    exit(2);
}

// --model: the model's probabilities on N steps of a game, beside the player's act.
static int play_model(const char *dir, const char *model, uint64_t seed, int steps) {
    TrainState s;
    char desc[2048], err[2048];
    if (model_load(model, ALGO_LEARNERS, &s, desc, sizeof(desc), err, sizeof(err)) ||
        (!s.learner && train_state_attach(&s, &PPO_LEARNER, err, sizeof(err))))
        dump_die("%s", err);
    // the learner's own act: it gives the network a loaded state's weights
    const AgentPolicy ap = s.learner->agent(&s, false);
    const Ppo *p = ppo_of(&s);
    static const uint8_t zeros[POLICY_D];
    DumpHeap heap = { 0 };
    uint8_t *frames = dump_alloc(&heap, (size_t)steps * POLICY_D), *start = dump_alloc(&heap, (size_t)steps);
    int32_t *action = dump_alloc(&heap, sizeof(int32_t) * (size_t)steps);
    double *probs = dump_alloc(&heap, sizeof(double) * PPO_ACTIONS * (size_t)steps);
    double *h = dump_alloc(&heap, sizeof(double) * p->net.H);
    uint16_t idx[ACNET_D + 2 * PPO_COARSE];
    int8_t sign[ACNET_D + 2 * PPO_COARSE];
    Env env;
    if (env_init(&env, s.cfg.env_id, seed) != ENV_OK) dump_die("out of memory");
    Rng rng;
    rng_seed(&rng, seed);
    start[0] = 1;
    uint64_t episode_seed = seed;
    for (int t = 0; t < steps; t++) {
        uint8_t *cur = frames + (size_t)t * POLICY_D;
        const uint8_t *prev = start[t] ? NULL : cur - POLICY_D;
        env_render_obs80(&env, cur);
        double logits[ACNET_A_MAX], logp[ACNET_A_MAX], p_up;
        const int nnz = ppo_input(cur, prev ? prev : zeros, p->cfg.coarse, idx, sign);
        acnet_forward(&p->net, (SparseX){ nnz, idx, sign }, h, logits);
        acnet_log_softmax(logits, PPO_ACTIONS, logp);
        for (int a = 0; a < PPO_ACTIONS; a++) probs[(size_t)t * PPO_ACTIONS + a] = exp(logp[a]);
        action[t] = ap.act(&ap, (SparseX){ 0, idx, sign }, cur, prev, rng_uniform(&rng), h, &p_up);
        if (p_up != probs[(size_t)t * PPO_ACTIONS + 1])
            dump_die("step %d: the player's p(RIGHT) %.17g is not the network's %.17g", t, p_up,
                probs[(size_t)t * PPO_ACTIONS + 1]);
        EnvStep st;
        env_step(&env, action[t], &st);
        if ((st.terminated || st.truncated) && t + 1 < steps) {
            env_reset(&env, ++episode_seed);
            start[t + 1] = 1;
        }
    }
    dump_save(dir, "frames", "|u1", 2, (size_t)steps, POLICY_D, frames);
    dump_save(dir, "start", "|u1", 1, (size_t)steps, 0, start);
    dump_save(dir, "action", "<i4", 1, (size_t)steps, 0, action);
    dump_save(dir, "probs", "<f8", 2, (size_t)steps, PPO_ACTIONS, probs);
    dump_free(&heap);
    train_state_free(&s);
    return 0;
}

int main(int argc, char **argv) {
    static const struct option opts[] = { { "seed", 1, 0, 's' }, { "threads", 1, 0, 't' }, { "iterations", 1, 0, 'i' },
        { "coarse", 1, 0, 'c' }, { "out", 1, 0, 'o' }, { "model", 1, 0, 'm' }, { "play", 1, 0, 'p' },
        { "value-hidden", 1, 0, 'v' }, { "ent-coef", 1, 0, 'e' }, { 0, 0, 0, 0 } };
    const char *model = NULL, *dir = NULL;
    int play = 600;
    TrainConfig c;
    train_config_fresh(&c, "ppo");
    // lr: large enough that the few iterations move the weights
    dump_settings(&c, "envs=8 steps=32 hidden=16 value_hidden=0 minibatches=2 epochs=2 lr=2.5e-3");
    int threads = 2, iterations = 6, o;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (o) {
            case 's': dump_setting(&c, "seed", optarg); break;
            case 't': threads = atoi(optarg); break;
            case 'i': iterations = atoi(optarg); break;
            case 'c': dump_setting(&c, "coarse", optarg); break;
            case 'o': dir = optarg; break;
            case 'm': model = optarg; break;
            case 'p': play = atoi(optarg); break;
            case 'v': dump_setting(&c, "value_hidden", optarg); break;
            case 'e': dump_setting(&c, "ent_coef", optarg); break;
            default: usage("bad option");
        }
    }
    if (!dir) usage("--out DIR is needed");
    if (model) {
        if (play < 1) usage("--play must be at least 1");
        return play_model(dir, model, c.seed, play);
    }
    if (threads < 1 || iterations < 0) usage("--threads or --iterations out of range");
    char err[256];
    // the pool's threads run PPO's passes (no scratch for Karpathy's network)
    Pool *pool = NULL;
    Ppo *p = ppo_create(&c, err, sizeof(err));
    if (!p) dump_die("%s", err);
    if (!(pool = pool_create(threads)) || ppo_bind(p, pool, NULL)) dump_die("out of memory");
    PpoStats st;
    for (int i = 0; i < iterations; i++)
        if (ppo_iteration(p, &st, err, sizeof(err))) dump_die("%s", err);
    const int N = c.envs, T = c.steps, B = N * T, M = B / c.minibatches, D = p->net.D;
    const size_t n = p->net.n;
    // rollouts with these weights until one holds an episode's end (GAE's cut is tested too)
    for (int tries = 0;; tries++) {
        if (ppo_collect(p)) dump_die("out of memory");
        if (p->n_ended > 0 || tries == 100) break;
    }
    ppo_advantages(p);
    DumpHeap heap = { 0 };
    double *w = dump_alloc(&heap, sizeof(double) * n), *m = dump_alloc(&heap, sizeof(double) * n),
           *v = dump_alloc(&heap, sizeof(double) * n);
    acnet_widen(&p->net, w);
    ppo_moment_widen(p, 0, m);
    ppo_moment_widen(p, 1, v);
    dump_weights(dir, "", w, m, v, n);
    int8_t *x = dump_alloc(&heap, (size_t)B * D);
    int32_t *a = dump_alloc(&heap, sizeof(int32_t) * B), *mb = dump_alloc(&heap, sizeof(int32_t) * M);
    double *g = dump_alloc(&heap, sizeof(double) * n);
    for (int s = 0; s < B; s++) {
        SparseX sx = ppo_sample_x(p, s);
        for (int k = 0; k < sx.nnz; k++) x[(size_t)s * D + sx.idx[k]] = sx.sign[k];
        a[s] = p->action[s];
    }
    dump_save(dir, "x", "|i1", 2, (size_t)B, (size_t)D, x);
    dump_save(dir, "action", "<i4", 1, (size_t)B, 0, a);
    dump_save(dir, "logp", "<f8", 1, (size_t)B, 0, p->logp);
    dump_save(dir, "value", "<f8", 1, (size_t)B, 0, p->value);
    dump_save(dir, "reward", "<f8", 1, (size_t)B, 0, p->reward);
    dump_save(dir, "done", "|u1", 1, (size_t)B, 0, p->done);
    dump_save(dir, "next_value", "<f8", 1, (size_t)N, 0, p->next_value);
    dump_save(dir, "adv", "<f8", 1, (size_t)B, 0, p->adv);
    dump_save(dir, "ret", "<f8", 1, (size_t)B, 0, p->ret);
    // a minibatch: every third sample, from the middle on (a fixed, non-contiguous choice)
    for (int i = 0; i < M; i++) mb[i] = (int32_t)((B / 2 + 3 * i) % B);
    dump_save(dir, "mb", "<i4", 1, (size_t)M, 0, mb);
    double sums[6], norm;
    const double lr = c.lr * 0.75;
    // the gradient stays in p->gw1 and p->gt after the step
    if (ppo_minibatch_update(p, mb, M, lr, sums, &norm)) dump_die("gradient diverged");
    const size_t H = (size_t)p->net.H;
    for (int r = 0; r < p->rows.n; r++) // packed: row k at k H; float32, widened
        for (size_t j = 0; j < H; j++) g[p->rows.list[r] * H + j] = p->gw1[(size_t)r * H + j];
    memcpy(g + p->net.tail, p->gt, sizeof(double) * (n - p->net.tail));
    dump_save(dir, "grad", "<f8", 1, n, 0, g);
    dump_save(dir, "stats", "<f8", 1, 5, 0, sums);
    double hyper[8] = { lr, c.gamma, c.lambda, c.clip, c.ent_coef, c.vf_coef, c.max_grad_norm, norm };
    dump_save(dir, "hyper", "<f8", 1, 8, 0, hyper);
    double dims[6] = { D, (double)H, PPO_ACTIONS, (double)p->adam_t, M, p->net.Hv };
    dump_save(dir, "shape", "<f8", 1, 6, 0, dims);
    acnet_widen(&p->net, w);
    ppo_moment_widen(p, 0, m);
    ppo_moment_widen(p, 1, v);
    dump_weights(dir, "_new", w, m, v, n);
    dump_free(&heap);
    ppo_destroy(p);
    pool_destroy(pool);
    return 0;
}
