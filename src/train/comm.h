// comm.h: how a process takes part in an iteration. A single process uses comm_local_create();
// the MPI transport (src/cluster/) supplies the same shape for ranks across machines. The loop
// and the learners (learner.h) call only these.
#ifndef PONGRL_COMM_H
#define PONGRL_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../util/rowset.h"
#include "gradsum.h"
#include "pool.h"
#include "state.h"

typedef struct Comm {
    int rank, size;
    // Rank 0 is the learner's voice (it decides when to stop, logs, checkpoints); every rank
    // holds the whole state and applies the same update to the same sums.
    // Start of an iteration: the counters and the stop flag out of rank 0 (and, once, its
    // weights and the learner's arrays, settled). 0, or -1 when the other ranks cannot be reached.
    int (*begin)(struct Comm *c, TrainState *s, bool *stop);
    // Work items [first, first + count) of this iteration (episodes, for pg), handed out to
    // this process's threads as they free up.
    EpisodeSource *(*source)(struct Comm *c, int64_t first, int count);
    // The exact sum over the ranks, on every rank:
    //   `sum`: a gradient of D = rows->D rows of H entries, then a dense tail of the rest
    //   (sum->n - D H entries: pg's W2, ppo's b1 and heads), this process's exact sum, valid on
    //   the rows in `rows` and on the tail (zeros where this process added nothing). Out: in
    //   `rows`, every row some rank touched; at *g, the total on those rows and the tail,
    //   converted to float64 once and packed (row rows->list[k] at g[k H], the tail at
    //   g[rows->n H]) (the Comm's memory, valid until its next call), or NULL where this
    //   process's sum is the total already (one process: convert it as you go).
    //   `x`: nx integers, summed in place (each rank puts in its share, zeros elsewhere).
    //   `digest`: this rank's weights digest (TrainState.digest): the ranks must agree, else
    //   the call fails (their updates were not the same computation).
    // The pool's threads are idle meanwhile: the transport may share its passes out to them.
    // 0, or -1 with one line in err.
    int (*reduce)(struct Comm *c, Pool *pool, const GradSum *sum, RowSet *rows, size_t H, int64_t *x, int nx,
        uint64_t digest, const double **g, char *err, size_t errlen);
    // Every rank's bytes to every rank, in rank order (for ppo, the part of the rollout each
    // rank played): this rank's n bytes at `mine`; out: at *all the ranks' bytes one after
    // another, rank r's sizes[r] of them (the Comm's memory, valid until its next call; one
    // process: mine itself). 0, or -1 with one line in err.
    int (*allgather)(struct Comm *c, const void *mine, size_t n, const uint8_t **all, const size_t **sizes, char *err,
        size_t errlen);

    // The start and the end of a run. local_size: the processes of this job on this machine
    // (they share its cores).
    int local_size;
    // Collective, before the state is made: the ranks agree on what defines the run (config.h,
    // role RUN). Rank 0's goes to every rank; a rank that `adopt`s takes it into cfg (the other
    // ranks of a resumed run, which need not see its directory); the others must hold the same
    // and run the same binary. cfg->workers are this process's threads. 0, or -1 on every rank
    // with one line in err (rank 0's names the ranks that differ and how).
    int (*agree)(struct Comm *c, TrainConfig *cfg, bool adopt, char *err, size_t errlen);
    // ", 3 MPI ranks (...)" for the run's first line, or "".
    void (*describe)(struct Comm *c, char *out, size_t n);
    // Collective, after a run that ended well: the transport's account on out (rank 0) and the
    // check that every rank ended with the same weights. 0, or -1 (said on stderr).
    int (*report)(struct Comm *c, const TrainState *s, FILE *out);
    // After a failure on this rank: msg on stderr ("pongrl: msg"; with ranks, "pongrl: rank R:
    // msg"), and a transport of several processes ends the whole job here, as the others would
    // wait for this one. The single process returns, and the caller ends as it would.
    void (*fail)(struct Comm *c, const char *msg);
    void (*destroy)(struct Comm *c);
    void *ctx;
} Comm;

// The slots every transport fills, from its functions PREFIX_begin, ... PREFIX_destroy: one
// list, so that a transport that lacks one does not compile rather than leave a NULL to call.
#define COMM_SLOTS(PREFIX) \
    .begin = PREFIX##_begin, .source = PREFIX##_source, .reduce = PREFIX##_reduce, .allgather = PREFIX##_allgather, \
    .agree = PREFIX##_agree, .describe = PREFIX##_describe, .report = PREFIX##_report, .fail = PREFIX##_fail, \
    .destroy = PREFIX##_destroy

// This rank's share [*lo, *hi) of n items split in rank order (c NULL: one process, all of them),
// as the learners split their envs and blocks of samples: the ranks split them as a pool's
// threads do (part_range, pool.h).
static inline void comm_share(const Comm *c, int n, int *lo, int *hi) {
    part_range(n, c ? c->rank : 0, c ? c->size : 1, lo, hi);
}

// The single-process transport (work items from an atomic counter, nothing to send); NULL if
// out of memory.
Comm *comm_local_create(void);

#endif
