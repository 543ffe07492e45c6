// pool.c: persistent worker threads, the seed's RolloutWorker actors. Each owns its Env and
// scratch for life; episodes are handed out one at a time as workers free up (the seed's
// ray.wait), so one long game does not hold up the rest. Each thread sums its episodes'
// gradients in its own exact fixed-point accumulator; the accumulators are merged at the end.
#include "train.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    Pool *pool;
    pthread_t tid;
    Env env;
    Worker w;
    GradSum acc;             // this thread's episodes, summed; only the rows in `used` are non-zero
    uint8_t *used;           // (D,) input pixels (rows of W1) any of its episodes touched
    uint16_t *used_rows;
    int n_used;
    int error;               // set when an episode failed (out of memory, gradient overflow)
    int64_t error_episode;
} Thread;

struct Pool {
    int n;
    Thread *th;
    pthread_mutex_t mu;
    pthread_cond_t start_cv, done_cv;
    uint64_t generation;     // bumped for every batch
    int running;             // threads still playing the current batch
    bool quit;
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
        for (int r = 0; r < t->w.n_touched; r++) {     // only the rows this episode used
            int row = t->w.touched_list[r];
            bad |= gradsum_add(&t->acc, t->w.grad, (size_t)row * p->H, (size_t)p->H);
            if (!t->used[row]) { t->used[row] = 1; t->used_rows[t->n_used++] = (uint16_t)row; }
        }
        bad |= gradsum_add(&t->acc, t->w.grad, (size_t)p->D * p->H, (size_t)p->H);
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
        pthread_mutex_unlock(&pool->mu);

        thread_play_batch(t);

        pthread_mutex_lock(&pool->mu);
        if (--pool->running == 0) pthread_cond_signal(&pool->done_cv);
        pthread_mutex_unlock(&pool->mu);
    }
}

Pool *pool_create(int threads, const char *env_id, const Policy *shape) {
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
        t->used = calloc((size_t)shape->D, 1);
        t->used_rows = calloc((size_t)shape->D, sizeof(uint16_t));
        if (!t->used || !t->used_rows || env_init(&t->env, env_id, 0) != ENV_OK || worker_alloc(&t->w, shape) ||
            gradsum_alloc(&t->acc, shape->n) || pthread_create(&t->tid, NULL, thread_main, t)) {
            worker_free(&t->w);
            gradsum_free(&t->acc);
            free(t->used);
            free(t->used_rows);
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
        free(pool->th[i].used);
        free(pool->th[i].used_rows);
    }
    pthread_mutex_destroy(&pool->mu);
    pthread_cond_destroy(&pool->start_cv);
    pthread_cond_destroy(&pool->done_cv);
    free(pool->th);
    free(pool);
}

// A thread's accumulator is non-zero only in the rows its episodes touched (a few thousand of
// the 6400) and in W2: clearing and merging just those saves two passes over 20 MB a thread.
static void thread_acc_clear(Thread *t, const Policy *p) {
    for (int r = 0; r < t->n_used; r++) {
        gradsum_zero_range(&t->acc, (size_t)t->used_rows[r] * p->H, (size_t)p->H);
        t->used[t->used_rows[r]] = 0;
    }
    t->n_used = 0;
    gradsum_zero_range(&t->acc, (size_t)p->D * p->H, (size_t)p->H);
}

static void thread_acc_merge_into(const Thread *t, const Policy *p, GradSum *sum, RowSet *rows) {
    for (int r = 0; r < t->n_used; r++) {
        const int row = t->used_rows[r];
        // the row's final sum is the last of its partial sums here: the largest bound holds
        int bits = gradsum_merge_range(sum, &t->acc, (size_t)row * p->H, (size_t)p->H);
        rowset_add(rows, row);
        if (bits > rows->bits[row]) rows->bits[row] = (uint8_t)bits;
    }
    int bits = gradsum_merge_range(sum, &t->acc, (size_t)p->D * p->H, (size_t)p->H);
    if (bits > rows->bits[p->D]) rows->bits[p->D] = (uint8_t)bits;
}

int pool_play(Pool *pool, const Policy *p, uint64_t run_seed, double gamma, EpisodeSource *src,
              int64_t first, int count, EpisodeStats *stats, GradSum *sum, RowSet *rows,
              char *err, size_t errlen) {
    (void)count;
    for (int i = 0; i < pool->n; i++) { thread_acc_clear(&pool->th[i], p); pool->th[i].error = 0; }
    for (int r = 0; r < rows->n; r++) gradsum_zero_range(sum, (size_t)rows->list[r] * p->H, (size_t)p->H);
    gradsum_zero_range(sum, (size_t)p->D * p->H, (size_t)p->H);
    rowset_clear(rows);
    pthread_mutex_lock(&pool->mu);
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
                     t->error == 1 ? "out of memory" :
                     "gradient entry not finite or beyond 2^31 (training diverged; try a smaller --lr)");
            return -1;
        }
        thread_acc_merge_into(t, p, sum, rows);
    }
    return 0;
}
