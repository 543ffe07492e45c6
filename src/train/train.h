// train.h: the seed's training loop. Workers (threads here, MPI ranks x threads across
// machines) each own a Pong environment, play whole episodes with the current weights and
// turn each into a gradient (pool.h); the learner sums a batch of them, applies RMSProp
// (update.h) and the transport (comm.h) sends the new weights out.
//
// Same seed, same bits: episode k of the run (counted from 0 over the whole run) is played
// with the env seed and action seed derived from (run seed, k) alone (episode_seed.h), and the
// batch's gradient sum is exact fixed point (gradsum.h). So the weights after N iterations do
// not depend on the number of threads or ranks, on who played which episode, nor on resuming.
//
// The loop writes no file and prints nothing: what a batch leaves behind (the log line,
// metrics.csv, checkpoints) is the caller's, through TrainHooks (cli/train_progress.c).
#ifndef PONGRL_TRAIN_H
#define PONGRL_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm.h"
#include "pool.h"
#include "state.h"

// One batch, as the learner saw it.
typedef struct {
    double secs;              // its wall time: counters out to update done
    double batch_mean;        // mean episode reward
    double mean_len;          // mean agent steps per episode
    int64_t steps;            // agent steps in all
} TrainBatch;

typedef struct {
    // Called by the learner (rank 0) after every iteration (final = false, batch: its summary)
    // and once when the loop stops normally (final = true, batch = NULL). Returns 0, or -1
    // with a message in err to end the run.
    int (*on_iteration)(TrainState *s, const TrainBatch *batch, bool final, void *ctx, char *err, size_t errlen);
    void *ctx;
} TrainHooks;

// Run the loop until cfg's iteration limit or target, or until train_request_stop(). hooks
// may be NULL. Returns 0 on a normal stop, -1 with a message in err.
int train_run(TrainState *s, Pool *pool, Comm *comm, const TrainHooks *hooks, char *err, size_t errlen);

// Async-signal-safe: ask the loop to stop after the current batch.
void train_request_stop(void);
bool train_stop_requested(void);

#endif
