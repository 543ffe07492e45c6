// test_qrdqn.c: QR-DQN's checkpoint gives back every setting and every bit of its arrays (the
// weights, the target, Adam's moments, the replay memory, the envs), and its state resumes: a
// run saved, loaded and attached plays its next iteration to the same bits as the run that went
// on; every prefix of the file and single-byte changes across it are refused, never a crash
// (this binary runs under ASan+UBSan). The replay memory drops a slot when its ring passes it or
// when the pixel pool overwrites its pixels, and gives back each kept frame.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_files.h"
#include "algo/qrdqn/qrdqn.h"
#include "train/checkpoint.h"
#include "train/comm.h"

static void qr_run_config(TrainConfig *c) {
    train_config_fresh(c, "qrdqn");
    c->envs = 3;
    c->steps = 40;
    c->hidden = 4;
    c->quantiles = 4;
    c->minibatch = 4;
    c->learn_start = 60;
    c->update_every = 2;
    c->replay = 100;
    c->target_every = 7;
    c->eps_steps = 100;
    c->seed = 8;
    c->workers = 2;
}

static void iterate(TrainState *s, Pool *pool, Comm *comm) {
    LearnerBatch lb = { 0 };
    char err[256];
    cr_assert_eq(s->learner->iterate(s, pool, comm, &lb, err, sizeof(err)), 0, "%s", err);
    s->iteration++;
    s->agent_steps += lb.steps;
}

Test(qrdqn, checkpoint_round_trip_and_resume) {
    TrainConfig c;
    qr_run_config(&c);
    TrainState a, b;
    cr_assert_eq(train_state_init(&a, &c, &QRDQN_LEARNER), 0);
    Pool *pool = pool_create(2);
    Comm *comm = comm_local_create();
    cr_assert(pool && comm);
    iterate(&a, pool, comm);
    iterate(&a, pool, comm);
    train_state_settle(&a);
    char path[] = "/tmp/pongrl-qrdqn-ckpt-XXXXXX";
    close(mkstemp(path));
    char err[512];
    cr_assert_eq(checkpoint_write(path, &a, 0, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(checkpoint_load(path, &b, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(b.cfg.algo, "qrdqn");
    cr_assert_eq(b.cfg.envs, 3);
    cr_assert_eq(b.cfg.quantiles, 4);
    cr_assert_eq(b.cfg.replay, 100);
    cr_assert_eq(b.cfg.target_every, 7);
    cr_assert_eq(b.cfg.nstep, a.cfg.nstep);
    cr_assert_eq(b.cfg.adam_eps, a.cfg.adam_eps);
    cr_assert_eq(b.agent_steps, 240);
    b.cfg.workers = 1;
    cr_assert_eq(train_state_attach(&b, &QRDQN_LEARNER, err, sizeof(err)), 0, "%s", err);
    LearnerArray la[LEARNER_ARRAYS_MAX], lb[LEARNER_ARRAYS_MAX];
    int na = train_state_arrays(&a, la), nb = train_state_arrays(&b, lb);
    cr_assert_eq(na, 6);
    cr_assert_eq(nb, 6);
    for (int k = 0; k < na; k++) {
        cr_assert_str_eq(la[k].name, lb[k].name);
        cr_assert_eq(la[k].n, lb[k].n);
        cr_assert_eq(memcmp(la[k].data, lb[k].data, la[k].n * sizeof(double)), 0, "array %s", la[k].name);
    }
    // the next iteration, from the loaded state on one thread, equals the saved run's on two
    Pool *pool1 = pool_create(1);
    iterate(&a, pool, comm);
    iterate(&b, pool1, comm);
    size_t n = 0;
    const double *wa = QRDQN_LEARNER.weights(&a, &n), *wb = QRDQN_LEARNER.weights(&b, &n);
    cr_assert_eq(memcmp(wa, wb, n * sizeof(double)), 0, "the resumed iteration differs");

    size_t len;
    uint8_t *buf = read_all(path, &len);
    TrainState t;
    for (size_t cut = 0; cut < len; cut += cut < 400 ? 1 : 4099)
        cr_assert_neq(checkpoint_parse(buf, cut, true, &t, NULL, err, sizeof(err)), 0, "prefix %zu loaded", cut);
    for (size_t at = 8; at < len; at += at < 400 ? 1 : 997) {
        buf[at] ^= 0x5a;
        cr_assert_neq(checkpoint_parse(buf, len, true, &t, NULL, err, sizeof(err)), 0, "byte %zu changed, loaded", at);
        if (checkpoint_parse(buf, len, false, &t, NULL, err, sizeof(err)) == 0) train_state_free(&t);
        buf[at] ^= 0x5a;
    }
    cr_assert_eq(checkpoint_parse(buf, len, true, &t, NULL, err, sizeof(err)), 0, "%s", err);
    train_state_free(&t);
    free(buf);
    unlink(path);
    pool_destroy(pool);
    pool_destroy(pool1);
    comm->destroy(comm);
    train_state_free(&a);
    train_state_free(&b);
}

Test(qrdqn, replay_keeps_what_its_rings_hold) {
    QrReplay r;
    cr_assert_eq(qr_replay_alloc(&r, 10), 0); // 10 slots, 640 pixels
    uint8_t f[POLICY_D], g[POLICY_D];
    QrStep st = { 0 };
    for (int k = 0; k < 25; k++) {
        memset(f, 0, sizeof(f));
        for (int p = 0; p < 5 + k; p++) f[(p * 97 + k) % POLICY_D] = 1;
        st.action = (uint8_t)(k % QR_ACTIONS);
        st.reward = (int8_t)(k % 3 - 1);
        qr_replay_put(&r, f, &st);
        cr_assert_eq(r.total, k + 1);
        cr_assert_geq(r.oldest, r.total - 10, "slot %lld kept past the ring", (long long)r.oldest);
        cr_assert_geq(
            r.off[r.oldest % r.cap] + r.pool_cap, r.pool_total, "slot %lld's pixels overwritten", (long long)r.oldest);
        qr_replay_frame(&r, k, g);
        cr_assert_eq(memcmp(f, g, POLICY_D), 0, "slot %d's frame", k);
    }
    // 25 frames of 5 + k pixels, 425 in all, fit the pool of 640: the ring of 10 slots binds
    cr_assert_eq(r.oldest, 15);
    // a save loads back, and a pixel index out of the grid is refused
    double *d = malloc(sizeof(double) * qr_replay_doubles(&r));
    qr_replay_save(&r, d);
    QrReplay q;
    cr_assert_eq(qr_replay_alloc(&q, 10), 0);
    cr_assert_eq(qr_replay_load(&q, d), 0);
    cr_assert_eq(q.total, 25);
    qr_replay_frame(&q, 24, g);
    cr_assert_eq(memcmp(f, g, POLICY_D), 0);
    d[qr_replay_doubles(&r) - 1] = 6400.0;
    cr_assert_neq(qr_replay_load(&q, d), 0);
    free(d);
    qr_replay_free(&q);
    // a pool that binds: frames of 200 pixels in a pool of 640 keep three slots
    qr_replay_free(&r);
    cr_assert_eq(qr_replay_alloc(&r, 10), 0);
    memset(f, 0, sizeof(f));
    for (int p = 0; p < 200; p++) f[p * 31] = 1;
    for (int k = 0; k < 8; k++) qr_replay_put(&r, f, &st);
    cr_assert_eq(r.total - r.oldest, 3);
    qr_replay_free(&r);
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
