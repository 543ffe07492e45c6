// weights_npy.h: networks in and out of .npy files, for NumPy.
//   The seeds' network: DIR/W1.npy (H, 6400) and DIR/W2.npy (H,) float64, the seed's
//   model['W1'] and model['W2'].
//   PPO's actor-critic (policy/acnet.h): DIR/ppo_W1.npy (D, H), ppo_b1.npy (H,), ppo_Wpi.npy
//   (A, H), ppo_bpi.npy (A,), ppo_wv.npy (H,), ppo_bv.npy (1,) float64, beside DIR/model.txt:
//   the settings that shape the network and its input (docs/runs.md gives the forward pass).
// Each file is written whole beside its name and renamed (file_replace): a full disk or a kill
// leaves the previous files (or none), never a partial one.
#ifndef PONGRL_WEIGHTS_NPY_H
#define PONGRL_WEIGHTS_NPY_H

#include <stddef.h>

#include "../algo/ppo/acnet.h"
#include "../policy/policy.h"
#include "config.h"

// Writes DIR/W1.npy and DIR/W2.npy. 0, or -1 with one line in err.
int weights_export_npy(const Policy *p, const char *dir, char *err, size_t errlen);
// Allocates p with the H found in the files. 0, or -1 with one line in err.
int weights_import_npy(const char *dir, Policy *p, char *err, size_t errlen);

// Writes the actor-critic's six arrays into DIR. 0, or -1 with one line in err.
int acnet_export_npy(const AcNet *net, const char *dir, char *err, size_t errlen);
// Reads them into net, allocated with the D, H and A the files must have. 0, or -1 with one
// line in err (a missing file, another shape or dtype, NaN or infinity).
int acnet_import_npy(const char *dir, AcNet *net, char *err, size_t errlen);

// DIR/model.txt: "name=value" lines (a line starting with '#' is a comment):
//   format=1, then the learner's notes for readers outside pongrl (what the settings alone do
//   not say: the input's size, the actions each output means), then the run's settings as a
//   checkpoint holds them (train_config_write, SETTING_RUN: algo first).
#define MODEL_TXT "model.txt"
#define MODEL_TXT_FORMAT 1
#define MODEL_NOTES_MAX 8
typedef struct ModelNotes {
    int n;
    char key[MODEL_NOTES_MAX][32];
    char value[MODEL_NOTES_MAX][128];
} ModelNotes;
// Adds a note (key=value); a key or value too long, or a full list, is a caller's bug: -1.
int model_notes_add(ModelNotes *notes, const char *key, const char *value);
// The value of key, or NULL.
const char *model_notes_get(const ModelNotes *notes, const char *key);
int model_txt_write(const char *dir, const TrainConfig *cfg, const ModelNotes *notes, char *err, size_t errlen);
// Reads DIR/model.txt: cfg gets the defaults and then the file's settings; the lines that are
// no setting go to notes. 0, or -1 with one line in err.
int model_txt_read(const char *dir, TrainConfig *cfg, ModelNotes *notes, char *err, size_t errlen);

#endif
