// train.h: the training loop. Every iteration: rank 0 decides whether to stop (the transport,
// comm.h, tells the others), then the learner (learner.h; Karpathy's recipe is algo/pg/)
// plays with the current weights on this process's worker threads (pool.h) and updates them,
// summing exactly across threads and ranks; the loop counts what was played.
//
// Same seed, same bits: every random stream derives from the run seed and a position fixed
// by the run (util/streams.h's rule; pg's episode k, say), and every sum across threads and ranks is exact
// fixed point (gradsum.h). So the weights after N iterations do not depend on the number of
// threads or ranks, on who played what, nor on resuming.
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

// One iteration, as the log sees it.
typedef struct {
    double secs;                         // its wall time: counters out to update done
    int episodes;                        // episodes it finished
    double batch_mean;                   // their mean reward (0 if none)
    double mean_len;                     // their mean agent steps
    int64_t steps;                       // agent steps in all
    double metrics[LEARNER_METRICS_MAX]; // the learner's diagnostics (Learner.metrics)
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
