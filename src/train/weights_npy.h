// weights_npy.h: interchange with the seed's Python code: DIR/W1.npy (H, 6400) and
// DIR/W2.npy (H,) float64, the seed's model['W1'] and model['W2'].
#ifndef PONGRL_WEIGHTS_NPY_H
#define PONGRL_WEIGHTS_NPY_H

#include <stddef.h>

#include "../policy/policy.h"

// Writes DIR/W1.npy and DIR/W2.npy (as .tmp files, synced, then renamed). 0, or -1 with one
// line in err.
int weights_export_npy(const Policy *p, const char *dir, char *err, size_t errlen);
// Allocates p with the H found in the files. 0, or -1 with one line in err.
int weights_import_npy(const char *dir, Policy *p, char *err, size_t errlen);

#endif
