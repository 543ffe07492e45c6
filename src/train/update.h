// update.h: the learner's step, the seed's RMSProp on the batch's gradient sum. A W1 row no
// episode touched has a zero gradient: its weights stay as they are and its cache only decays,
// so those steps are deferred (TrainState.cache_at, settled before a checkpoint) and the
// update costs the touched rows (a few thousand of 6400) and W2, not a pass over the whole
// 20 MB of weights and cache. The bits are those of the dense update. Every weight written is
// folded into TrainState.digest, which ranks compare.
#ifndef PONGRL_UPDATE_H
#define PONGRL_UPDATE_H

#include <stdint.h>

#include "../util/rowset.h"
#include "gradsum.h"
#include "pool.h"
#include "state.h"

// The step for a gradient that is zero outside the W1 rows in `rows` and W2, given packed (row
// rows->list[k] at g[k H], W2 at g[rows->n H]): those rows and W2 are updated, the other rows'
// cache decays deferred. Needs train_state_defer(). The caller then counts the iteration
// (s->iteration++).
void update_apply(TrainState *s, const double *g, const RowSet *rows);

// The same on the pool's threads, a share of the rows each; where g is NULL the gradient is
// sum's rows, converted to float64 as they are used. scratch: (pool_threads x H) doubles,
// digests: (pool_threads,).
void update_apply_pool(TrainState *s, Pool *pool, const double *g, const GradSum *sum, const RowSet *rows,
                       double *scratch, uint64_t *digests);

#endif
