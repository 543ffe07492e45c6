// pool.c: the training's worker threads (pool.h) on util/workpool.h.
#include "pool.h"

#include "../util/workpool.h"

Pool *pool_create(int threads) { return workpool_create(threads); }

void pool_destroy(Pool *pool) { workpool_destroy(pool); }

// The pool's own threads: its last worker is the caller, who polls the transport while they play.
int pool_threads(const Pool *pool) { return workpool_workers(pool) - 1; }

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
    ForJob j = { fn, ctx, pool_threads(pool) };
    workpool_run(pool, j.parts, for_part, &j);
}

void pool_for_fixed(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx) {
    ForJob j = { fn, ctx, pool_threads(pool) };
    workpool_run_fixed(pool, for_part, &j);
}

void pool_run(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx, EpisodeSource *src) {
    ForJob j = { fn, ctx, pool_threads(pool) };
    if (src && src->poll)
        workpool_run_polling(pool, j.parts, for_part, &j, poll_source, src);
    else
        workpool_run(pool, j.parts, for_part, &j);
}
