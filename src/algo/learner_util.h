// learner_util.h: what the learners' folders (algo/<name>/) share that is no part of the
// loop's shape (train/learner.h), so that a new learner calls it instead of copying it.
#ifndef PONGRL_LEARNER_UTIL_H
#define PONGRL_LEARNER_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../train/comm.h"
#include "../train/config.h"
#include "../train/pool.h"
#include "../train/state.h"

// The slots every learner of algo.c's list fills, from its PREFIX_metrics and its functions
// PREFIX_memory_bytes, PREFIX_create, ... PREFIX_agent (train/learner.h says what each is for):
// one list, so that a learner that lacks one does not compile, rather than leaving a NULL for
// the loop to call. Its table names the rest: name, summary and the slots only some learners
// have.
#define LEARNER_OWN_SLOTS(PREFIX) \
    .metrics = PREFIX##_metrics, .memory_bytes = PREFIX##_memory_bytes, .create = PREFIX##_create, \
    .arrays = PREFIX##_arrays, .iterate = PREFIX##_iterate, .weights = PREFIX##_weights, \
    .export_npy = PREFIX##_export_npy, .import_npy = PREFIX##_import_npy, .agent = PREFIX##_agent
#define LEARNER_SLOTS(PREFIX) \
    LEARNER_OWN_SLOTS(PREFIX), .destroy = PREFIX##_destroy, .settle = PREFIX##_settle, .settled = PREFIX##_settled

// A learner's create takes only settings that can be: every row of the settings table (train/settings.def) in its range
// (train_config_check), then the learner's own check of them together (check, its
// Learner.check). 0, or -1 with one line in err.
int learner_settings_check(const TrainConfig *c, const char *(*check)(const TrainConfig *), char *err, size_t errlen);

// A learner's object (PPO's Ppo, QR-DQN's Qr) for settings c: c checked
// (learner_settings_check with check), size zeroed bytes, then make fills them in (0, or -1: out
// of memory, what it made left for destroy). The object, or NULL with one line in err.
void *learner_object_create(const TrainConfig *c, const char *(*check)(const TrainConfig *), size_t size,
    int (*make)(void *obj, const TrainConfig *c), void (*destroy)(void *obj), char *err, size_t errlen);

// A learner object's bind (ppo_bind, qr_bind) to an iteration's pool and transport, the same
// for every object type with the fields pool, comm, env0, env1, threads and cfg: they are set,
// [env0, env1) to its rank's range of the envs (comm_share); where the pool has another number
// of threads than its per-thread scratch was made for, THREADS(OBJ, n) makes that again for n
// (and sets OBJ->threads). 0, or -1 (out of memory).
#define LEARNER_BIND(OBJ, POOL, COMM, THREADS) \
    ((OBJ)->pool = (POOL), (OBJ)->comm = (COMM), comm_share((COMM), (OBJ)->cfg.envs, &(OBJ)->env0, &(OBJ)->env1), \
        pool_threads(POOL) == (OBJ)->threads ? 0 : THREADS((OBJ), pool_threads(POOL)))

// A learner's state that lives outside its arrays (its envs' games, a replay memory), held as
// float64 arrays for the checkpoint (each part one of Learner.arrays): saved into them when the
// loop settles the run, given back to the learner by the next iteration after a load (or, a
// fresh run, what it saved at its start). So the checkpoint always holds what the next
// iteration plays from, and a load needs nothing but the arrays.
#define LEARNER_HELD_MAX 4
typedef struct {
    const char *name;    // its array's (LearnerArray)
    bool nonneg;         // LearnerArray.nonneg
    const char *refused; // a load's line when the owner refuses the part ("the checkpoint's ... are not valid")
    size_t len;
    void (*save)(const void *owner, double *out);
    int (*load)(void *owner, const double *in); // -1 for values no save writes
    double *data;                               // (len) the part as last settled or loaded
} LearnerHeldPart;

typedef struct {
    int n;
    LearnerHeldPart part[LEARNER_HELD_MAX];
    bool loaded;        // the parts hold a state the learner has not taken yet
    int64_t settled_at; // the iteration they were settled at
} LearnerHeld;

// TrainState.algo of a learner whose state is an object of its own (PPO's Ppo, QR-DQN's Qr)
// and parts of it held (LearnerHeld): its create makes the object and calls learner_box_create;
// its destroy, settle and settled are the ones below (LEARNER_BOX_SLOTS).
typedef struct {
    void *obj;
    void (*obj_free)(void *obj);
    LearnerHeld held;
} LearnerBox;

static inline LearnerBox *learner_box(const TrainState *s) { return (LearnerBox *)s->algo; }

// Learner.create's end: s->algo a box of obj (as made) and its n held parts but their data (each
// part's len from obj), which are made and saved as a fresh run's (a checkpoint's load
// overwrites them), as settled at s->iteration. 0, or -1 (out of memory) with obj freed and
// s->algo NULL.
int learner_box_create(TrainState *s, void *obj, void (*obj_free)(void *), const LearnerHeldPart *parts, int n);
void learner_box_destroy(TrainState *s);
// Learner.settle: every part saved, unless it holds a state not yet taken or was saved at this
// iteration. settled: the parts hold the state of this iteration.
void learner_box_settle(TrainState *s);
bool learner_box_settled(const TrainState *s);
// Learner.arrays' tail: the held parts' data, one array each, in their order. Returns how many.
int learner_box_arrays(const TrainState *s, LearnerArray *out);
// Learner.iterate's start: bound, the result of the learner's bind (-1: out of memory), said as
// one line in err; then a state not yet taken (a load's) given to the object, part by part. 0,
// or -1 with one line in err.
int learner_box_begin(TrainState *s, int bound, char *err, size_t errlen);

// The slots of a learner on a LearnerBox: LEARNER_SLOTS' with the box's destroy, settle and
// settled.
#define LEARNER_BOX_SLOTS(PREFIX) \
    LEARNER_OWN_SLOTS(PREFIX), .destroy = learner_box_destroy, .settle = learner_box_settle, \
                               .settled = learner_box_settled

#endif
