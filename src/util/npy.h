// npy.h: NumPy .npy files (format 1.0, C order, little-endian), for interchange with the
// seed's Python code and for the NumPy reference tests.
#ifndef PONGRL_NPY_H
#define PONGRL_NPY_H

#include <stddef.h>

// descr: "<f8" (double), "|i1" (int8), "|u1" (uint8) or "<i4" (int32). ndim <= 4.
// Returns 0, or -1 with errno set.
int npy_write(const char *path, const char *descr, int ndim, const size_t *shape, const void *data);

#endif
