// ppo_adam.c: the optimiser: the minibatch gradient's global norm clipped, then one step of
// Adam. Adam on W1 is lazy (torch.optim.SparseAdam's rule): a step moves only the W1 rows its
// minibatch touched, and only their moments decay; the dense part (b1, the heads) gets
// torch.optim.Adam. W1 and its moments are float32 (acnet.h): their step is adam_rows_f32's.
#include "ppo_parts.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>


// util/digest.h's digest (a sum of hashes of (position, bits)) of entries of the network's layout:
// W1's float32 entries hashed as their float64 values, so it is digest_range's of the layout's
// float64 array; the ranks compare it.
static uint64_t digest_entry(double x, size_t pos) {
    uint64_t b;
    memcpy(&b, &x, sizeof(b));
    b ^= pos * 0x9e3779b97f4a7c15ull;
    b = (b ^ (b >> 30)) * 0xbf58476d1ce4e5b9ull;
    b = (b ^ (b >> 27)) * 0x94d049bb133111ebull;
    return b ^ (b >> 31);
}

static uint64_t digest_floats(const float *w, size_t off, size_t len) {
    uint64_t d = 0;
    for (size_t k = 0; k < len; k++) d += digest_entry(w[off + k], off + k);
    return d;
}

static uint64_t digest_tail(const double *t, size_t off, size_t len) {
    uint64_t d = 0;
    for (size_t k = 0; k < len; k++) d += digest_entry(t[k], off + k);
    return d;
}

// ----------------------------------------------------------------------------
// clip the global norm, then a step on the rows the minibatch touched and the tail

AdamStep ppo_adam_begin(Ppo *p, double lr, double sq, double *coef) {
    p->adam_t++;
    // the norm (ppo_minibatch_update): rows in ascending order, then the tail (torch sums per
    // parameter, then the norms' squares; the difference is rounding)
    const double c = p->cfg.max_grad_norm / (sqrt(sq) + PPO_NORM_EPS);
    *coef = c < 1.0 ? c : 1.0;
    return adam_step(lr, PPO_ADAM_BETA1, PPO_ADAM_BETA2, PPO_ADAM_EPS, p->adam_t);
}

void ppo_adam_pieces(Ppo *p, const PpoThread *th, const AdamStep *adam, double coef, bool tail, int part) {
    const size_t H = (size_t)p->net.H;
    const bool digest = p->comm && p->comm->size > 1; // only ranks compare it
    uint64_t d = 0;
    for (int i = 0; i < th->npieces; i++) {
        const int r0 = th->pieces[2 * i], r1 = th->pieces[2 * i + 1];
        // adam_rows_f32 asks for its rows MEM_AHEAD_ROWS ahead within the piece; the next piece's
        // first rows are asked for here, a piece ahead
        if (i + 1 < th->npieces) {
            const int q0 = th->pieces[2 * (i + 1)], q1 = th->pieces[2 * (i + 1) + 1];
            for (int r = q0; r < q0 + MEM_AHEAD_ROWS && r < q1; r++) {
                const size_t at = (size_t)p->rows.list[r] * H;
                mem_prefetch_w(p->net.w1 + at, sizeof(float) * H);
                mem_prefetch_w(p->adam_m + at, sizeof(float) * H);
                mem_prefetch_w(p->adam_v + at, sizeof(float) * H);
            }
        }
        adam_rows_f32(
            p->net.w1, p->adam_m, p->adam_v, p->gw1 + (size_t)r0 * H, p->rows.list + r0, r1 - r0, H, 0, H, coef, adam);
        if (digest)
            for (int r = r0; r < r1; r++) d += digest_floats(p->net.w1, (size_t)p->rows.list[r] * H, H);
    }
    if (tail) {
        const size_t off = p->net.tail, len = p->net.n - p->net.tail;
        adam_update(p->net.t, p->adam_mt, p->adam_vt, p->gt, len, coef, adam);
        if (digest) d += digest_tail(p->net.t, off, len);
    }
    p->digests[part] = d;
}

// ----------------------------------------------------------------------------
// the moments in the network's layout (ppo.h)

void ppo_moment_widen(const Ppo *p, int which, double *out) {
    const float *w1 = which ? p->adam_v : p->adam_m;
    const size_t tail = p->net.tail;
    for (size_t k = 0; k < tail; k++) out[k] = w1[k];
    memcpy(out + tail, which ? p->adam_vt : p->adam_mt, sizeof(double) * (p->net.n - tail));
}

int ppo_moment_narrow(Ppo *p, int which, const double *in) {
    const size_t tail = p->net.tail;
    if (acnet_round_rows(which ? p->adam_v : p->adam_m, in, tail)) return -1;
    memcpy(which ? p->adam_vt : p->adam_mt, in + tail, sizeof(double) * (p->net.n - tail));
    return 0;
}
