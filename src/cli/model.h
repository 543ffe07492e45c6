// model.h: the model that eval, record and export are pointed at.
#ifndef PONGRL_MODEL_H
#define PONGRL_MODEL_H

#include <stddef.h>

#include "../train/state.h"

// A checkpoint file, a run directory (its newest usable checkpoint), a checkpoints/ folder,
// or a folder holding the seed's W1.npy and W2.npy. Fills s (cfg default except what the
// source says; no learner state for .npy) and a short description of what was loaded. 0, or -1
// with one line in err.
int model_load(const char *src, TrainState *s, char *desc, size_t desclen, char *err, size_t errlen);

#endif
