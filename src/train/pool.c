// pool.c: persistent worker threads (pool.h). Episodes are handed out one at a time as
// workers free up, so one long game does not hold up the rest. Each thread sums its episodes'
// gradients in its own exact fixed-point accumulator, valid only on the rows its episodes
// touched in this batch (a row's first episode stores instead of adding, so nothing is ever
// cleared); at the end the other threads' rows are merged into thread 0's, which is the sum.
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "episode_seed.h"

typedef struct {
    Pool *pool;
    pthread_t tid;
    Env env;
    Worker w;
    GradSum acc;             // this thread's episodes, summed: valid on the rows in `used` and on W2
    RowSet used;             // input pixels (rows of W1) its episodes touched in this batch
    bool w2_used;            // W2 holds this batch's sum (the thread played an episode)
    int error;               // set when an episode failed (out of memory, gradient overflow)
    int64_t error_episode;
} Thread;

struct Pool {
    int n;
    Thread *th;
    pthread_mutex_t mu;
    pthread_cond_t start_cv, done_cv;
    uint64_t generation;     // bumped for every batch, and every job
    int running;             // threads still playing the current batch (or running the job)
    bool quit;
    // the current job (pool_for), or NULL: a batch
    void (*job)(void *ctx, int part, int parts);
    void *job_ctx;
    // the current batch, read-only for the threads while it runs
    const Policy *p;
    uint64_t run_seed;
    double gamma;
    EpisodeSource *src;
    int64_t first;
    EpisodeStats *stats;
};

static void thread_play_batch(Thread *t) {
    Pool *pool = t->pool;
    const Policy *p = pool->p;
    int64_t k;
    while ((k = pool->src->next(pool->src)) >= 0) {
        EpisodeStats st;
        if (t->error) continue;       // drain the source; the batch is lost anyway
        if (rollout_play(&t->w, p, &t->env, episode_env_seed(pool->run_seed, k),
                         episode_act_seed(pool->run_seed, k), &st) ||
            rollout_gradient(&t->w, p, pool->gamma)) { t->error = 1; t->error_episode = k; continue; }
        int bad = 0;
        for (int r = 0; r < t->w.touched.n; r++) {     // only the rows this episode used
            int row = t->w.touched.list[r];
            if (rowset_add(&t->used, row)) bad |= gradsum_set(&t->acc, t->w.grad, (size_t)row * p->H, (size_t)p->H);
            else bad |= gradsum_add(&t->acc, t->w.grad, (size_t)row * p->H, (size_t)p->H);
        }
        const size_t w2 = (size_t)p->D * p->H;
        bad |= t->w2_used ? gradsum_add(&t->acc, t->w.grad, w2, (size_t)p->H) : gradsum_set(&t->acc, t->w.grad, w2, (size_t)p->H);
        t->w2_used = true;
        if (bad) { t->error = 2; t->error_episode = k; continue; }
        pool->stats[k - pool->first] = st;    // distinct slot per episode: no lock needed
    }
}

static void *thread_main(void *arg) {
    Thread *t = arg;
    Pool *pool = t->pool;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool->mu);
        while (!pool->quit && pool->generation == seen) pthread_cond_wait(&pool->start_cv, &pool->mu);
        if (pool->quit) { pthread_mutex_unlock(&pool->mu); return NULL; }
        seen = pool->generation;
        void (*job)(void *, int, int) = pool->job;
        void *job_ctx = pool->job_ctx;
        pthread_mutex_unlock(&pool->mu);

        if (job) job(job_ctx, (int)(t - pool->th), pool->n);
        else thread_play_batch(t);

        pthread_mutex_lock(&pool->mu);
        if (--pool->running == 0) pthread_cond_signal(&pool->done_cv);
        pthread_mutex_unlock(&pool->mu);
    }
}

Pool *pool_create(int threads, const char *env_id, int mode, int difficulty, const Policy *shape) {
    Pool *pool = calloc(1, sizeof(*pool));
    if (!pool) return NULL;
    pool->th = calloc((size_t)threads, sizeof(Thread));
    if (!pool->th) { free(pool); return NULL; }
    pthread_mutex_init(&pool->mu, NULL);
    pthread_cond_init(&pool->start_cv, NULL);
    pthread_cond_init(&pool->done_cv, NULL);
    for (int i = 0; i < threads; i++) {
        Thread *t = &pool->th[i];
        t->pool = pool;
        if (rowset_alloc(&t->used, shape->D) || env_init_flavour(&t->env, env_id, mode, difficulty, 0) != ENV_OK || worker_alloc(&t->w, shape) ||
            gradsum_alloc(&t->acc, shape->n) || pthread_create(&t->tid, NULL, thread_main, t)) {
            worker_free(&t->w);
            gradsum_free(&t->acc);
            rowset_free(&t->used);
            pool->n = i;
            pool_destroy(pool);
            return NULL;
        }
        pool->n = i + 1;
    }
    return pool;
}

void pool_destroy(Pool *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->mu);
    pool->quit = true;
    pthread_cond_broadcast(&pool->start_cv);
    pthread_mutex_unlock(&pool->mu);
    for (int i = 0; i < pool->n; i++) {
        pthread_join(pool->th[i].tid, NULL);
        worker_free(&pool->th[i].w);
        gradsum_free(&pool->th[i].acc);
        rowset_free(&pool->th[i].used);
    }
    pthread_mutex_destroy(&pool->mu);
    pthread_cond_destroy(&pool->start_cv);
    pthread_cond_destroy(&pool->done_cv);
    free(pool->th);
    free(pool);
}

// A new batch: no row of the accumulator holds anything yet (a row's first episode stores
// over the old values, gradsum_set).
static void thread_acc_reset(Thread *t) {
    rowset_clear(&t->used);
    t->w2_used = false;
}

#define DIVERGED "gradient entry, or the batch's sum of one, not finite or beyond 2^31 " \
                 "(training diverged; try a smaller --lr)"

// The other threads' rows into thread 0's accumulator, which becomes the batch sum. First, on
// the calling thread, thread 0's list of rows grows by the rows only others touched (marked 2
// in its `used`: their first copy is copied, not added); then the pool's threads share the
// rows out, each adding (or copying) the others' values into its share.
#define MERGE_COPY 2          // a row of thread 0's `used` that only other threads touched

typedef struct {
    Pool *pool;
    const Policy *p;
    atomic_int bad;           // a sum passed 2^31 somewhere
} Merge;

static void merge_part(void *ctx, int part, int parts) {
    Merge *mg = ctx;
    Pool *pool = mg->pool;
    Thread *t0 = &pool->th[0];
    const size_t H = (size_t)mg->p->H;
    const int n = t0->used.n;
    int bad = 0;
    for (int r = (int)((int64_t)n * part / parts); r < (int)((int64_t)n * (part + 1) / parts); r++) {
        const int row = t0->used.list[r];
        const size_t off = (size_t)row * H;
        bool have = t0->used.in[row] != MERGE_COPY;
        for (int i = 1; i < pool->n; i++) {
            const Thread *t = &pool->th[i];
            if (!rowset_has(&t->used, row)) continue;
            if (have) bad |= gradsum_merge_range(&t0->acc, &t->acc, off, H);
            else gradsum_copy_range(&t0->acc, &t->acc, off, H);
            have = true;
        }
        t0->used.in[row] = 1;
    }
    if (part == parts - 1) {                    // W2
        const size_t w2 = (size_t)mg->p->D * H;
        for (int i = 1; i < pool->n; i++) {
            const Thread *t = &pool->th[i];
            if (!t->w2_used) continue;
            if (t0->w2_used) bad |= gradsum_merge_range(&t0->acc, &t->acc, w2, H);
            else gradsum_copy_range(&t0->acc, &t->acc, w2, H);
            t0->w2_used = true;
        }
    }
    if (bad) atomic_store(&mg->bad, 1);
}

static int merge_into_thread0(Pool *pool, const Policy *p) {
    Thread *t0 = &pool->th[0];
    for (int i = 1; i < pool->n; i++) {
        const Thread *t = &pool->th[i];
        for (int r = 0; r < t->used.n; r++) rowset_add_marked(&t0->used, t->used.list[r], MERGE_COPY);
    }
    Merge mg = { pool, p, 0 };
    pool_for(pool, merge_part, &mg);
    return atomic_load(&mg.bad) ? -1 : 0;
}

int pool_play(Pool *pool, const Policy *p, uint64_t run_seed, double gamma, EpisodeSource *src,
              int64_t first, int count, EpisodeStats *stats, const GradSum **sum, RowSet *rows,
              char *err, size_t errlen) {
    (void)count;
    for (int i = 0; i < pool->n; i++) { thread_acc_reset(&pool->th[i]); pool->th[i].error = 0; }
    rowset_clear(rows);
    pthread_mutex_lock(&pool->mu);
    pool->job = NULL;
    pool->p = p; pool->run_seed = run_seed; pool->gamma = gamma;
    pool->src = src; pool->first = first; pool->stats = stats;
    pool->running = pool->n;
    pool->generation++;
    pthread_cond_broadcast(&pool->start_cv);
    while (pool->running > 0) {
        if (src->poll) {
            // the main thread keeps the transport moving while the workers play
            pthread_mutex_unlock(&pool->mu);
            src->poll(src);
            pthread_mutex_lock(&pool->mu);
            if (pool->running == 0) break;
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200000;                       // 0.2 ms
            if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
            pthread_cond_timedwait(&pool->done_cv, &pool->mu, &ts);
        } else {
            pthread_cond_wait(&pool->done_cv, &pool->mu);
        }
    }
    pthread_mutex_unlock(&pool->mu);
    for (int i = 0; i < pool->n; i++) {
        Thread *t = &pool->th[i];
        if (t->error) {
            snprintf(err, errlen, "episode %lld: %s", (long long)t->error_episode,
                     t->error == 1 ? "out of memory" : DIVERGED);
            return -1;
        }
    }
    // thread 0's accumulator becomes the sum
    Thread *t0 = &pool->th[0];
    if (pool->n > 1 && merge_into_thread0(pool, p)) {
        snprintf(err, errlen, "batch from episode %lld: %s", (long long)first, DIVERGED);
        return -1;
    }
    for (int r = 0; r < t0->used.n; r++) rowset_add(rows, t0->used.list[r]);
    if (!t0->w2_used) {                         // no episode played here: a zero sum
        gradsum_zero_range(&t0->acc, (size_t)p->D * p->H, (size_t)p->H);
        t0->w2_used = true;
    }
    *sum = &t0->acc;
    return 0;
}

int pool_threads(const Pool *pool) { return pool->n; }

void pool_for(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx) {
    if (pool->n == 1) { fn(ctx, 0, 1); return; }   // no hand-off for one thread
    pthread_mutex_lock(&pool->mu);
    pool->job = fn;
    pool->job_ctx = ctx;
    pool->running = pool->n;
    pool->generation++;
    pthread_cond_broadcast(&pool->start_cv);
    while (pool->running > 0) pthread_cond_wait(&pool->done_cv, &pool->mu);
    pool->job = NULL;
    pthread_mutex_unlock(&pool->mu);
}
