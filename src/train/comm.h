// comm.h: how a process takes part in an iteration. A single process uses comm_local_create();
// the MPI transport (src/cluster/) supplies the same shape for ranks across machines.
#ifndef PONGRL_COMM_H
#define PONGRL_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/policy.h"
#include "../rl/rollout.h"
#include "../util/rowset.h"
#include "gradsum.h"
#include "pool.h"

typedef struct Comm {
    int rank, size;
    // Rank 0 is the learner (it decides when to stop, logs, checkpoints); every rank holds the
    // weights and the RMSProp cache and applies the same update to the same batch sum.
    // Counters and the stop flag out of rank 0 (and, once, its weights): 0, or -1 when the
    // other ranks cannot be reached.
    int (*begin)(struct Comm *c, Policy *p, bool *stop);
    EpisodeSource *(*source)(struct Comm *c, int64_t first, int count);
    // In: this process's exact sum (valid on its W1 rows in `rows` and W2) and stats. Out, on
    // every rank: in `rows`, every W1 row the batch touched; at *g, the batch's gradient on
    // those rows and W2, converted to float64 once and packed as update_apply() takes it
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

#endif
