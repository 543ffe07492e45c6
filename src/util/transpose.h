// transpose.h: a (rows, cols) row-major matrix of doubles into its (cols, rows) transpose. W1
// is stored (D, H) here (a pixel's weights side by side: sparse forward and backward read
// whole rows) and (H, D) in Karpathy's NumPy code: export, import and the reference dumps
// convert with this one function.
#ifndef PONGRL_TRANSPOSE_H
#define PONGRL_TRANSPOSE_H

#include <stddef.h>

static inline void transpose_f64(const double *src, size_t rows, size_t cols, double *dst) {
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) dst[c * rows + r] = src[r * cols + c];
}

#endif
