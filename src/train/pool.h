// pool.h: the training's persistent worker threads (util/workpool.h), Ray's RolloutWorker
// actors as a learner uses them: a learner runs its passes on them (pool_for) and plays its
// work items while the transport is polled (pool_run). What each thread owns (an env, a
// network's scratch) is the learner's.
#ifndef PONGRL_POOL_H
#define PONGRL_POOL_H

#include <stdint.h>

#include "../util/rowset.h"
#include "gradsum.h"

// Where work items come from (pg: episode indices). Threads call next() concurrently; it
// returns the next global index this process should play, or -1 when there is none left.
// poll(), if not NULL, is called by the process's main thread while its workers play (MPI
// progress).
typedef struct EpisodeSource {
    int64_t (*next)(struct EpisodeSource *src);
    void (*poll)(struct EpisodeSource *src);
    void *ctx;
} EpisodeSource;

// A WorkPool (util/workpool.h) under the name the training gives it.
typedef struct WorkPool Pool;
Pool *pool_create(int threads); // NULL on failure
void pool_destroy(Pool *pool);
// Run fn(ctx, part, parts) for every part in [0, parts) at once, one on each of the pool's
// threads (parts = pool_threads()), and wait for all. With one thread it runs inline.
void pool_for(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx);
// The same with part p on the pool's thread p every time (workpool_run_fixed), for passes whose
// parts own data that should stay in one core's caches from one job to the next (PPO's rows).
// The caller waits asleep, where with pool_for it takes a part: for short jobs one after
// another pool_for is the quicker (QR-DQN's update ran 7-14% slower on fixed parts, pg's 5%).
void pool_for_fixed(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx);
// The same, while this (the calling) thread polls src (src->poll, where not NULL): a batch's
// parts taking items from src as they free up.
void pool_run(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx, EpisodeSource *src);
int pool_threads(const Pool *pool);

// Part `part` of `parts` of n items, [*lo, *hi): the parts' ranges in order, sizes within one of
// each other. A fixed split, so what a part computes (the envs it plays, the rows or columns it
// steps) depends on the thread count alone, never on the timing.
static inline void part_range(int n, int part, int parts, int *lo, int *hi) {
    *lo = (int)((int64_t)n * part / parts);
    *hi = (int)((int64_t)n * (part + 1) / parts);
}

#endif
