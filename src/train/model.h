// model.h: the model that eval, record and export are pointed at.
#ifndef PONGRL_MODEL_H
#define PONGRL_MODEL_H

#include <stddef.h>

#include "state.h"

// A checkpoint file, a run directory (its newest usable checkpoint), a checkpoints/ folder,
// a folder holding Karpathy's W1.npy and W2.npy, or a folder that `pongrl export` wrote for a
// learner with a network of its own (model.txt and its .npy files: weights_npy.h), which that
// learner of `learners` (NULL-terminated; NULL: none) reads, attaching itself. Fills s (cfg
// default except what the source says) with its learner attached (a checkpoint's takes its
// arrays; Karpathy's .npy are pg's weights, its cache zero) and a short description of what
// was loaded. 0, or -1 with one line in err.
int model_load(const char *src, const Learner *const *learners, TrainState *s, char *desc, size_t desclen, char *err,
    size_t errlen);

// A checkpoint, a run directory or Karpathy's W1.npy/W2.npy as an opaque handle, for bindings
// (python/pongrl/policy.py, which reads an exported folder with model.txt itself): NULL with
// one line in err, else a model to read and then close. model_algo(): the learner that trained
// it (for a folder of .npy files without model.txt, the learner whose files they are); model_setting(): a setting's value as config.txt writes
// it (NULL for a name that is no setting), what shapes its network. Karpathy's network:
// model_hidden() = H and model_weights() = D*H + H float64 (W1 transposed (D, H), then W2;
// algo/pg/policy.h): the model's array named "weights" (pg's), NULL where it has none (PPO's
// network is its array "PPO weights").
// (Defined with the list of learners, algo/algo.c: model_open_with(src, that list).)
#define MODEL_WEIGHTS_ARRAY "weights"
TrainState *model_open(const char *src, char *err, size_t errlen);
TrainState *model_open_with(const char *src, const Learner *const *learners, char *err, size_t errlen);
int model_hidden(const TrainState *s);
const double *model_weights(const TrainState *s);
const char *model_algo(const TrainState *s);
const char *model_setting(const TrainState *s, const char *name);
// The learner's i-th array (its name and length; NULL past the last): what Python plays a
// learner's network from (PPO's actor-critic; pg's "weights" is model_weights()).
const double *model_array(const TrainState *s, int i, const char **name, size_t *n);
void model_close(TrainState *s);

#endif
