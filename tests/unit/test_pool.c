// test_pool.c: the worker pool (train/pool.h) and the set of touched rows it keeps per thread
// (util/rowset.h).
#include <criterion/criterion.h>
#include <stdatomic.h>

#include "train/pool.h"
#include "util/rowset.h"

// Members in the order they joined, marks kept, a clear that costs the members and leaves the
// set empty for the next batch.
Test(rowset, add_mark_clear) {
    RowSet r;
    cr_assert_eq(rowset_alloc(&r, 6400), 0);
    cr_expect(rowset_add(&r, 7));
    cr_expect(!rowset_add(&r, 7), "a member added twice");
    cr_expect(rowset_add_marked(&r, 6399, 2));
    cr_expect(!rowset_add_marked(&r, 7, 2), "a member's mark was overwritten");
    cr_expect_eq(r.n, 2);
    cr_expect_eq(r.list[0], 7); cr_expect_eq(r.list[1], 6399);
    cr_expect_eq(r.in[7], 1); cr_expect_eq(r.in[6399], 2);
    rowset_clear(&r);
    cr_expect_eq(r.n, 0);
    for (int i = 0; i < 6400; i++) cr_expect(!rowset_has(&r, i), "row %d left after clear", i);
    rowset_free(&r);
    RowSet big;
    cr_expect_eq(rowset_alloc(&big, 65537), -1, "rows past uint16_t accepted");
}

// pool_for: every part runs once, all at the same time (each waits until all have started, so
// running them one after the other would never finish), with parts = the pool's threads.
typedef struct { atomic_int started, ran[4], bad; } ForProbe;
static void for_probe(void *ctx, int part, int parts) {
    ForProbe *fp = ctx;
    if (parts != 3 || part < 0 || part >= 3) { atomic_store(&fp->bad, 1); return; }
    atomic_fetch_add(&fp->ran[part], 1);
    atomic_fetch_add(&fp->started, 1);
    for (long spin = 0; atomic_load(&fp->started) < 3 && spin < 2000000000L; spin++) {}
    if (atomic_load(&fp->started) < 3) atomic_store(&fp->bad, 2);
}

Test(pool, for_runs_each_part_once_on_its_own_thread) {
    Policy shape;
    cr_assert_eq(policy_alloc(&shape, POLICY_D, 5), 0);
    Pool *pool = pool_create(3, "ALE/Pong-v5", &shape);
    cr_assert_not_null(pool);
    cr_assert_eq(pool_threads(pool), 3);
    for (int round = 0; round < 3; round++) {            // again: the threads go back to waiting
        ForProbe fp = {0};
        pool_for(pool, for_probe, &fp);
        cr_expect_eq(atomic_load(&fp.bad), 0, "round %d", round);
        for (int k = 0; k < 3; k++) cr_expect_eq(atomic_load(&fp.ran[k]), 1, "round %d part %d", round, k);
    }
    pool_destroy(pool);
    policy_free(&shape);
}
