// state.h: where a training run stands: its configuration, the weights, the RMSProp cache
// (with the cache decays the learner defers, update.h), the counters. What a checkpoint holds
// (checkpoint.h) and every rank keeps a copy of.
#ifndef PONGRL_TRAIN_STATE_H
#define PONGRL_TRAIN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/policy.h"
#include "config.h"

#define TRAIN_RUNNING_DECAY 0.99      // the seed: running = 0.99 * running + 0.01 * episode reward

typedef struct {
    TrainConfig cfg;
    Policy policy;
    double *cache;            // (n,) RMSProp cache, starts at zero
    // NULL, or (D,): row i of W1's cache has had the updates up to iteration cache_at[i]; the
    // later ones, of a zero gradient, are owed (rmsprop_decay) until train_state_settle().
    int64_t *cache_at;
    // Order-free digest of every weight the update (update.h) wrote since this state was made
    // or loaded: ranks that update their own copies compare it every iteration.
    uint64_t digest;
    int64_t iteration;        // updates done
    int64_t episodes;         // episodes done (= iteration * batch_size)
    int64_t agent_steps, frames;
    double running_reward;    // meaningful once episodes > 0
    double wall_s;            // training wall time, all sessions of the run together
} TrainState;

// A fresh run: weights from the seed, cache zero, counters zero. 0 or -1 (out of memory).
int train_state_init(TrainState *s, const TrainConfig *cfg);
void train_state_free(TrainState *s);
// Start deferring (allocates cache_at; train_run does it). 0 or -1 (out of memory).
int train_state_defer(TrainState *s);
// Apply the owed cache decays, so that s->cache is what the dense update would hold (before a
// checkpoint is written; checkpoint_write refuses an unsettled state).
void train_state_settle(TrainState *s);
bool train_state_settled(const TrainState *s);

// One rule for weights however they come in or go out (checkpoint read and write, .npy import
// and export): finite weights and a finite, non-negative RMSProp cache (cache may be NULL).
// NULL when usable, else what is wrong.
const char *weights_unusable(const double *w, const double *cache, size_t n);

#endif
