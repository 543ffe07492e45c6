// learner.h: the shape of a learner, as the loop (train.c), the checkpoint and the transport
// call it. The learners themselves are folders of src/algo/ (algo/pg/: Karpathy's policy
// gradient; ppo), listed once in algo/algo.c:
// the loop, the CLI and the transport hold a `const Learner *` and never ask which one it is,
// as they hold a Comm (comm.h) and never ask which transport.
//
// What is whose in a run (TrainState, state.h):
//   the run's:      settings, counters (iteration, episodes, steps, running mean, wall time)
//   the learner's:  everything else it needs to go on bit-identically (its network, an
//                   optimiser's state, its envs), listed as float64 arrays (Learner.arrays)
//                   that the checkpoint writes and reads and the transport sends out once; and
//                   its scratch. eval, record and export act with its own network through it
//                   (rl/agent.h's AgentPolicy, export_npy).
// One iteration (Learner.iterate) is "play, then update" however the learner does it: whole
// episodes (pg) or fixed-length rollouts over many envs with several minibatch steps (ppo).
// Every sum that must be the same bits on any number of threads and ranks goes through the
// exact fixed point (gradsum.h) and, across ranks, Comm.reduce.
#ifndef PONGRL_LEARNER_H
#define PONGRL_LEARNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../rl/agent.h"
#include "../util/streams.h"

typedef struct TrainState TrainState;
typedef struct TrainConfig TrainConfig;
typedef struct WorkPool Pool; // pool.h
typedef struct Comm Comm;
typedef struct ModelNotes ModelNotes;

#define LEARNER_METRICS_MAX    8 // diagnostics a learner may log per iteration
#define LEARNER_ARRAYS_MAX     8 // float64 arrays of state a learner may have
#define LEARNER_ARRAY_NAME_MAX 24

// One finished episode, as the run's counters and its log take it.
typedef struct {
    int reward_sum; // agent points - CPU points
    int steps;      // agent steps
    int64_t frames; // emulated frames
    bool truncated; // ended by the episode cap, not by 21 points
} EpisodeStats;

// One float64 array of a learner's state (its memory): what a checkpoint holds and the
// transport sends out once. nonneg: every entry must be >= 0 (an RMSProp cache, Adam's v), else
// every entry must be finite; a file that breaks the rule is refused on load.
typedef struct {
    const char *name;
    double *data;
    size_t n;
    bool nonneg;
} LearnerArray;

// What one iteration did, for the run's counters and its log.
typedef struct {
    // The episodes it finished, in the run's fixed order (episode index for pg; for rollouts,
    // say, by env then by step): the running mean takes them in this order, so it is the
    // same bits whoever played them. The learner's memory, valid until its next iteration.
    const EpisodeStats *episodes;
    int count;
    int64_t steps, frames;               // agent steps and emulated frames played, all ranks together
    double metrics[LEARNER_METRICS_MAX]; // its diagnostics, in the order of Learner.metrics
} LearnerBatch;

typedef struct Learner {
    const char *name;    // the --algo value
    const char *summary; // one line for --help
    // The settings that shape its network, NULL-terminated: a run started from a model's
    // weights (train --init) takes them from the model.
    const char *const *network;
    // Its network's files as export writes them and import reads them, one phrase for --help.
    const char *npy_files;
    // Its diagnostics, NULL-terminated (at most LEARNER_METRICS_MAX): extra metrics.csv
    // columns after the common ones, in this order.
    const char *const *metrics;
    // Bytes a run of this configuration needs (weights, its state, each worker thread's
    // share): a run that does not fit is refused before anything is allocated.
    double (*memory_bytes)(const TrainConfig *c);
    // Its state for s (s->cfg set). fresh: every array as a fresh run of these settings has it
    // (the initial weights drawn from s->cfg.seed; a checkpoint stores each array as its
    // difference from these, so they must be a function of the settings alone); else the
    // arrays are filled in after this returns (checkpoint, transport, import). 0, or -1 (out of
    // memory).
    int (*create)(TrainState *s, bool fresh);
    void (*destroy)(TrainState *s);
    // Its state's arrays, in a fixed order (at most LEARNER_ARRAYS_MAX); returns how many.
    // Read only after settle().
    int (*arrays)(TrainState *s, LearnerArray *out);
    // Bring its arrays up to date, for a checkpoint or to send them out (pg defers the RMSProp
    // cache decays of untouched rows); settled(): nothing owed.
    void (*settle)(TrainState *s);
    bool (*settled)(const TrainState *s);
    // One iteration, on every rank: play with its network, update it and the learner's state.
    // The pool's threads are this process's workers; comm hands out work (source), sums
    // exactly across ranks (reduce), passes each rank's bytes to every rank (allgather); its
    // rank and size let a learner split fixed work itself (ppo: a range of the envs, a share of
    // each minibatch's chunks). 0, or -1 with one line in err.
    int (*iterate)(TrainState *s, Pool *pool, Comm *comm, LearnerBatch *b, char *err, size_t errlen);
    // NULL, or the episodes every iteration finishes (whole-episode learners: pg's batch); NULL
    // where it varies (fixed-length rollouts). metrics.csv's rows are checked against it on resume.
    int (*episodes_per_iteration)(const TrainConfig *c);
    // NULL, or what is wrong with c's settings together (one line), beyond each one's range.
    const char *(*check)(const TrainConfig *c);
    // Its network's weights (*n of them; one of its arrays): what the run's closing "weights
    // crc32" is of.
    const double *(*weights)(const TrainState *s, size_t *n);
    // Its network as .npy files in dir (weights_npy.h), with dir/model.txt where its settings
    // shape it: what NumPy plays (docs/runs.md) and import reads back; `wrote` gets one line
    // naming the files. Called with the learner attached. 0, or -1 with one line in err.
    int (*export_npy)(TrainState *s, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen);
    // The way back: s, holding the settings of dir/model.txt (notes: its other lines; NULL for
    // a folder without model.txt that bare_npy called this learner's), takes dir's network as
    // this learner's state (attached), the rest as made (train_state_attach). 0, or -1 with one
    // line in err (a file that does not fit the settings or this build).
    int (*import_npy)(TrainState *s, const char *dir, const ModelNotes *notes, char *err, size_t errlen);
    // NULL, or asked of a folder without model.txt whether it holds this learner's files (pg:
    // Karpathy's W1.npy and W2.npy): the files in one phrase for the user, else NULL.
    const char *(*bare_npy)(const char *dir);
    // How it acts (eval, record, watch): its network as an AgentPolicy (rl/agent.h), sampling
    // or greedy, valid while s is. Called with the learner attached.
    AgentPolicy (*agent)(TrainState *s, bool greedy);
    // Its random streams' keys (util/streams.h's StreamDecl, ending with a zeroed one), declared
    // in its folder: the words no other key of the build may take (tests/unit/test_streams.c).
    // A vector env it makes takes one of those declared env_episode.
    const StreamDecl *streams;
} Learner;

// The learner of `name` in a NULL-terminated list, or NULL.
static inline const Learner *learner_find(const Learner *const *list, const char *name) {
    for (; list && *list; list++)
        if (!strcmp((*list)->name, name)) return *list;
    return NULL;
}

#endif
