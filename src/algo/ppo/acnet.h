// acnet.h: the actor-critic network of PPO (ppo.h):
//
//   x (D = 12,800) sparse: the 80x80 binary frame, then its difference from the previous frame
//   h = relu(W1' x + b1)                    (H,)
//   logits = Wpi h + bpi                    (A,)  the policy over the A actions
//   v = wv . h + bv                         ()    the value
//
// A separate value network (Hv > 0): the first H - Hv hidden units serve the policy alone and
// the last Hv the value alone, that is Wpi's last Hv columns and wv's first H - Hv entries are
// zero and stay zero (their gradient is not taken, so Adam never moves them). The forward pass,
// the storage and every file are those of the shared network; only training differs.
//
// The input has a few dozen non-zeros (paddles and ball, and what moved), so the first layer
// costs O(nnz x H): W1 is stored (D, H) row-major, the H weights of one input contiguous.
//
// Layout: every parameter in one array,
//   W1 (D, H) | b1 (H) | Wpi (A, H) | bpi (A) | wv (H) | bv (1)
// as a gradient, a checkpoint's arrays and the exported files have it, float64. The part after
// W1 is the "tail". The network itself stores W1 as float32 (w1) and the tail as float64 (t):
// the first layer's rows are most of the bytes a step moves (read by the forward pass, read and
// written by Adam with their moments), the tail is small. The first layer is float32 as torch's
// would be: its sum (the input's rows, added in the input's order) is float32, then b1 is added
// in float64; W1's gradient and its Adam step are float32 too (ppo_merge.c, rl/adam.h). The rest
// (the ReLU, the heads, the loss, the tail's gradient and step) is float64.
#ifndef PONGRL_ACNET_H
#define PONGRL_ACNET_H

#include <stddef.h>
#include <stdint.h>

#include "../../rl/agent.h"

#define ACNET_D        (2 * POLICY_D) // the frame and its difference
#define ACNET_A_MAX    6              // at most the six minimal actions
#define ACNET_INIT_NNZ 40.0           // W1 ~ randn / sqrt(40): ~40 inputs are non-zero a frame
#define ACNET_PI_GAIN  0.01           // policy head starts near uniform (CleanRL: orthogonal 0.01)

typedef struct {
    int D, H, A;
    int Hv;      // the last Hv hidden units serve the value alone (above); 0: all serve both
    size_t n;    // D*H + the tail's length: the layout's
    size_t tail; // offset of b1 in the layout: D*H
    float *w1;   // (D, H) W1
    double *t;   // (n - tail) the tail: b1 | Wpi | bpi | wv | bv
} AcNet;

typedef struct {
    double *b1, *Wpi, *bpi, *wv, *bv;
} AcParts;

// The sizes of a network of D inputs, H hidden units and A actions, its arrays NULL (an owner
// that makes them itself: PPO's table of arrays, ppo.c); alloc: made too, zeros.
void acnet_shape(AcNet *net, int D, int H, int A);
int acnet_alloc(AcNet *net, int D, int H, int A); // 0 or -1 (out of memory); zeros
void acnet_free(AcNet *net);
// W1 ~ randn / sqrt(40), Wpi ~ randn * 0.01 / sqrt(H), wv ~ randn / sqrt(H), biases zero,
// drawn in the layout's order; then, with Hv > 0, the entries that a separate value network
// keeps at zero are zeroed (the draws are the same whatever Hv). acnet_draw: the float64 draws
// into w (n, the layout); acnet_init_random: the network's, W1 rounded to float32.
void acnet_draw(const AcNet *net, uint64_t seed, double *w);
void acnet_init_random(AcNet *net, uint64_t seed);
// The tail's parts of a layout-shaped array (a gradient, the layout's weights).
AcParts acnet_parts(const AcNet *net, double *v);
// The same of the tail alone (n - tail entries, b1 first; net->t: the network's own).
AcParts acnet_tail_parts(const AcNet *net, double *t);

// The network's weights into w (n, the layout; W1 widened: exact).
void acnet_widen(const AcNet *net, double *w);
// w (n, the layout) as the network's weights, W1 rounded to float32 (to nearest, even). 0, or
// -1 with the network unchanged: a W1 entry past float32's range (a float64 file's).
int acnet_narrow(AcNet *net, const double *w);
// n float64 values rounded to float32 into f (to nearest, even). 0, or -1 with f unchanged: a
// value that is not finite as a float32 (NaN, infinity, or past float32's range).
int acnet_round_rows(float *f, const double *x, size_t n);

// 0 if the entries a separate value network keeps at zero are zero (always, with Hv = 0),
// else -1: imported weights that are not such a network.
int acnet_split_check(const AcNet *net);

// h: (H,) after ReLU; logits: (A,); returns the value.
double acnet_forward(const AcNet *net, SparseX x, double *h, double *logits);
// Its first layer alone: h (H,) gets W1' x + b1 (b1, then x's rows in their order).
void acnet_hidden(const AcNet *net, SparseX x, double *h);
// Its part after W1: h (H,) holds W1' x + b1 and gets the ReLU; logits (A,); returns the value.
double acnet_heads(const AcNet *net, double *h, double *logits);
// The same for n <= ACNET_BATCH samples at once, the same bits: h (n, H), logits (n, A), values (n).
#define ACNET_BATCH 8
void acnet_heads_batch(const AcNet *net, double *h, int n, double *logits, double *values);

// log softmax of logits into logp (A,); returns the entropy -sum p log p.
double acnet_log_softmax(const double *logits, int A, double *logp);

// The backward pass of one sample, but for W1: given dL/dlogits (A,) and dL/dv, adds the
// gradients of Wpi, bpi, wv, bv and b1 into gt (the tail alone: n - tail entries, as
// acnet_tail_parts; with Hv > 0, none to the entries kept at zero) and puts dh (H,), the
// gradient wrt the hidden layer (zero where a unit is off): W1's row r gets x[r] dh.
void acnet_backward_tail(const AcNet *net, const double *h, const double *dlogits, double dv, double *gt, double *dh);

#endif
