// learner_util.h: what the learners' folders (algo/<name>/) share that is no part of the
// loop's shape (train/learner.h), so that a new learner calls it instead of copying it.
#ifndef PONGRL_LEARNER_UTIL_H
#define PONGRL_LEARNER_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../train/config.h"

// The slots every learner of algo.c's list fills, from its functions PREFIX_memory_bytes,
// PREFIX_create, ... PREFIX_agent (train/learner.h says what each is for): one list, so that a
// learner that lacks one does not compile, rather than leaving a NULL for the loop to call.
// Its table names the rest: name, summary, metrics and the slots only some learners have.
#define LEARNER_SLOTS(PREFIX) \
    .memory_bytes = PREFIX##_memory_bytes, .create = PREFIX##_create, .destroy = PREFIX##_destroy, \
    .arrays = PREFIX##_arrays, .settle = PREFIX##_settle, .settled = PREFIX##_settled, .iterate = PREFIX##_iterate, \
    .weights = PREFIX##_weights, .export_npy = PREFIX##_export_npy, .import_npy = PREFIX##_import_npy, \
    .agent = PREFIX##_agent

// A learner's create takes only settings that can be: every row of TRAIN_SETTINGS in its range
// (train_config_check), then the learner's own check of them together (check, its
// Learner.check). 0, or -1 with one line in err.
int learner_settings_check(const TrainConfig *c, const char *(*check)(const TrainConfig *), char *err, size_t errlen);

// A learner's state that lives outside its arrays (its envs' games, a replay memory), held as
// float64 arrays for the checkpoint (Learner.arrays names each part's data): saved into them when
// the loop settles the run, given back to the learner by the next iteration after a load (or,
// a fresh run, what it saved at its start). So the checkpoint always holds what the next
// iteration plays from, and a load needs nothing but the arrays.
#define LEARNER_HELD_MAX 4
typedef struct {
    const char *refused; // a load's line when owner refuses the part ("the checkpoint's ... are not valid")
    double *data;        // (len) the part as last settled or loaded
    size_t len;
    void (*save)(const void *owner, double *out);
    int (*load)(void *owner, const double *in); // -1 for values no save writes
} LearnerHeldPart;

typedef struct {
    int n;
    LearnerHeldPart part[LEARNER_HELD_MAX];
    bool loaded;        // the parts hold a state the learner has not taken yet
    int64_t settled_at; // the iteration they were settled at
} LearnerHeld;

// After the learner filled part[0 .. n) but their data: each part's data made and owner's state
// saved into it (a fresh run's; a checkpoint's load overwrites it), as settled at iteration. 0,
// or -1 (out of memory).
int learner_held_start(LearnerHeld *h, const void *owner, int64_t iteration);
// Learner.settle: every part saved, unless it holds a state not yet taken or was saved at this
// iteration.
void learner_held_settle(LearnerHeld *h, const void *owner, int64_t iteration);
// Learner.settled: the parts hold the state of this iteration.
bool learner_held_settled(const LearnerHeld *h, int64_t iteration);
// Before an iteration: a state not yet taken given to owner, part by part. 0, or -1 with one
// line in err.
int learner_held_take(LearnerHeld *h, void *owner, char *err, size_t errlen);
void learner_held_free(LearnerHeld *h);

#endif
