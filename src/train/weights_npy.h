// weights_npy.h: networks in and out of .npy files, for NumPy. Each learner names its arrays
// and their shapes (Learner.export_npy, import_npy); a learner whose settings shape its network
// writes them beside the arrays as DIR/model.txt (docs/runs.md gives the forward passes).
// Each file is written whole beside its name and renamed (file_replace): a full disk or a kill
// leaves the previous files (or none), never a partial one.
#ifndef PONGRL_WEIGHTS_NPY_H
#define PONGRL_WEIGHTS_NPY_H

#include <stddef.h>

#include "config.h"

#define NPY_ARRAYS_MAX 8

// One float64 array of a network as DIR/name, of this shape (ndim 1 or 2).
typedef struct {
    const char *name;
    int ndim;
    size_t shape[2];
    double *data;
} NpyArray;

// Writes the n arrays into DIR, all or none; weights that are not finite are refused. 0, or
// -1 with one line in err.
int npy_arrays_export(const char *dir, const NpyArray *a, int n, char *err, size_t errlen);
// Reads DIR/a[k].name into a[k].data for each k: float64 of exactly a[k]'s shape, finite. 0,
// or -1 with one line in err (a missing file, another shape or dtype, NaN or infinity).
int npy_arrays_import(const char *dir, const NpyArray *a, int n, char *err, size_t errlen);
// DIR/name as float64 of any shape (at most 4 dimensions): *ndim, shape and *out (free() it).
// 0, or -1 with one line in err naming the file.
int npy_array_read(const char *dir, const char *name, int *ndim, size_t *shape, double **out, char *err, size_t errlen);

// DIR/model.txt: "name=value" lines (a line starting with '#' is a comment):
//   format=1, then the learner's notes for readers outside pongrl (what the settings alone do
//   not say: the input's size, the actions each output means), then the run's settings as a
//   checkpoint holds them (train_config_write, SETTING_RUN: algo first).
#define MODEL_TXT        "model.txt"
#define MODEL_TXT_FORMAT 1
#define MODEL_NOTES_MAX  8
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
// The notes of a network of input_size inputs whose outputs (or blocks of outputs) are the env
// actions ids[0 .. n) (env.h's ACTION_*), in this order: input_size, actions (ALE's names),
// action_ids. Every learner with model.txt writes these three, so that play_npy.py and nets.py
// read any export alike.
void model_notes_network(ModelNotes *notes, int input_size, const int *ids, int n);
// A model.txt's notes against want (what this build's `network`, its name in the message, has
// with the model's settings): no line unknown, none of another value, none missing. 0, or -1
// with one line in err naming DIR/model.txt.
int model_notes_match(
    const char *dir, const ModelNotes *notes, const ModelNotes *want, const char *network, char *err, size_t errlen);
// A learner's export: the n arrays, then DIR/model.txt (last: a folder with it holds the arrays
// it describes); wrote says what was written ("DIR/x_W1.npy (D, H), x_b1, x_W2 (A, H), x_b2
// (.npy, float64) and DIR/model.txt"). 0, or -1 with one line in err.
int model_export(const char *dir, const TrainConfig *cfg, const NpyArray *a, int n, const ModelNotes *notes,
    char *wrote, size_t wlen, char *err, size_t errlen);
// Reads DIR/model.txt: cfg gets the defaults and then the file's settings; the lines that are
// no setting go to notes. 0, or -1 with one line in err.
int model_txt_read(const char *dir, TrainConfig *cfg, ModelNotes *notes, char *err, size_t errlen);

#endif
