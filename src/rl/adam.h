// adam.h: Adam on a range of float64 weights, as torch.optim.Adam (eps outside the square
// root, bias corrections at step t >= 1):
//   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
//   w -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// (the division by sqrt(1 - b2^t) taken as a product by its inverse: one rounding apart), but
// for one rule: a new m or v whose magnitude is below the smallest normal number of its storage
// (DBL_MIN for float64 moments, FLT_MIN for float32) is stored, and stepped with, as 0, where
// torch keeps the subnormal. The step that differs is below 1e-300 (1e-37 for float32) of lr:
// no weight of a realistic size moves by it.
// One step's constants (adam_step: the bias corrections, once a step rather than once a row),
// then adam_update on each range the step moves: a learner whose first layer is lazy
// (torch.optim.SparseAdam's rule: only the rows a minibatch touched move, and only their
// moments decay) calls it once a touched row.
#ifndef PONGRL_ADAM_H
#define PONGRL_ADAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    double beta1, beta2, eps;
    double step;    // lr / (1 - b1^t)
    double inv_bc2; // 1 / sqrt(1 - b2^t)
} AdamStep;
AdamStep adam_step(double lr, double beta1, double beta2, double eps, int64_t t);
// The gradient times coef (a norm's clipping; 1.0 for none) as it is read: g is left as it is.
void adam_update(double *w, double *m, double *v, const double *g, size_t n, double coef, const AdamStep *s);
// A lazy first layer's step: adam_update on columns [j0, j1) of the rows rows[0 .. n) of the
// (., H) arrays w, m, v, row rows[k]'s gradient at g + k H; the rows a few ahead are asked for
// (they lie scattered in arrays of tens of MB). A thread may take a range of the rows, or of
// the columns: every entry's step is its own.
void adam_rows(double *w, double *m, double *v, const double *g, const uint16_t *rows, int n, size_t H, size_t j0,
    size_t j1, double coef, const AdamStep *s);
// The same in float32 (a first layer stored as float32, as torch's Adam on float32 parameters):
// the gradient, the arithmetic and the storage float32; the constants of the step rounded to
// float32 once (1 - beta in float64 first, as torch takes it from Python's floats).
void adam_update_f32(float *w, float *m, float *v, const float *g, size_t n, double coef, const AdamStep *s);
void adam_rows_f32(float *w, float *m, float *v, const float *g, const uint16_t *rows, int n, size_t H, size_t j0,
    size_t j1, double coef, const AdamStep *s);

#endif
