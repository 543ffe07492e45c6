// test_update.c: Karpathy's learner's RMSProp step over the touched rows (algo/pg.h) against
// Karpathy's dense step.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train/checkpoint.h"
#include "algo/pg/pg.h"
#include "util/rng.h"
#include "util/rowset.h"

// The learner updates only the rows a batch touched and owes the others their cache decays
// (pg_update, train_state_settle): after many batches of scattered rows, weights and
// cache must be the dense update's, bit for bit, and a checkpoint refuses an unsettled cache.
Test(update, deferred_update_is_the_dense_update_bit_for_bit) {
    TrainConfig c;
    train_config_default(&c);
    c.hidden = 5;
    c.lr = 1e-2;
    TrainState s;
    cr_assert_eq(train_state_init(&s, &c, &PG_LEARNER), 0);
    const double *s_cache = pg_state(&s)->cache;
    const Policy *net = &pg_state(&s)->net;
    const size_t n = net->n, H = 5, D = POLICY_D;
    double *w = malloc(n * sizeof(double)), *cache = calloc(n, sizeof(double)), *g = calloc(n, sizeof(double));
    double *packed = calloc(n, sizeof(double)); // as Comm.reduce() gives it
    memcpy(w, net->w, n * sizeof(double));
    RowSet rows;
    cr_assert_eq(rowset_alloc(&rows, (int)D), 0);
    Rng rng;
    rng_seed(&rng, 11);
    for (int it = 0; it < 60; it++) {
        memset(g, 0, n * sizeof(double));
        rowset_clear(&rows);
        int touched = (int)(rng_next(&rng) % 400); // a few rows, some touched again later
        for (int k = 0; k < touched; k++) {
            int i = (int)(rng_next(&rng) % 600);
            rowset_add(&rows, i);
            for (size_t j = 0; j < H; j++) g[i * H + j] = rng_normal(&rng) * 1e-2;
        }
        for (size_t j = 0; j < H; j++) g[D * H + j] = rng_normal(&rng);
        rmsprop_update(w, cache, g, n, c.lr, c.decay); // Karpathy's dense step
        for (int k = 0; k <= rows.n; k++)
            memcpy(packed + k * H, g + (k < rows.n ? rows.list[k] : D) * H, H * sizeof(double));
        pg_update(&s, packed, &rows);
        s.iteration++;
        if (it == 30) { // a checkpoint mid-run settles
            cr_expect(!train_state_settled(&s));
            char path[] = "/tmp/pongrl-defer-XXXXXX", err[256];
            close(mkstemp(path));
            cr_expect_eq(checkpoint_write(path, &s, 0, err, sizeof(err)), -1, "an unsettled cache was written");
            cr_expect(strstr(err, "not settled") != NULL, "%s", err);
            train_state_settle(&s);
            cr_expect(train_state_settled(&s));
            cr_expect_eq(memcmp(cache, s_cache, n * sizeof(double)), 0, "settled cache differs at 30");
            cr_expect_eq(checkpoint_write(path, &s, 0, err, sizeof(err)), 0, "%s", err);
            unlink(path);
        }
    }
    cr_expect_eq(memcmp(w, net->w, n * sizeof(double)), 0, "weights differ from the dense update");
    cr_expect_neq(memcmp(cache, s_cache, n * sizeof(double)), 0, "nothing was deferred: the test tests nothing");
    train_state_settle(&s);
    cr_expect_eq(memcmp(cache, s_cache, n * sizeof(double)), 0, "settled cache differs from the dense update");
    rowset_free(&rows);
    free(w);
    free(cache);
    free(g);
    free(packed);
    train_state_free(&s);
}
