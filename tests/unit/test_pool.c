// test_pool.c: the worker pool (train/pool.h), the set of touched rows it keeps per part
// (util/rowset.h), and the threads under both (util/workpool.h).
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "train/pool.h"
#include "util/rowset.h"
#include "util/workpool.h"

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
    cr_expect_eq(r.list[0], 7);
    cr_expect_eq(r.list[1], 6399);
    cr_expect_eq(r.in[7], 1);
    cr_expect_eq(r.in[6399], 2);
    rowset_clear(&r);
    cr_expect_eq(r.n, 0);
    for (int i = 0; i < 6400; i++) cr_expect(!rowset_has(&r, i), "row %d left after clear", i);
    rowset_free(&r);
    RowSet big;
    cr_expect_eq(rowset_alloc(&big, 65537), -1, "rows past uint16_t accepted");
}

// pool_for: every part runs once, all at the same time (each waits until all have started, so
// running them one after the other would never finish), with parts = the pool's threads.
typedef struct {
    atomic_int started, ran[4], bad;
} ForProbe;
static void for_probe(void *ctx, int part, int parts) {
    ForProbe *fp = ctx;
    if (parts != 3 || part < 0 || part >= 3) {
        atomic_store(&fp->bad, 1);
        return;
    }
    atomic_fetch_add(&fp->ran[part], 1);
    atomic_fetch_add(&fp->started, 1);
    for (long spin = 0; atomic_load(&fp->started) < 3 && spin < 2000000000L; spin++) {}
    if (atomic_load(&fp->started) < 3) atomic_store(&fp->bad, 2);
}

Test(pool, for_runs_each_part_once_on_its_own_thread) {
    Pool *pool = pool_create(3);
    cr_assert_not_null(pool);
    cr_assert_eq(pool_threads(pool), 3);
    for (int round = 0; round < 3; round++) { // again: the threads go back to waiting
        ForProbe fp = { 0 };
        pool_for(pool, for_probe, &fp);
        cr_expect_eq(atomic_load(&fp.bad), 0, "round %d", round);
        for (int k = 0; k < 3; k++) cr_expect_eq(atomic_load(&fp.ran[k]), 1, "round %d part %d", round, k);
    }
    pool_destroy(pool);
}

// ----------------------------------------------------------------------------
// util/workpool.h, on which the training pool, eval and the vector env run

typedef struct {
    atomic_int ran[1000];
    atomic_int bad;
    int workers;
} RunProbe;
static void run_probe(void *ctx, int part, int worker) {
    RunProbe *rp = ctx;
    if (part < 0 || part >= 1000 || worker < 0 || worker >= rp->workers) {
        atomic_store(&rp->bad, 1);
        return;
    }
    atomic_fetch_add(&rp->ran[part], 1);
}

// Every part exactly once, job after job, with worker ids in range; with no threads too.
Test(workpool, every_part_once) {
    for (int threads = 0; threads <= 3; threads++) {
        WorkPool *wp = workpool_create(threads);
        cr_assert_not_null(wp);
        cr_assert_eq(workpool_workers(wp), threads + 1);
        for (int round = 0; round < 50; round++) {
            int parts = 1 + (round * 37) % 1000;
            RunProbe *rp = calloc(1, sizeof(*rp));
            rp->workers = threads + 1;
            workpool_run(wp, parts, run_probe, rp);
            cr_expect_eq(atomic_load(&rp->bad), 0);
            for (int k = 0; k < 1000; k++)
                cr_expect_eq(atomic_load(&rp->ran[k]), k < parts, "threads %d round %d part %d", threads, round, k);
            free(rp);
        }
        workpool_destroy(wp);
    }
}

// Parts up to the workers run at the same time: each waits until all have started.
typedef struct {
    atomic_int started, bad;
    int parts;
} Barrier;
static void barrier_part(void *ctx, int part, int worker) {
    Barrier *b = ctx;
    atomic_fetch_add(&b->started, 1);
    for (long spin = 0; atomic_load(&b->started) < b->parts && spin < 2000000000L; spin++) {}
    if (atomic_load(&b->started) < b->parts) atomic_store(&b->bad, 1);
}

static void count_poll(void *p) { atomic_fetch_add((atomic_int *)p, 1); }

Test(workpool, parts_up_to_the_workers_run_at_once) {
    WorkPool *wp = workpool_create(3);
    cr_assert_not_null(wp);
    for (int parts = 2; parts <= 4; parts++) {
        Barrier b = { 0, 0, parts };
        workpool_run(wp, parts, barrier_part, &b);
        cr_expect_eq(atomic_load(&b.bad), 0, "parts %d did not all start", parts);
    }
    Barrier b = { 0, 0, 3 }; // the caller only polls: the 3 threads run them
    atomic_int polls = 0;
    workpool_run_polling(wp, 3, barrier_part, &b, count_poll, &polls);
    cr_expect_eq(atomic_load(&b.bad), 0);
    cr_expect_gt(atomic_load(&polls), 0, "poll never called");
    workpool_destroy(wp);
}

// A fixed job: part w on thread w, every part once and all at once, the same OS thread for a
// part job after job; with one thread or none the caller runs part 0.
typedef struct {
    atomic_int started, bad, ran[4];
    int parts;
    pthread_t who[4];
} Fixed;
static void fixed_part(void *ctx, int part, int worker) {
    Fixed *f = ctx;
    if (part != worker || part < 0 || part >= f->parts) {
        atomic_store(&f->bad, 1);
        return;
    }
    atomic_fetch_add(&f->ran[part], 1);
    f->who[part] = pthread_self();
    atomic_fetch_add(&f->started, 1);
    for (long spin = 0; atomic_load(&f->started) < f->parts && spin < 2000000000L; spin++) {}
    if (atomic_load(&f->started) < f->parts) atomic_store(&f->bad, 2);
}

Test(workpool, fixed_jobs_run_part_w_on_thread_w) {
    for (int threads = 0; threads <= 4; threads++) {
        WorkPool *wp = workpool_create(threads);
        cr_assert_not_null(wp);
        const int parts = threads > 1 ? threads : 1;
        pthread_t first[4];
        for (int round = 0; round < 30; round++) {
            Fixed f = { .parts = parts };
            workpool_run_fixed(wp, fixed_part, &f);
            cr_expect_eq(atomic_load(&f.bad), 0, "threads %d round %d", threads, round);
            for (int k = 0; k < parts; k++) {
                cr_expect_eq(atomic_load(&f.ran[k]), 1, "threads %d round %d part %d", threads, round, k);
                if (round == 0) first[k] = f.who[k];
                cr_expect(pthread_equal(f.who[k], first[k]), "threads %d: part %d moved to another thread", threads, k);
                if (threads <= 1) cr_expect(pthread_equal(f.who[k], pthread_self()), "the caller runs a lone part");
                if (threads > 1) cr_expect(!pthread_equal(f.who[k], pthread_self()), "the caller ran part %d", k);
            }
            if (round % 3 == 2) workpool_run(wp, 7, run_probe, &(RunProbe){ .workers = threads + 1 }); // jobs between
        }
        workpool_destroy(wp);
    }
}

// A PartBarrier holds every part until all have arrived, phase after phase: no part reads a
// phase's counter before every part has added to it.
typedef struct {
    PartBarrier bar;
    atomic_int count[40], bad;
    int parts;
} Phases;
static void phases_part(void *ctx, int part, int worker) {
    (void)part;
    (void)worker;
    Phases *ph = ctx;
    for (int k = 0; k < 40; k++) {
        atomic_fetch_add(&ph->count[k], 1);
        part_barrier_wait(&ph->bar);
        if (atomic_load(&ph->count[k]) != ph->parts) atomic_store(&ph->bad, 1);
    }
}

Test(workpool, part_barrier_holds_each_phase_until_all_arrive) {
    for (int threads = 0; threads <= 3; threads++) {
        WorkPool *wp = workpool_create(threads);
        cr_assert_not_null(wp);
        for (int parts = 1; parts <= threads + 1; parts++)
            for (int round = 0; round < 20; round++) {
                Phases *ph = calloc(1, sizeof(*ph));
                cr_assert_not_null(ph);
                ph->parts = parts;
                part_barrier_init(&ph->bar, parts);
                workpool_run(wp, parts, phases_part, ph);
                cr_expect_eq(
                    atomic_load(&ph->bad), 0, "threads %d parts %d: a part passed the barrier early", threads, parts);
                free(ph);
            }
        workpool_destroy(wp);
    }
}
