// pg.h: Karpathy's recipe as a learner (learner.h): whole episodes played with the current
// weights (episodes.h), each turned into a REINFORCE gradient (rollout.h), the batch's
// gradients summed exactly across threads and ranks, and Karpathy's RMSProp on the sum (pg.c);
// its network as Karpathy's W1.npy and W2.npy (npy.h).
//
// A W1 row no episode touched has a zero gradient: its weights stay as they are and its cache
// only decays, so those steps are deferred (settled before a checkpoint or when the row is
// touched again) and the update costs the touched rows (a few thousand of 6400) and W2, not a
// pass over the whole 20 MB of weights and cache. The bits are those of the dense update.
// Every weight written is folded into TrainState.digest, which ranks compare.
#ifndef PONGRL_ALGO_PG_H
#define PONGRL_ALGO_PG_H

#include "../../train/learner.h"
#include "../../train/pool.h"
#include "../../train/state.h"
#include "../../util/arrays.h"
#include "../../util/rowset.h"
#include "episodes.h"

extern const Learner PG_LEARNER;

// Its state (TrainState.algo of a pg run).
typedef struct {
    Policy net;    // the network; its weights and the cache are pg's arrays, in this order
    double *cache; // (n,) RMSProp cache, starts at zero
    // (D,): row i of W1's cache has had the updates up to iteration cache_at[i]; the later
    // ones, of a zero gradient, are owed (rmsprop_decay) until settled.
    int64_t *cache_at;
    // an iteration's scratch
    EpisodeStats *stats; // (batch,) by episode index
    int64_t *x;          // (4 batch,) the stats as the transport sums them
    RowSet rows;
    int parts;                  // the pool's threads the three below are sized for
    PgPlayers *players;         // (parts,) each thread's env and rollout scratch
    double *scratch;            // (parts x H)
    uint64_t *digests;          // (parts,)
    ArrayBlocks mem, parts_mem; // where pg.c's tables of arrays live: pg_create's, scratch_for's
} PgState;

static inline PgState *pg_state(const TrainState *s) { return (PgState *)s->algo; }

// The step for a gradient that is zero outside the W1 rows in `rows` and W2, given packed (row
// rows->list[k] at g[k H], W2 at g[rows->n H]): those rows and W2 are updated, the other rows'
// cache decays deferred. The caller then counts the iteration (s->iteration++).
void pg_update(TrainState *s, const double *g, const RowSet *rows);

#endif
