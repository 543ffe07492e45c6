// train.h: the seed's training loop. Workers (threads here, MPI ranks x threads across
// machines) each own a Pong environment, play whole episodes with the current weights and
// turn each into a gradient; the learner sums a batch of them, applies RMSProp and sends
// the new weights out.
//
// Same seed, same bits: episode k of the run (counted from 0 over the whole run) is played
// with the env seed and action seed derived from (run seed, k) alone, and the batch's
// gradient sum is exact fixed point (gradsum.h). So the weights after N iterations do not
// depend on the number of threads or ranks, on who played which episode, nor on resuming.
#ifndef PONGRL_TRAIN_H
#define PONGRL_TRAIN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/policy.h"
#include "../rl/rollout.h"
#include "gradsum.h"

#define TRAIN_RUNNING_DECAY 0.99      // the seed: running = 0.99 * running + 0.01 * episode reward
#define RUN_DIR_MAX 1024
// metrics.csv's first line; each row after it: iteration,episodes,agent_steps,wall_s,batch_mean_reward,
// running_mean,mean_episode_length (%lld,%lld,%lld,%.3f,%.4f,%.6f,%.1f)
#define TRAIN_METRICS_HEADER "iteration,episodes,agent_steps,wall_s,batch_mean_reward,running_mean,mean_episode_length"

typedef struct {
    char env_id[64];          // preset id, default "ALE/Pong-v5" (the newest seed)
    int batch_size;           // episodes per update (seed: 10)
    int hidden;               // H (seed: 200)
    double lr, gamma, decay;  // 1e-4, 0.99, 0.99
    uint64_t seed;
    // how the run is carried out; not part of what makes it reproducible
    int64_t iterations;       // stop after this many updates in total (-1: no limit)
    double target_reward;     // stop when the running mean reaches it
    bool has_target;
    int workers;              // threads per process (default: one per core this process may use)
    char run_dir[RUN_DIR_MAX];
    int64_t checkpoint_every; // iterations between checkpoints
    double checkpoint_secs;   // seconds between checkpoints
    int keep;                 // checkpoints kept
    bool quiet;
} TrainConfig;

void train_config_default(TrainConfig *c);
// The CPUs this process may run on (its affinity mask: taskset, cgroups, mpirun's binding).
int train_cores_available(void);

// A set of W1 rows (input pixels of the 80x80 grid): a mask and the list of its members.
typedef struct {
    int n, D;
    uint16_t *list;           // (D,) the members, in the order they were added
    uint8_t *in;              // (D,) 1 for a member
} RowSet;
int rowset_alloc(RowSet *r, int D);                   // 0 or -1 (out of memory); empty
void rowset_free(RowSet *r);
static inline void rowset_add(RowSet *r, int row) {
    if (!r->in[row]) { r->in[row] = 1; r->list[r->n++] = (uint16_t)row; }
}
void rowset_clear(RowSet *r);

typedef struct TrainState {
    TrainConfig cfg;
    Policy policy;
    double *cache;            // (n,) RMSProp cache, starts at zero
    // NULL, or (D,): row i of W1's cache has had the updates up to iteration cache_at[i]; the
    // later ones, of a zero gradient, are owed (rmsprop_decay) until train_state_settle().
    int64_t *cache_at;
    // Order-free digest of every weight train_apply_update wrote since this state was made or
    // loaded: ranks that update their own copies compare it every iteration.
    uint64_t digest;
    int64_t iteration;        // updates done
    int64_t episodes;         // episodes done (= iteration * batch_size)
    int64_t agent_steps, frames;
    double running_reward;    // meaningful once episodes > 0
    double wall_s;            // training wall time, all sessions of the run together
    // Called by the learner after every iteration (final = false) and once when the loop
    // stops normally (final = true): the CLI saves checkpoints there, so train/ knows no
    // files. NULL: nothing. Returns 0, or -1 with a message in err to end the run.
    int (*on_iteration)(struct TrainState *s, bool final, void *ctx, char *err, size_t errlen);
    void *on_iteration_ctx;
    // Set when the learner's per-batch line could not be written (stdout closed: `train | head`);
    // the run then stops after the batch, as on Ctrl-C, and the CLI says why.
    int stdout_errno;
} TrainState;

// A fresh run: weights from the seed, cache zero, counters zero. 0 or -1 (out of memory).
int train_state_init(TrainState *s, const TrainConfig *cfg);
void train_state_free(TrainState *s);
// Apply the owed cache decays, so that s->cache is what the dense update would hold (before a
// checkpoint is written; checkpoint_write refuses an unsettled state).
void train_state_settle(TrainState *s);
bool train_state_settled(const TrainState *s);
// Start deferring (allocates cache_at; train_run does it). 0 or -1 (out of memory).
int train_state_defer(TrainState *s);
// The seed's RMSProp step for the batch gradient, which is zero outside the W1 rows in `rows`
// and W2, given packed (row rows->list[k] at g[k H], W2 at g[rows->n H]): those rows and W2 are
// updated, the other rows' cache decays are deferred. Needs train_state_defer(). The caller
// then counts the iteration (s->iteration++). (train_run does the same on the pool's threads.)
void train_apply_update(TrainState *s, const double *g, const RowSet *rows);

// The random streams of episode k (global index) of a run.
uint64_t episode_env_seed(uint64_t run_seed, int64_t k);
uint64_t episode_act_seed(uint64_t run_seed, int64_t k);

// ----------------------------------------------------------------------------
// Where episode indices come from. Threads call next() concurrently; it returns the next
// global episode index this process should play, or -1 when there is none left. poll(), if
// not NULL, is called by the process's main thread while its workers play (MPI progress).
typedef struct EpisodeSource {
    int64_t (*next)(struct EpisodeSource *src);
    void (*poll)(struct EpisodeSource *src);
    void *ctx;
} EpisodeSource;

// A pool of persistent worker threads, each owning an Env and scratch for its whole life.
typedef struct Pool Pool;
Pool *pool_create(int threads, const char *env_id, const Policy *shape);  // NULL on failure
void pool_destroy(Pool *pool);
// Play the episodes handed out by src with policy p (read-only meanwhile). Per-episode stats
// go to stats[k - first] (the caller zeroes stats; it holds `count` entries). The exact sum of
// the gradients is the pool's own memory (*sum, valid until the next call): on the W1 rows in
// `rows` (on return: the rows the episodes touched) and on
// W2; its other rows hold stale values, not zeros. Returns 0, or -1 with a message in err.
int pool_play(Pool *pool, const Policy *p, uint64_t run_seed, double gamma, EpisodeSource *src,
              int64_t first, int count, EpisodeStats *stats, const GradSum **sum, RowSet *rows,
              char *err, size_t errlen);
// Run fn(ctx, part, parts) for every part in [0, parts) at once, one on each of the pool's
// threads (parts = pool_threads()), and wait for all: the learner's passes over the rows,
// between batches. With one thread it runs inline. Not while pool_play() runs.
void pool_for(Pool *pool, void (*fn)(void *ctx, int part, int parts), void *ctx);
int pool_threads(const Pool *pool);

// ----------------------------------------------------------------------------
// How a process takes part in an iteration. A single process uses comm_local_create();
// the MPI transport (src/cluster/) supplies the same shape for ranks across machines.
typedef struct Comm {
    int rank, size;
    // Rank 0 is the learner (it decides when to stop, logs, checkpoints); every rank holds the
    // weights and the RMSProp cache and applies the same update to the same batch sum.
    bool (*begin)(struct Comm *c, Policy *p, bool *stop);      // counters and stop flag out
    EpisodeSource *(*source)(struct Comm *c, int64_t first, int count);
    // In: this process's exact sum (valid on its W1 rows in `rows` and W2) and stats. Out, on
    // every rank: in `rows`, every W1 row the batch touched; at *g, the batch's gradient on
    // those rows and W2, converted to float64 once and packed as train_apply_update() takes it
    // (the Comm's memory, valid until its next call), or NULL where this process's sum is
    // already the batch's (one process: the update converts it row by row as it goes); and
    // every episode's stats.
    // The pool's threads are idle meanwhile: the transport may share its passes out to them.
    int (*end)(struct Comm *c, Pool *pool, const GradSum *sum, RowSet *rows, EpisodeStats *stats,
               int count, const double **g, char *err, size_t errlen);
    void *ctx;
} Comm;

// The single-process transport (episodes from an atomic counter, nothing to send); NULL if
// out of memory.
Comm *comm_local_create(void);
void comm_local_destroy(Comm *c);

// Run the loop until cfg's iteration limit or target, or until train_request_stop().
// Returns 0 on a normal stop, -1 with a message in err.
int train_run(TrainState *s, Pool *pool, Comm *comm, char *err, size_t errlen);

// Async-signal-safe: ask the loop to stop after the current batch.
void train_request_stop(void);
bool train_stop_requested(void);

#endif
