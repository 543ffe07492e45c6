// test_ppo.c: PPO's checkpoint (format version 4) gives back every setting and every bit of
// its arrays, and its state resumes; every prefix and single-byte changes are refused
// (test_learner_common.h, the checks every learner's checkpoint passes). A PPO run
// has no pg network; a version 2 file, which carried an unused one, still loads and drops it;
// a file's float64 W1 and moments are rounded to float32 as the run takes them.
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_learner_common.h"
#include "test_legacy.h"
#include "algo/ppo/ppo.h"
#include "algo/learner_util.h"
#include "algo/ppo/ppo_parts.h"
#include "train/checkpoint.h"
#include "train/comm.h"
#include "util/crc.h"

static void ppo_run_config(TrainConfig *c) {
    learner_run_config(c, "ppo", "envs=3 steps=40 hidden=4 minibatches=2 epochs=1 coarse=1");
}

Test(ppo, checkpoint_round_trip_and_resume) {
    TrainConfig c;
    ppo_run_config(&c);
    learner_checkpoint_round_trip(&c, &PPO_LEARNER, 4);
}

// A version 2 PPO checkpoint carried Karpathy's network (H = hidden) before its arrays, unused:
// it loads, and the block is dropped as PPO takes its arrays. Version 3 wrote none (D = H = n =
// 0); a version 2 file without it was never written: refused.
Test(ppo, version_2_checkpoint_with_the_unused_seeds_network_loads) {
    TrainConfig c;
    ppo_run_config(&c);
    TrainState a, b, t;
    cr_assert_eq(train_state_init(&a, &c, &PPO_LEARNER), 0);
    LearnerArray la[LEARNER_ARRAYS_MAX], lb[LEARNER_ARRAYS_MAX];
    const int na = train_state_arrays(&a, la);
    for (size_t i = 0; i < la[0].n; i += 5) la[0].data[i] += 0.125; // weights unlike a fresh run's
    const size_t n = (size_t)POLICY_D * c.hidden + c.hidden;
    double *w = malloc(8 * n);
    for (size_t i = 0; i < n; i++) w[i] = 0.25;
    size_t len;
    uint8_t *buf = legacy_checkpoint(&a, 2, w, c.hidden, la, na, &len);
    char err[512];
    cr_assert_eq(checkpoint_parse(buf, len, true, &b, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(b.saved.count, na + 1);
    cr_assert_str_eq(b.saved.name[0], "weights");
    cr_assert_eq(train_state_attach(&b, &PPO_LEARNER, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(train_state_arrays(&b, lb), na);
    for (int k = 0; k < na; k++)
        cr_assert_eq(memcmp(la[k].data, lb[k].data, la[k].n * sizeof(double)), 0, "array %s", la[k].name);
    free(buf);
    buf = legacy_checkpoint(&a, 3, NULL, 0, la, na, &len);
    cr_assert_eq(checkpoint_parse(buf, len, true, &t, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(t.saved.count, na);
    cr_assert_eq(train_state_attach(&t, &PPO_LEARNER, err, sizeof(err)), 0, "%s", err);
    train_state_free(&t);
    buf[8] = 2;
    legacy_recrc(buf, len);
    cr_assert_neq(checkpoint_parse(buf, len, true, &t, NULL, err, sizeof(err)), 0);
    cr_assert(strstr(err, "wrong shape"), "%s", err);
    free(buf);
    free(w);
    train_state_free(&a);
    train_state_free(&b);
}

// W1 and its Adam moments are float32 in the run, float64 in the checkpoint (widened, exact). A
// checkpoint whose W1 and moments are not float32 numbers (an older build's) loads, and the
// run takes them rounded to nearest; the tail stays as it was. A W1 entry past float32's range
// is refused in one line by the iteration that would take it.
Test(ppo, float64_checkpoint_arrays_are_rounded_to_float32_as_the_run_takes_them) {
    TrainConfig c;
    ppo_run_config(&c);
    TrainState a, b;
    cr_assert_eq(train_state_init(&a, &c, &PPO_LEARNER), 0);
    LearnerArray la[LEARNER_ARRAYS_MAX];
    cr_assert_eq(train_state_arrays(&a, la), 4);
    const size_t tail = ppo_of(&a)->net.tail, n = ppo_of(&a)->net.n;
    size_t inexact = 0; // a fresh run holds the float64 draws: older checkpoints are stored against them
    for (size_t k = 0; k < tail; k++) inexact += (double)(float)la[0].data[k] != la[0].data[k];
    cr_assert_gt(inexact, tail / 2, "the fresh weights are not the float64 draws");
    for (size_t k = 0; k < n; k++) {
        la[0].data[k] += 1e-9 * (double)(k % 7);
        la[1].data[k] = 1e-3 / (double)(k + 3);
        la[2].data[k] = 1e-6 / (double)(k + 5);
    }
    char path[] = "/tmp/pongrl-ppo32-XXXXXX", err[512];
    close(mkstemp(path));
    cr_assert_eq(checkpoint_write(path, &a, 0, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(checkpoint_load(path, &b, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(train_state_attach(&b, &PPO_LEARNER, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(learner_box_begin(&b, 0, err, sizeof(err)), 0, "%s", err); // what an iteration's start takes
    const Ppo *p = ppo_of(&b);
    for (size_t k = 0; k < tail; k++) {
        cr_assert_eq(p->net.w1[k], (float)la[0].data[k], "W1 entry %zu", k);
        cr_assert_eq(p->adam_m[k], (float)la[1].data[k], "m entry %zu", k);
        cr_assert_eq(p->adam_v[k], (float)la[2].data[k], "v entry %zu", k);
    }
    for (size_t k = tail; k < n; k++) {
        cr_assert_eq(p->net.t[k - tail], la[0].data[k], "tail entry %zu", k - tail);
        cr_assert_eq(p->adam_mt[k - tail], la[1].data[k]);
        cr_assert_eq(p->adam_vt[k - tail], la[2].data[k]);
    }
    size_t wn;
    const double *w = train_state_weights(&b, &wn); // the run's weights, widened
    cr_assert_eq(wn, n);
    for (size_t k = 0; k < tail; k++) cr_assert_eq(w[k], (double)(float)la[0].data[k]);
    train_state_free(&b);

    la[0].data[5] = 1e39; // finite as a float64, infinite as a float32
    cr_assert_eq(checkpoint_write(path, &a, 0, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(checkpoint_load(path, &b, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(train_state_attach(&b, &PPO_LEARNER, err, sizeof(err)), 0, "%s", err);
    Pool *pool = pool_create(1);
    Comm *comm = comm_local_create();
    LearnerBatch lb = { 0 };
    cr_assert_neq(b.learner->iterate(&b, pool, comm, &lb, err, sizeof(err)), 0);
    cr_assert(strstr(err, "PPO weights hold a W1 entry past float32's range"), "%s", err);
    pool_destroy(pool);
    comm->destroy(comm);
    unlink(path);
    train_state_free(&a);
    train_state_free(&b);
}

// Adam's step count is the iteration times epochs times minibatches: an iteration count where
// that passes 2^63 (within what a checkpoint may say, with many minibatches) is refused in one
// line, not multiplied.
Test(ppo, an_iteration_whose_adam_step_count_overflows_is_refused) {
    TrainConfig c;
    ppo_run_config(&c);
    c.minibatches = 16;
    c.epochs = 1000; // 16,000 steps an iteration: 2^50 of them pass 2^63
    TrainState s;
    cr_assert_eq(train_state_init(&s, &c, &PPO_LEARNER), 0);
    s.iteration = CKPT_COUNTER_MAX;
    Pool *pool = pool_create(1);
    Comm *comm = comm_local_create();
    LearnerBatch lb = { 0 };
    char err[256] = "";
    cr_assert_neq(s.learner->iterate(&s, pool, comm, &lb, err, sizeof(err)), 0);
    cr_assert(strstr(err, "Adam's step count would pass 2^63"), "%s", err);
    pool_destroy(pool);
    comm->destroy(comm);
    train_state_free(&s);
}

Test(settings, defaults_per_learner_and_one_range) {
    TrainConfig c;
    char text[TRAIN_STR_MAX], why[128];
    static const char *const algos[] = { "pg", "ppo" };
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        if (row->offset == offsetof(TrainConfig, workers)) continue; // one per core at run time
        train_config_default(&c);
        cr_assert_null(train_setting_set(row, &c, row->before[0] ? row->before : row->def, why, sizeof(why)), "%s: %s",
            row->name, why);
        for (size_t k = 0; k < sizeof(algos) / sizeof(algos[0]); k++)
            cr_assert_null(
                train_setting_set(row, &c, train_setting_default(row, algos[k], text, sizeof(text)), why, sizeof(why)),
                "%s of %s: %s", row->name, algos[k], why);
    }
    train_config_fresh(&c, "ppo");
    cr_assert_str_eq(c.algo, "ppo");
    cr_assert_eq(c.hidden, 128);
    cr_assert_eq(c.lr, 1e-3);
    cr_assert_eq(c.value_hidden, -1);
    cr_assert_eq(c.envs, 32);
    cr_assert_eq(c.anneal_steps, 14000000);
    cr_assert_null(train_config_check(&c, why, sizeof(why)), "%s", why);
    cr_assert_null(PPO_LEARNER.check(&c));
    train_config_fresh(&c, "pg");
    cr_assert_eq(c.hidden, 200);
    cr_assert_eq(c.lr, 1e-4);
    cr_assert_eq(c.batch_size, 10);
    train_config_default(&c); // what a file without the rows had
    cr_assert_str_eq(c.algo, "pg");
    cr_assert_eq(c.hidden, 200);
    cr_assert_eq(c.value_hidden, 0);

    train_config_fresh(&c, "ppo");
    c.hidden = 0;
    cr_assert_str_eq(train_config_check(&c, why, sizeof(why)), "--hidden must be in [1, 100000], got 0");
    char err[256];
    cr_assert_null(ppo_create(&c, err, sizeof(err)));
    cr_assert_str_eq(err, "--hidden must be in [1, 100000], got 0");
    c.hidden = 8;
    c.value_hidden = 8; // in its range, but leaves the policy no unit
    cr_assert_null(ppo_create(&c, err, sizeof(err)));
    cr_assert(strstr(err, "--value-hidden must be less than --hidden"), "%s", err);
    c.value_hidden = -1;
    c.lr = 2;
    cr_assert_str_eq(train_config_check(&c, why, sizeof(why)), "--lr must be in [0, 1], got 2");
}

// Each thread writes its hidden layer once per input row of every forward pass: a cache line
// it shared with another thread's scratch would bounce between the cores (malloc had placed
// two threads' hidden layers back to back), so no MEM_PAD block holds two threads' scratch.
Test(ppo, threads_scratch_shares_no_cache_line_between_threads) {
    TrainConfig c;
    ppo_run_config(&c); // H = 4: 32 bytes, less than a line
    char err[256] = "";
    Ppo *p = ppo_create(&c, err, sizeof(err));
    cr_assert_not_null(p, "%s", err);
    Pool *pool = pool_create(3);
    cr_assert_eq(ppo_bind(p, pool, NULL), 0);
    cr_assert_geq(p->threads, 2);
    const size_t h_bytes = sizeof(double) * (size_t)p->net.H, gt_bytes = sizeof(double) * (p->net.n - p->net.tail);
    for (int i = 0; i < p->threads; i++) {
        const uintptr_t h = (uintptr_t)p->th[i].h, gt = (uintptr_t)p->th[i].gt;
        cr_assert_eq(h % MEM_PAD, 0, "thread %d's hidden layer at %#lx", i, (unsigned long)h);
        cr_assert_eq(gt % MEM_PAD, 0, "thread %d's tail gradient at %#lx", i, (unsigned long)gt);
        for (int j = 0; j < p->threads; j++) {
            if (j == i) continue;
            // the MEM_PAD blocks of thread i's scratch and of thread j's
            const uintptr_t hj = (uintptr_t)p->th[j].h, gtj = (uintptr_t)p->th[j].gt;
            const uintptr_t a[2][2] = { { h / MEM_PAD, (h + h_bytes - 1) / MEM_PAD },
                { gt / MEM_PAD, (gt + gt_bytes - 1) / MEM_PAD } };
            const uintptr_t b[2][2] = { { hj / MEM_PAD, (hj + h_bytes - 1) / MEM_PAD },
                { gtj / MEM_PAD, (gtj + gt_bytes - 1) / MEM_PAD } };
            for (int x = 0; x < 2; x++)
                for (int y = 0; y < 2; y++)
                    cr_assert(a[x][1] < b[y][0] || b[y][1] < a[x][0], "threads %d and %d share a block", i, j);
        }
    }
    pool_destroy(pool);
    ppo_destroy(p);
}

// The learners' rows gathered from their folders: a learner's SETTING_USE rows start a shared
// setting otherwise (qrdqn's --envs 16) or give it a "+" row (--envs: not pg's); a retired
// setting in a file is skipped (older runs' chunk=), an unknown one refused.
Test(settings, learners_rows_uses_and_retired) {
    const TrainSetting *envs = train_setting_find("envs"), *epochs = train_setting_find("epochs");
    cr_assert(envs && epochs);
    cr_assert(train_setting_of(envs, "ppo") && train_setting_of(envs, "qrdqn"));
    cr_assert(!train_setting_of(envs, "pg") && !train_setting_of(envs, ""));
    cr_assert(train_setting_of(epochs, "ppo") && !train_setting_of(epochs, "qrdqn"));
    char of[64], text[TRAIN_STR_MAX], why[128];
    cr_assert_str_eq(train_setting_learners(envs, " or --algo ", of, sizeof(of)), "ppo or --algo qrdqn");
    cr_assert_str_eq(train_setting_learners(epochs, " or --algo ", of, sizeof(of)), "ppo");
    cr_assert_str_eq(train_setting_default(envs, "qrdqn", text, sizeof(text)), "16");
    cr_assert_str_eq(train_setting_default(envs, "ppo", text, sizeof(text)), "32");
    cr_assert_str_eq(train_setting_default(train_setting_find("hidden"), "qrdqn", text, sizeof(text)), "256");
    cr_assert_null(train_setting_find("chunk"));
    TrainConfig c;
    train_config_fresh(&c, "ppo");
    static const char old[] = "algo=ppo\nchunk=256\nepochs=3\n";
    cr_assert_null(train_config_read(&c, old, strlen(old), SETTING_RUN, why, sizeof(why)), "%s", why);
    cr_assert_eq(c.epochs, 3);
    static const char bad[] = "algo=ppo\nchunks=256\n";
    cr_assert_str_eq(
        train_config_read(&c, bad, strlen(bad), SETTING_RUN, why, sizeof(why)), "unknown setting 'chunks'");
}
