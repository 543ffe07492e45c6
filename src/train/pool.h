// pool.h: persistent worker threads, the seed's RolloutWorker actors. Each owns an Env and
// scratch for its whole life; a batch's episodes are handed out one at a time as threads free
// up (the seed's ray.wait), and their gradients summed exactly (gradsum.h).
#ifndef PONGRL_POOL_H
#define PONGRL_POOL_H

#include <stdint.h>

#include "../policy/policy.h"
#include "../rl/rollout.h"
#include "../util/rowset.h"
#include "gradsum.h"

// Where episode indices come from. Threads call next() concurrently; it returns the next
// global episode index this process should play, or -1 when there is none left. poll(), if
// not NULL, is called by the process's main thread while its workers play (MPI progress).
typedef struct EpisodeSource {
    int64_t (*next)(struct EpisodeSource *src);
    void (*poll)(struct EpisodeSource *src);
    void *ctx;
} EpisodeSource;

typedef struct Pool Pool;
// Every thread's env plays env_id with ALE's mode and difficulty (env_init_flavour), with
// scratch for the seeds' network of shape's size. shape NULL or empty (n = 0, a run without
// the seeds' network): the threads alone, for pool_for
// (a learner with envs and a network of its own); pool_play is then not to be called.
Pool *pool_create(int threads, const char *env_id, int mode, int difficulty, const Policy *shape);  // NULL on failure
void pool_destroy(Pool *pool);
// Play the episodes handed out by src with policy p (read-only meanwhile); episode k's random
// streams are episode_seed.h's for run_seed. Per-episode stats go to stats[k - first] (the
// caller zeroes stats; it holds `count` entries). The exact sum of the gradients is the pool's
// own memory (*sum, valid until the next call): on the W1 rows in `rows` (on return: the rows
// the episodes touched) and on W2; its other rows hold stale values, not zeros. Returns 0, or
// -1 with a message in err.
int pool_play(Pool *pool, const Policy *p, uint64_t run_seed, double gamma, EpisodeSource *src,
              int64_t first, int count, EpisodeStats *stats, const GradSum **sum, RowSet *rows,
              char *err, size_t errlen);
// Run fn(ctx, part, parts) for every part in [0, parts) at once, one on each of the pool's
// threads (parts = pool_threads()), and wait for all: the learner's passes over the rows,
// between batches. With one thread it runs inline. Not while pool_play() runs.
void pool_for(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx);
int pool_threads(const Pool *pool);

#endif
