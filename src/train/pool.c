// pool.c: the training's worker threads (pool.h) on util/workpool.h.
#include "pool.h"

#include <stdlib.h>

#include "../util/workpool.h"

struct Pool {
    int n;
    WorkPool *wp; // n threads: while they play, the caller polls the transport
};

Pool *pool_create(int threads) {
    Pool *pool = calloc(1, sizeof(*pool));
    if (!pool) return NULL;
    if (!(pool->wp = workpool_create(threads))) {
        free(pool);
        return NULL;
    }
    pool->n = threads;
    return pool;
}

void pool_destroy(Pool *pool) {
    if (!pool) return;
    workpool_destroy(pool->wp);
    free(pool);
}

int pool_threads(const Pool *pool) { return pool->n; }

typedef struct {
    void (*fn)(void *ctx, int part, int parts);
    void *ctx;
    int parts;
} ForJob;
static void for_part(void *ctx, int part, int worker) {
    (void)worker;
    ForJob *j = ctx;
    j->fn(j->ctx, part, j->parts);
}

static void poll_source(void *src) { ((EpisodeSource *)src)->poll(src); }

void pool_for(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx) {
    ForJob j = { fn, ctx, pool->n };
    workpool_run(pool->wp, pool->n, for_part, &j);
}

void pool_run(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx, EpisodeSource *src) {
    ForJob j = { fn, ctx, pool->n };
    if (src && src->poll)
        workpool_run_polling(pool->wp, pool->n, for_part, &j, poll_source, src);
    else
        workpool_run(pool->wp, pool->n, for_part, &j);
}
