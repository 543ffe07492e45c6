// episodes.c: pg's batch (episodes.h). A batch is one part per pool thread, each with its own
// Env and scratch; a part takes episodes one at a time as it frees up, so one long game does
// not hold up the rest. Each part sums its episodes' gradients in its own exact fixed-point
// accumulator, valid only on the rows its episodes touched in this batch (a row's first episode
// stores instead of adding, so nothing is ever cleared); at the end the other parts' rows are
// merged into part 0's, which is the sum.
#include "episodes.h"
#include "pg_streams.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
    PgPlayers *pl;
    Env env;
    Worker w;
    GradSum acc;  // this part's episodes, summed: valid on the rows in `used` and on W2
    RowSet used;  // input pixels (rows of W1) its episodes touched in this batch
    bool w2_used; // W2 holds this batch's sum (the part played an episode)
    int error;    // set when an episode failed (out of memory, gradient overflow)
    int64_t error_episode;
} Thread;

struct PgPlayers {
    int n;
    Thread *th; // (n,) a batch's part k plays on th[k], whichever thread runs it
    // the current batch, read-only for the threads while it runs
    const Policy *p;
    uint64_t run_seed;
    double gamma;
    EpisodeSource *src;
    int64_t first;
    EpisodeStats *stats;
    ArrayBlocks mem; // where th and each thread's acc live (pg_players_create's table)
};

static void thread_play_batch(Thread *t) {
    PgPlayers *pl = t->pl;
    const Policy *p = pl->p;
    int64_t k;
    while ((k = pl->src->next(pl->src)) >= 0) {
        EpisodeStats st;
        if (t->error) continue; // drain the source; the batch is lost anyway
        if (rollout_play(
                &t->w, p, &t->env, episode_env_seed(pl->run_seed, k), episode_act_seed(pl->run_seed, k), &st) ||
            rollout_gradient(&t->w, p, pl->gamma)) {
            t->error = 1;
            t->error_episode = k;
            continue;
        }
        int bad = 0;
        for (int r = 0; r < t->w.touched.n; r++) { // only the rows this episode used
            int row = t->w.touched.list[r];
            if (rowset_add(&t->used, row))
                bad |= gradsum_set(&t->acc, t->w.grad, (size_t)row * p->H, (size_t)p->H);
            else
                bad |= gradsum_add(&t->acc, t->w.grad, (size_t)row * p->H, (size_t)p->H);
        }
        const size_t w2 = (size_t)p->D * p->H;
        bad |= t->w2_used ? gradsum_add(&t->acc, t->w.grad, w2, (size_t)p->H)
                          : gradsum_set(&t->acc, t->w.grad, w2, (size_t)p->H);
        t->w2_used = true;
        if (bad) {
            t->error = 2;
            t->error_episode = k;
            continue;
        }
        pl->stats[k - pl->first] = st; // distinct slot per episode: no lock needed
    }
}

static void play_part(void *ctx, int part, int parts) {
    (void)parts;
    PgPlayers *pl = ctx;
    thread_play_batch(&pl->th[part]);
}

static void free_thread(Thread *t) {
    worker_free(&t->w);
    rowset_free(&t->used);
}

// The players' arrays (util/arrays.h), one mapping: field, element type, length. The threads,
// then each thread's exact sum (W1-sized: each on huge pages, as gradsum_alloc's).
#define PLAYERS_ARRAYS(X) X(th, Thread, (size_t)threads)
#define THREAD_ARRAYS(X) \
    X(acc.hi, int64_t, shape->n) \
    X(acc.lo, int64_t, shape->n)

PgPlayers *pg_players_create(int threads, const char *env_id, int mode, int difficulty, const Policy *shape) {
    PgPlayers *pl = calloc(1, sizeof(*pl));
    if (!pl) return NULL;
#define X(FIELD, TYPE, LEN) { sizeof(TYPE), (LEN), 0, NULL },
    const ArraySpec head[] = { PLAYERS_ARRAYS(X) }, each[] = { THREAD_ARRAYS(X) };
#undef X
    enum { NH = sizeof(head) / sizeof(head[0]), NE = sizeof(each) / sizeof(each[0]) };
    ArraySpec spec[NH + NE * threads];
    memcpy(spec, head, sizeof(head));
    for (int i = 0; i < threads; i++) memcpy(spec + NH + (size_t)NE * i, each, sizeof(each));
    if (arrays_make(spec, NH + NE * threads, &pl->mem)) {
        free(pl);
        return NULL;
    }
    int k = 0;
#define X(FIELD, TYPE, LEN) pl->FIELD = (TYPE *)spec[k++].at;
    PLAYERS_ARRAYS(X)
#undef X
    for (int i = 0; i < threads; i++) {
        Thread *t = &pl->th[i];
#define X(FIELD, TYPE, LEN) t->FIELD = (TYPE *)spec[k++].at;
        THREAD_ARRAYS(X)
#undef X
        t->acc.n = shape->n;
        t->pl = pl;
        if (rowset_alloc(&t->used, shape->D) || env_init_flavour(&t->env, env_id, mode, difficulty, 0) != ENV_OK ||
            worker_alloc(&t->w, shape)) {
            free_thread(t);
            pl->n = i;
            pg_players_destroy(pl);
            return NULL;
        }
    }
    pl->n = threads;
    return pl;
}

void pg_players_destroy(PgPlayers *pl) {
    if (!pl) return;
    for (int i = 0; i < pl->n; i++) free_thread(&pl->th[i]);
    arrays_free(&pl->mem);
    free(pl);
}

// A new batch: no row of the accumulator holds anything yet (a row's first episode stores
// over the old values, gradsum_set).
static void thread_acc_reset(Thread *t) {
    rowset_clear(&t->used);
    t->w2_used = false;
}

#define DIVERGED \
    "gradient entry, or the batch's sum of one, not finite or beyond 2^31 " \
    "(training diverged; try a smaller --lr)"

// The other threads' rows into thread 0's accumulator, which becomes the batch sum. First, on
// the calling thread, thread 0's list of rows grows by the rows only others touched (marked 2
// in its `used`: their first copy is copied, not added); then the pool's threads share the
// rows out, each adding (or copying) the others' values into its share.
#define MERGE_COPY 2 // a row of thread 0's `used` that only other threads touched

typedef struct {
    PgPlayers *pl;
    const Policy *p;
    atomic_int bad; // a sum passed 2^31 somewhere
} Merge;

static void merge_part(void *ctx, int part, int parts) {
    Merge *mg = ctx;
    PgPlayers *pl = mg->pl;
    Thread *t0 = &pl->th[0];
    const size_t H = (size_t)mg->p->H;
    const int n = t0->used.n;
    int bad = 0;
    for (int r = (int)((int64_t)n * part / parts); r < (int)((int64_t)n * (part + 1) / parts); r++) {
        const int row = t0->used.list[r];
        const size_t off = (size_t)row * H;
        bool have = t0->used.in[row] != MERGE_COPY;
        for (int i = 1; i < pl->n; i++) {
            const Thread *t = &pl->th[i];
            if (!rowset_has(&t->used, row)) continue;
            if (have)
                bad |= gradsum_merge_range(&t0->acc, &t->acc, off, H);
            else
                gradsum_copy_range(&t0->acc, &t->acc, off, H);
            have = true;
        }
        t0->used.in[row] = 1;
    }
    if (part == parts - 1) { // W2
        const size_t w2 = (size_t)mg->p->D * H;
        for (int i = 1; i < pl->n; i++) {
            const Thread *t = &pl->th[i];
            if (!t->w2_used) continue;
            if (t0->w2_used)
                bad |= gradsum_merge_range(&t0->acc, &t->acc, w2, H);
            else
                gradsum_copy_range(&t0->acc, &t->acc, w2, H);
            t0->w2_used = true;
        }
    }
    if (bad) atomic_store(&mg->bad, 1);
}

static int merge_into_thread0(PgPlayers *pl, Pool *pool, const Policy *p) {
    Thread *t0 = &pl->th[0];
    for (int i = 1; i < pl->n; i++) {
        const Thread *t = &pl->th[i];
        for (int r = 0; r < t->used.n; r++) rowset_add_marked(&t0->used, t->used.list[r], MERGE_COPY);
    }
    Merge mg = { pl, p, 0 };
    pool_for(pool, merge_part, &mg);
    return atomic_load(&mg.bad) ? -1 : 0;
}

int pg_play(PgPlayers *pl, Pool *pool, const Policy *p, uint64_t run_seed, double gamma, EpisodeSource *src,
    int64_t first, EpisodeStats *stats, const GradSum **sum, RowSet *rows, char *err, size_t errlen) {
    for (int i = 0; i < pl->n; i++) {
        thread_acc_reset(&pl->th[i]);
        pl->th[i].error = 0;
    }
    rowset_clear(rows);
    pl->p = p;
    pl->run_seed = run_seed;
    pl->gamma = gamma;
    pl->src = src;
    pl->first = first;
    pl->stats = stats;
    pool_run(pool, play_part, pl, src);
    for (int i = 0; i < pl->n; i++) {
        Thread *t = &pl->th[i];
        if (t->error) {
            snprintf(err, errlen, "episode %lld: %s", (long long)t->error_episode,
                t->error == 1 ? "out of memory" : DIVERGED);
            return -1;
        }
    }
    // thread 0's accumulator becomes the sum
    Thread *t0 = &pl->th[0];
    if (pl->n > 1 && merge_into_thread0(pl, pool, p)) {
        snprintf(err, errlen, "batch from episode %lld: %s", (long long)first, DIVERGED);
        return -1;
    }
    for (int r = 0; r < t0->used.n; r++) rowset_add(rows, t0->used.list[r]);
    if (!t0->w2_used) { // no episode played here: a zero sum
        gradsum_zero_range(&t0->acc, (size_t)p->D * p->H, (size_t)p->H);
        t0->w2_used = true;
    }
    *sum = &t0->acc;
    return 0;
}
