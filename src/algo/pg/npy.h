// npy.h: pg's network (policy.h) as Karpathy's W1.npy and W2.npy (npy.c). It knows the network,
// not pg's state: pg.c's export_npy, import_npy and bare_npy call these.
#ifndef PONGRL_ALGO_PG_NPY_H
#define PONGRL_ALGO_PG_NPY_H

#include <stddef.h>

#include "policy.h"

// p's weights into dir as W1.npy and W2.npy, what it wrote in one line into wrote; 0, or -1 with
// one line in err (weights not finite, out of memory, a failed write).
int pg_npy_write(const Policy *p, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen);
// dir's W1.npy and W2.npy into p (allocated with H from W1's shape); 0, or -1 with one line in err.
int pg_npy_read(const char *dir, Policy *p, char *err, size_t errlen);
// "W1.npy/W2.npy" where dir holds Karpathy's files (Learner.bare_npy), else NULL.
const char *pg_bare_npy(const char *dir);

#endif
