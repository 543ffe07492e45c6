// npy.h: NumPy .npy files (format 1.0, C order, little-endian), for interchange with the
// Karpathy's Python code and for the NumPy reference tests.
#ifndef PONGRL_NPY_H
#define PONGRL_NPY_H

#include <stddef.h>
#include <stdio.h>

// descr: "<f8" (double), "|i1" (int8), "|u1" (uint8) or "<i4" (int32). ndim <= 4.
// Returns 0, or -1 with errno set.
int npy_write(const char *path, const char *descr, int ndim, const size_t *shape, const void *data);
// The same to an open stream (flushed, not closed): a file_replace temporary's descriptor.
int npy_write_to(FILE *f, const char *descr, int ndim, const size_t *shape, const void *data);

// Reads a .npy file of the given descr (one of the above) written by numpy.save: format 1.0,
// 2.0 or 3.0, C order. The header is parsed strictly (a dict of exactly 'descr',
// 'fortran_order' and 'shape'; ndim <= 4) and the data must fill the rest of the file
// exactly. On success *data (free() it), *ndim and shape[0..ndim) are set and 0 is
// returned; otherwise -1 with one line in err (the path is not repeated there).
int npy_read(const char *path, const char *descr, int *ndim, size_t shape[4], void **data, char *err, size_t errlen);

#endif
