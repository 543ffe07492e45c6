// weights_npy.h: networks in and out of .npy files, for NumPy. Each learner names its arrays
// and their shapes (Learner.export_npy, import_npy); a learner whose settings shape its network
// writes them beside the arrays as DIR/model.txt (docs/runs.md gives the forward passes).
// An export's files are written into a directory of their own, new (util/dir_replace.h: it takes
// the place of the folder named in one step): each is created exclusively, never replacing a file.
#ifndef PONGRL_WEIGHTS_NPY_H
#define PONGRL_WEIGHTS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define NPY_ARRAYS_MAX 8

// One float64 array of a network as DIR/name, of this shape (ndim 1 or 2).
typedef struct {
    const char *name;
    int ndim;
    size_t shape[2];
    double *data;
} NpyArray;

// Writes the n arrays into DIR, all or none, each file created (none may exist) and synced; crc
// (NULL: not wanted) gets each file's crc32; weights that are not finite are refused. 0, or -1
// with one line in err.
int npy_arrays_export(const char *dir, const NpyArray *a, int n, uint32_t *crc, char *err, size_t errlen);
// Reads DIR/a[k].name into a[k].data for each k: float64 of exactly a[k]'s shape, finite. 0,
// or -1 with one line in err (a missing file, another shape or dtype, NaN or infinity).
int npy_arrays_import(const char *dir, const NpyArray *a, int n, char *err, size_t errlen);
// DIR/name as float64 of any shape (at most 4 dimensions): *ndim, shape and *out (free() it).
// 0, or -1 with one line in err naming the file.
int npy_array_read(const char *dir, const char *name, int *ndim, size_t *shape, double **out, char *err, size_t errlen);

// DIR/model.txt: "name=value" lines (a line starting with '#' is a comment):
//   format=1, then crc32=NAME:hhhhhhhh,... (each array file beside it and the crc32, zlib's, of
//   its bytes, 8 hex digits: what a reader checks, so that model.txt never describes arrays of
//   another export; a model.txt written before the line existed has none, and nothing is
//   checked), then the learner's notes for readers outside pongrl (what the settings alone do
//   not say: the input's size, the actions each output means), then the run's settings as a
//   checkpoint holds them (train_config_write, SETTING_RUN: algo first).
#define MODEL_TXT        "model.txt"
#define MODEL_TXT_FORMAT 1
#define MODEL_NOTES_MAX  8
#define MODEL_CRC32      "crc32"
#define MODEL_FILE_MAX   64 // bytes of an array file's name, its NUL included
typedef struct ModelNotes {
    int n;
    char key[MODEL_NOTES_MAX][32];
    char value[MODEL_NOTES_MAX][128];
    // the crc32 line: files of them (0: no such line), each file's name and crc32
    int files;
    char file[NPY_ARRAYS_MAX][MODEL_FILE_MAX];
    uint32_t crc[NPY_ARRAYS_MAX];
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
// it describes) with their crc32 line; wrote says what was written ("DIR/x_W1.npy (D, H), x_b1, x_W2 (A, H), x_b2
// (.npy, float64) and DIR/model.txt"). 0, or -1 with one line in err.
int model_export(const char *dir, const TrainConfig *cfg, const NpyArray *a, int n, const ModelNotes *notes,
    char *wrote, size_t wlen, char *err, size_t errlen);
// Reads DIR/model.txt: cfg gets the defaults and then the file's settings; the crc32 line goes to
// notes' files, the other lines that are no setting to its notes. 0, or -1 with one line in err.
int model_txt_read(const char *dir, TrainConfig *cfg, ModelNotes *notes, char *err, size_t errlen);
// Each file that notes' crc32 line names, in DIR, has that crc32 (none named: nothing to check).
// 0, or -1 with one line in err naming the first file that differs or cannot be read.
int model_files_check(const char *dir, const ModelNotes *notes, char *err, size_t errlen);

// What an export's folder holds (model.txt, *.npy, and the temporaries of either that an older
// pongrl, killed while writing, left): the files `export --force` may replace (dir_replace.h).
bool npy_export_owns(const char *name);
#define NPY_EXPORT_FILES "a pongrl export's files (model.txt, *.npy)"

#endif
