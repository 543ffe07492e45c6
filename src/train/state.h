// state.h: where a training run stands: its configuration, the learner and its state
// (learner.h: its network among its arrays), the counters. What a checkpoint holds (checkpoint.h) and every
// rank keeps a copy of.
#ifndef PONGRL_TRAIN_STATE_H
#define PONGRL_TRAIN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "learner.h"

#define TRAIN_RUNNING_DECAY 0.99 // the seed: running = 0.99 * running + 0.01 * episode reward

// Where a run stands, apart from its weights and the learner's arrays: what the other ranks
// take from rank 0 when they start. A TrainState holds them by name and as one TrainCounters
// (the same bytes, as Linux's struct_group), which is copied whole.
#define TRAIN_COUNTER_FIELDS \
    int64_t iteration; /* updates done */ \
    int64_t episodes;  /* episodes finished */ \
    int64_t agent_steps, frames; \
    double running_reward; /* meaningful once episodes > 0 */ \
    double wall_s;         /* training wall time, all sessions of the run together */
typedef struct {
    TRAIN_COUNTER_FIELDS
} TrainCounters;

// A learner's arrays as a checkpoint held them, until a learner takes them (train_state_attach).
typedef struct {
    // from_fresh: each array is held as its bits XOR those of the same array of a fresh run of
    // the same settings (what a checkpoint stores: zero wherever the run has not moved it), and
    // the learner that takes them undoes it. legacy: a version 1 to 3 file, whose first array is
    // its fixed block of Karpathy's network, named "weights" (pg's), which a learner without an
    // array of that name drops (version 2 PPO files carried an unused one).
    // has_crc: crc[i] is array i's packed_crc as the run held it (version 4), checked once
    // the learner has it back.
    bool from_fresh, legacy, has_crc;
    uint32_t crc[LEARNER_ARRAYS_MAX];
    int count;
    char name[LEARNER_ARRAYS_MAX][LEARNER_ARRAY_NAME_MAX];
    double *data[LEARNER_ARRAYS_MAX];
    size_t n[LEARNER_ARRAYS_MAX];
    bool nonneg[LEARNER_ARRAYS_MAX];
} SavedArrays;

typedef struct TrainState {
    TrainConfig cfg;
    const Learner *learner; // NULL: loaded only to act (eval, record, export)
    void *algo;             // the learner's own state (Learner.create)
    SavedArrays saved;      // the learner's arrays as loaded, before a learner takes them
    // A fresh run's arrays for these settings, which every checkpoint is stored against
    // (checkpoint.c): made at the first checkpoint and kept, a cache and not part of the state
    // (making it again took 3 to 6 times the rest of a checkpoint's time).
    SavedArrays fresh;
    // Order-free digest of every weight the learner's updates wrote since this state was made
    // or loaded: ranks that update their own copies compare it every iteration.
    uint64_t digest;
    union {
        struct {
            TRAIN_COUNTER_FIELDS
        };
        TrainCounters counters;
    };
} TrainState;

// A fresh run of `learner`: its initial weights and state, counters zero. 0 or -1 (out of memory).
int train_state_init(TrainState *s, const TrainConfig *cfg, const Learner *learner);
void train_state_free(TrainState *s);
// A loaded state (checkpoint_load) goes on with `learner`: its state is made and takes the
// arrays the checkpoint held (none: its arrays stay as made, for weights that come alone, e.g.
// an import that fills them in next). 0, or -1 with one line in err (they are not this
// learner's, or out of memory).
int train_state_attach(TrainState *s, const Learner *learner, char *err, size_t errlen);
// A fresh run (train_state_init) takes the weights of a loaded model of the same learner and
// network (train --init); the learner's other arrays stay as made. 0, or -1 with one line in err.
int train_state_take_weights(TrainState *s, const TrainState *model, char *err, size_t errlen);
// The learner's state brought up to date (before a checkpoint is written or the state sent
// out; checkpoint_write refuses an unsettled state). Nothing to do without a learner.
void train_state_settle(TrainState *s);
bool train_state_settled(const TrainState *s);
// The weights that say the run's bits (the closing "weights crc32", the ranks' final check):
// its learner's network (Learner.weights); NULL (*n = 0) before a learner is attached.
const double *train_state_weights(const TrainState *s, size_t *n);
// The arrays to save: the learner's (settled), or those loaded and not yet taken. Returns how many.
int train_state_arrays(TrainState *s, LearnerArray *out);

TrainCounters train_state_counters(const TrainState *s);
// This copy of a run takes another copy's standing (a rank > 0, rank 0's, when it starts): its
// counters, and the learner's state settled at them, so that nothing is owed when the weights
// and the learner's arrays are then overwritten with the other copy's (Learner.arrays).
void train_state_adopt(TrainState *s, const TrainCounters *c);

// One rule for weights however they come in or go out (checkpoint read and write, .npy import
// and export): finite weights. NULL when usable, else what is wrong.
const char *weights_unusable(const double *w, size_t n);
// The same rule for a learner's array (finite; non-negative where a.nonneg).
const char *array_unusable(const LearnerArray *a);

#endif
