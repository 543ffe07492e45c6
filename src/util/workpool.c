// workpool.c: the worker pool (workpool.h).
#include "workpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

// Waiting: a few microseconds of pause, then sched_yield (so a thread that shares our core can
// run: on a busy machine a worker and the caller can land on one core), then sleep.
#define SPIN_PAUSE 256
#define SPIN_YIELD 64
#define POLL_NS    200000      // 0.2 ms between the polls of workpool_run_polling
#define CLOSED     0xffffffffu // a claim index no job reaches: nothing to claim

typedef struct {
    WorkPool *wp;
    int worker;
    pthread_t tid;
} Thread;

struct WorkPool {
    int n; // threads started
    Thread *th;
    pthread_mutex_t mu;
    pthread_cond_t start_cv, done_cv;
    atomic_uint_fast64_t generation; // bumped for every job (under mu)
    // (generation << 32) | next part to claim: a thread claims only its own job's parts
    atomic_uint_fast64_t claim;
    atomic_int done; // parts of the current job finished
    atomic_bool quit;
    // the current job: written before its claim opens, read-only while it runs
    atomic_int parts;
    atomic_bool fixed; // the current job's part w is thread w's (workpool_run_fixed)
    WorkFn fn;
    void *ctx;
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

// Waits until done(arg) or the spin budget is spent; returns done(arg).
static bool spin_until(bool (*done)(const void *), const void *arg) {
    for (int i = 0; i < SPIN_PAUSE; i++) {
        if (done(arg)) return true;
        cpu_relax();
    }
    for (int i = 0; i < SPIN_YIELD; i++) {
        if (done(arg)) return true;
        sched_yield();
    }
    return done(arg);
}

// Claims and runs parts of job gen until none is left; returns true when this worker finished
// the job's last part.
static bool claim_and_run(WorkPool *wp, uint64_t gen, int worker) {
    bool last = false;
    uint_fast64_t c = atomic_load_explicit(&wp->claim, memory_order_acquire);
    if (atomic_load_explicit(&wp->fixed, memory_order_relaxed)) { // (written before the claim opened)
        // a fixed job: this thread's own part, once (it sees each generation once)
        const int parts = atomic_load_explicit(&wp->parts, memory_order_acquire);
        if ((c >> 32) != (gen & 0xffffffffu) || (c & 0xffffffffu) == CLOSED || worker >= parts) return false;
        wp->fn(wp->ctx, worker, worker);
        return atomic_fetch_add_explicit(&wp->done, 1, memory_order_acq_rel) + 1 == parts;
    }
    // parts is read after the claim: a value newer than c's job implies a claim word that has
    // moved on (the caller closes it before it writes parts), so the exchange below fails
    while ((c >> 32) == (gen & 0xffffffffu) &&
        (c & 0xffffffffu) < (uint_fast64_t)atomic_load_explicit(&wp->parts, memory_order_acquire)) {
        if (!atomic_compare_exchange_weak_explicit(&wp->claim, &c, c + 1, memory_order_acq_rel, memory_order_acquire))
            continue; // c now holds the current value: try again
        wp->fn(wp->ctx, (int)(c & 0xffffffffu), worker);
        if (atomic_fetch_add_explicit(&wp->done, 1, memory_order_acq_rel) + 1 ==
            atomic_load_explicit(&wp->parts, memory_order_relaxed))
            last = true;
        c = atomic_load_explicit(&wp->claim, memory_order_acquire);
    }
    return last;
}

typedef struct {
    const WorkPool *wp;
    uint64_t seen;
} GenWait;
static bool generation_moved(const void *arg) {
    const GenWait *w = arg;
    return atomic_load_explicit(&w->wp->generation, memory_order_acquire) != w->seen ||
        atomic_load_explicit(&w->wp->quit, memory_order_relaxed);
}
static bool all_done(const void *arg) {
    const WorkPool *wp = arg;
    return atomic_load_explicit(&wp->done, memory_order_acquire) ==
        atomic_load_explicit(&wp->parts, memory_order_relaxed);
}

static void *thread_main(void *arg) {
    Thread *t = arg;
    WorkPool *wp = t->wp;
    uint64_t seen = 0;
    for (;;) {
        // the generation changes only under the mutex: a thread that finds it unchanged under
        // the mutex cannot miss the broadcast
        GenWait gw = { wp, seen };
        uint64_t g;
        if (!spin_until(generation_moved, &gw)) {
            pthread_mutex_lock(&wp->mu);
            while (atomic_load(&wp->generation) == seen && !atomic_load(&wp->quit))
                pthread_cond_wait(&wp->start_cv, &wp->mu);
            pthread_mutex_unlock(&wp->mu);
        }
        if (atomic_load(&wp->quit)) return NULL;
        seen = g = atomic_load_explicit(&wp->generation, memory_order_acquire);
        if (claim_and_run(wp, g, t->worker)) {
            pthread_mutex_lock(&wp->mu);
            pthread_cond_signal(&wp->done_cv);
            pthread_mutex_unlock(&wp->mu);
        }
    }
}

WorkPool *workpool_create(int threads) {
    if (threads < 0) return NULL;
    WorkPool *wp = calloc(1, sizeof(*wp));
    if (!wp) return NULL;
    wp->th = calloc((size_t)(threads > 0 ? threads : 1), sizeof(Thread));
    if (!wp->th) {
        free(wp);
        return NULL;
    }
    pthread_mutex_init(&wp->mu, NULL);
    pthread_cond_init(&wp->start_cv, NULL);
    pthread_cond_init(&wp->done_cv, NULL);
    atomic_init(&wp->generation, 0);
    atomic_init(&wp->claim, CLOSED);
    atomic_init(&wp->done, 0);
    atomic_init(&wp->quit, false);
    atomic_init(&wp->parts, 0);
    atomic_init(&wp->fixed, false);
    for (int i = 0; i < threads; i++) {
        wp->th[i] = (Thread){ wp, i, 0 };
        if (pthread_create(&wp->th[i].tid, NULL, thread_main, &wp->th[i])) {
            workpool_destroy(wp);
            return NULL;
        }
        wp->n = i + 1;
    }
    return wp;
}

void workpool_destroy(WorkPool *wp) {
    if (!wp) return;
    pthread_mutex_lock(&wp->mu);
    atomic_store(&wp->quit, true);
    pthread_cond_broadcast(&wp->start_cv);
    pthread_mutex_unlock(&wp->mu);
    for (int i = 0; i < wp->n; i++) pthread_join(wp->th[i].tid, NULL);
    pthread_mutex_destroy(&wp->mu);
    pthread_cond_destroy(&wp->start_cv);
    pthread_cond_destroy(&wp->done_cv);
    free(wp->th);
    free(wp);
}

int workpool_workers(const WorkPool *wp) { return wp->n + 1; }

// Opens job gen+1 to the threads; returns its generation.
static uint64_t start(WorkPool *wp, int parts, WorkFn fn, void *ctx, bool fixed) {
    uint64_t gen = atomic_load_explicit(&wp->generation, memory_order_relaxed) + 1;
    // close the claim first: a thread still looking at the last job cannot claim from this one
    atomic_store_explicit(&wp->claim, (gen & 0xffffffffu) << 32 | CLOSED, memory_order_relaxed);
    wp->fn = fn;
    wp->ctx = ctx;
    atomic_store_explicit(&wp->fixed, fixed, memory_order_relaxed);
    atomic_store_explicit(&wp->done, 0, memory_order_relaxed);
    atomic_store_explicit(&wp->parts, parts, memory_order_release);
    atomic_store_explicit(&wp->claim, (gen & 0xffffffffu) << 32, memory_order_release);
    pthread_mutex_lock(&wp->mu);
    atomic_store_explicit(&wp->generation, gen, memory_order_release);
    pthread_cond_broadcast(&wp->start_cv);
    pthread_mutex_unlock(&wp->mu);
    return gen;
}

void workpool_run(WorkPool *wp, int parts, WorkFn fn, void *ctx) {
    if (parts <= 0) return;
    if (wp->n == 0 || parts == 1) { // no hand-off for work the caller does alone
        for (int k = 0; k < parts; k++) fn(ctx, k, wp->n);
        return;
    }
    uint64_t gen = start(wp, parts, fn, ctx, false);
    claim_and_run(wp, gen, wp->n);
    if (spin_until(all_done, wp)) return; // a thread is finishing its last part
    pthread_mutex_lock(&wp->mu);
    while (!all_done(wp)) pthread_cond_wait(&wp->done_cv, &wp->mu);
    pthread_mutex_unlock(&wp->mu);
}

void workpool_run_fixed(WorkPool *wp, WorkFn fn, void *ctx) {
    if (wp->n <= 1) { // no hand-off for work the caller does alone
        fn(ctx, 0, 0);
        return;
    }
    start(wp, wp->n, fn, ctx, true);
    // the caller sleeps at once: spinning, it would take a core from a part where the threads
    // are as many as the cores
    pthread_mutex_lock(&wp->mu);
    while (!all_done(wp)) pthread_cond_wait(&wp->done_cv, &wp->mu);
    pthread_mutex_unlock(&wp->mu);
}

void workpool_run_polling(WorkPool *wp, int parts, WorkFn fn, void *ctx, void (*poll)(void *), void *poll_ctx) {
    if (parts <= 0) return;
    if (wp->n == 0) {
        workpool_run(wp, parts, fn, ctx);
        poll(poll_ctx);
        return;
    }
    start(wp, parts, fn, ctx, false);
    pthread_mutex_lock(&wp->mu);
    while (!all_done(wp)) {
        // the caller keeps the transport moving while the threads work
        pthread_mutex_unlock(&wp->mu);
        poll(poll_ctx);
        pthread_mutex_lock(&wp->mu);
        if (all_done(wp)) break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += POLL_NS;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&wp->done_cv, &wp->mu, &ts);
    }
    pthread_mutex_unlock(&wp->mu);
}

void part_barrier_init(PartBarrier *b, int parts) {
    atomic_init(&b->arrived, 0);
    atomic_init(&b->phase, 0);
    b->parts = (unsigned)parts;
}

void part_barrier_wait(PartBarrier *b) {
    // the phase is read before arriving: the last to arrive moves it on only after this read
    const unsigned ph = atomic_load_explicit(&b->phase, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->parts) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed); // no one arrives before the phase moves
        atomic_store_explicit(&b->phase, ph + 1, memory_order_release);
        return;
    }
    for (int i = 0; atomic_load_explicit(&b->phase, memory_order_acquire) == ph;) {
        if (i < SPIN_PAUSE) {
            cpu_relax();
            i++;
        } else {
            sched_yield(); // (i stays: a long wait never overflows it)
        }
    }
}
