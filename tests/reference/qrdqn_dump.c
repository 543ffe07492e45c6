// qrdqn_dump.c: build/qrdqn_dump, test support (not part of the product binary): one QR-DQN
// update exported as .npy for the NumPy reference (tests/py/test_qrdqn_reference.py).
//
//   build/qrdqn_dump [--seed N] [--iterations N (12)] [--nstep N (3)] --out DIR
//
// A small learner (4 envs x 100 steps an iteration, H = 16, N = 8 quantiles, minibatch 32, an
// update every 2 agent steps after 200) trains for --iterations iterations (so that Adam's
// moments are not zero and the replay memory holds episode ends), then takes one more update:
// the first one on whose minibatch a reward, an episode's end and an episode's first frame fall.
// Writes to DIR:
//   w, target, m, v (n,) the weights, target network and Adam moments before the update;
//   w_new, m_new, v_new (n,) after it; shape (6,) int32: D, H, A, N, nstep, t (Adam's step);
//   hyper (5,): gamma, lr, adam eps, kappa, the update's mean loss;
//   action (B,) int32; reward, flags (B, nstep) int32 the window of rewards and flags (1: the
//   episode ended, 2: an episode's first frame) from each sampled slot on;
//   frames (B, 4, 80, 80) uint8: the state's frame and previous frame (zeros at an episode's
//   start), and those of the state nstep steps on.
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/qrdqn/qrdqn.h"
#include "train/config.h"
#include "train/pool.h"
#include "dump_common.h"

// slot k's frame and its previous frame (zeros at an episode's start) into out (2 x 6400)
static void state_frames(const Qr *q, int64_t k, uint8_t *out) {
    replay_frame(&q->mem, k, out);
    if (q->mem.flags[(size_t)(k % q->mem.cap)] & REPLAY_START)
        memset(out + POLICY_D, 0, POLICY_D);
    else
        replay_frame(&q->mem, k - q->cfg.envs, out + POLICY_D);
}

int main(int argc, char **argv) {
    TrainConfig c;
    train_config_fresh(&c, "qrdqn");
    dump_settings(&c,
        "envs=4 steps=100 hidden=16 quantiles=8 minibatch=32 update_every=2 learn_start=200 replay=6000 "
        "eps_steps=500 target_every=50 lr=1e-3");
    const char *dir = NULL;
    int iterations = 12;
    static const struct option opts[] = { { "seed", 1, 0, 's' }, { "iterations", 1, 0, 'i' }, { "nstep", 1, 0, 'n' },
        { "out", 1, 0, 'o' }, { 0, 0, 0, 0 } };
    for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        if (o == 's')
            dump_setting(&c, "seed", optarg);
        else if (o == 'i')
            iterations = atoi(optarg);
        else if (o == 'n')
            dump_setting(&c, "nstep", optarg);
        else if (o == 'o')
            dir = optarg;
        else {
            fprintf(stderr, "usage: qrdqn_dump [--seed N] [--iterations N] [--nstep N] --out DIR\n");
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "qrdqn_dump: --out DIR is required\n");
        return 2;
    }
    const int nstep = c.nstep;
    DumpHeap heap = { 0 };
    char err[256];
    Qr *q = qr_create(&c, err, sizeof(err));
    Pool *pool = pool_create(1);
    if (!q || !pool || qr_bind(q, pool, NULL)) dump_die("%s", q ? "out of memory" : err);
    for (int i = 0; i < iterations; i++) {
        q->iteration = i;
        if (qr_iteration(q, err, sizeof(err))) dump_die("%s", err);
    }
    const size_t n = q->sh.n;
    const int B = c.minibatch;
    // an update (Adam's step u) whose minibatch holds a reward, an episode's end and an episode's
    // first frame within its windows, and whose target is not copied after it (w_new alone)
    int64_t u = qr_updates_at(&c, q->agent_steps);
    int64_t *slots = dump_alloc(&heap, sizeof(int64_t) * (size_t)c.minibatch);
    for (int seen = 0; seen != 7;) {
        if (++u % c.target_every == 0 || !qr_draw(q, u, slots)) continue;
        seen = 0;
        for (int b = 0; b < c.minibatch; b++)
            for (int m = 0; m <= nstep; m++) {
                const size_t s = (size_t)((slots[b] + (int64_t)m * c.envs) % q->mem.cap);
                seen |= (m < nstep && q->mem.reward[s] ? 1 : 0) |
                    (m < nstep && (q->mem.flags[s] & REPLAY_DONE) ? 2 : 0) | (q->mem.flags[s] & REPLAY_START ? 4 : 0);
            }
    }
    dump_weights(dir, "", q->w, q->adam_m, q->adam_v, n);
    dump_save(dir, "target", "<f8", 1, n, 0, q->target);
    q->stats.loss = 0.0;
    if (!qr_update(q, u)) dump_die("the replay memory holds nothing to draw");
    dump_weights(dir, "_new", q->w, q->adam_m, q->adam_v, n);
    const int32_t shape[6] = { q->sh.D, q->sh.H, q->sh.A, q->sh.N, nstep, (int32_t)u };
    dump_save(dir, "shape", "<i4", 1, 6, 0, shape);
    const double hyper[5] = { c.gamma, c.lr, c.adam_eps, QR_KAPPA, q->stats.loss };
    dump_save(dir, "hyper", "<f8", 1, 5, 0, hyper);
    int32_t *action = dump_alloc(&heap, sizeof(int32_t) * (size_t)B);
    int32_t *reward = dump_alloc(&heap, sizeof(int32_t) * (size_t)B * nstep);
    int32_t *flags = dump_alloc(&heap, sizeof(int32_t) * (size_t)B * nstep);
    uint8_t *frames = dump_alloc(&heap, (size_t)B * 4 * POLICY_D);
    for (int b = 0; b < B; b++) {
        const int64_t k = q->batch[b];
        action[b] = q->mem.action[(size_t)(k % q->mem.cap)];
        for (int m = 0; m < nstep; m++) {
            const size_t s = (size_t)((k + (int64_t)m * c.envs) % q->mem.cap);
            reward[b * nstep + m] = q->mem.reward[s];
            flags[b * nstep + m] = q->mem.flags[s];
        }
        state_frames(q, k, frames + (size_t)b * 4 * POLICY_D);
        state_frames(q, k + (int64_t)nstep * c.envs, frames + ((size_t)b * 4 + 2) * POLICY_D);
    }
    dump_save(dir, "action", "<i4", 1, (size_t)B, 0, action);
    dump_save(dir, "reward", "<i4", 2, (size_t)B, (size_t)nstep, reward);
    dump_save(dir, "flags", "<i4", 2, (size_t)B, (size_t)nstep, flags);
    dump_save(dir, "frames", "|u1", 2, (size_t)B * 4, POLICY_D, frames);
    dump_free(&heap);
    pool_destroy(pool);
    qr_destroy(q);
    return 0;
}
