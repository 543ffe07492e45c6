// test_learner_common.h: what every learner's unit tests check of its checkpoint (not a test
// itself), and the small run they check it on (settings as text, through the settings table):
// a run saved after two iterations loads back with every setting, its counters and every bit
// of its arrays; attached on one thread it plays its next iteration to the bits of the saved run
// on two; every prefix of the file and single-byte changes across it are refused (by the CRC) or,
// with the CRC not checked, refused or loaded, never a crash (the binary runs under ASan+UBSan).
#ifndef PONGRL_TEST_LEARNER_COMMON_H
#define PONGRL_TEST_LEARNER_COMMON_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_files.h"
#include "train/checkpoint.h"
#include "train/comm.h"
#include "train/config.h"

// A small run of the learner `algo`: its fresh settings, seed 8 and two workers, then `settings`
// ("name=value name=value", config.txt's names and values, read as a checkpoint's are).
static inline void learner_run_config(TrainConfig *c, const char *algo, const char *settings) {
    train_config_fresh(c, algo);
    char text[512], why[256];
    snprintf(text, sizeof(text), "seed=8 workers=2 %s ", settings);
    for (char *sp = text; (sp = strchr(sp, ' '));) *sp = '\n'; // train_config_read's lines
    const int roles = SETTING_RUN | SETTING_GOAL | SETTING_HOST;
    cr_assert_null(train_config_read(c, text, strlen(text), roles, why, sizeof(why)), "%s", why);
}

// Whether a and b hold the same value, to the bit, of every setting a checkpoint keeps.
static inline void learner_same_settings(const TrainConfig *a, const TrainConfig *b) {
    const int saved = SETTING_RUN | SETTING_GOAL;
    const size_t n = train_config_write(a, saved, NULL, 0);
    char *ta = malloc(n + 1), *tb = malloc(n + 1);
    cr_assert(ta && tb);
    train_config_write(a, saved, ta, n + 1);
    cr_assert_eq(train_config_write(b, saved, tb, n + 1), n, "the settings' text differs in length:\n%s", ta);
    cr_assert_str_eq(tb, ta);
    free(ta);
    free(tb);
}

// One iteration of s, and the counters the loop moves after it.
static inline void learner_iterate(TrainState *s, Pool *pool, Comm *comm) {
    LearnerBatch lb = { 0 };
    char err[256];
    cr_assert_eq(s->learner->iterate(s, pool, comm, &lb, err, sizeof(err)), 0, "%s", err);
    s->iteration++;
    s->agent_steps += lb.steps;
}

// A run of l with settings c (workers 2), two iterations, saved, loaded with every setting, and
// resumed; the run has `arrays` arrays.
static inline void learner_checkpoint_round_trip(const TrainConfig *c, const Learner *l, int arrays) {
    TrainState a, b;
    cr_assert_eq(train_state_init(&a, c, l), 0);
    Pool *pool = pool_create(2);
    Comm *comm = comm_local_create();
    cr_assert(pool && comm);
    learner_iterate(&a, pool, comm);
    learner_iterate(&a, pool, comm);
    train_state_settle(&a);
    char path[] = "/tmp/pongrl-ckpt-XXXXXX";
    close(mkstemp(path));
    char err[512];
    cr_assert_eq(checkpoint_write(path, &a, 0, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(checkpoint_load(path, &b, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(b.cfg.algo, l->name);
    learner_same_settings(&a.cfg, &b.cfg);
    cr_assert_eq(b.iteration, 2);
    cr_assert_eq(b.agent_steps, 2 * (int64_t)c->envs * c->steps);
    b.cfg.workers = 1;
    cr_assert_eq(train_state_attach(&b, l, err, sizeof(err)), 0, "%s", err);
    LearnerArray la[LEARNER_ARRAYS_MAX], lb[LEARNER_ARRAYS_MAX];
    int na = train_state_arrays(&a, la), nb = train_state_arrays(&b, lb);
    cr_assert_eq(na, arrays);
    cr_assert_eq(nb, arrays);
    for (int k = 0; k < na; k++) {
        cr_assert_str_eq(la[k].name, lb[k].name);
        cr_assert_eq(la[k].n, lb[k].n);
        cr_assert_eq(memcmp(la[k].data, lb[k].data, la[k].n * sizeof(double)), 0, "array %s", la[k].name);
    }
    // the next iteration, from the loaded state on one thread, equals the saved run's on two
    Pool *pool1 = pool_create(1);
    learner_iterate(&a, pool, comm);
    learner_iterate(&b, pool1, comm);
    size_t n = 0;
    const double *wa = l->weights(&a, &n), *wb = l->weights(&b, &n);
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

#endif
