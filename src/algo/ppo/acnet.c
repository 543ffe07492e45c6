// acnet.c: forward and backward of PPO's actor-critic network (acnet.h).
#include "acnet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/mem.h"
#include "../../util/rng.h"

void acnet_shape(AcNet *net, int D, int H, int A) {
    *net = (AcNet){ .D = D, .H = H, .A = A, .tail = (size_t)D * H };
    net->n = net->tail + (size_t)H + (size_t)A * H + (size_t)A + (size_t)H + 1;
}

int acnet_alloc(AcNet *net, int D, int H, int A) {
    acnet_shape(net, D, H, A);
    net->w1 = big_calloc(net->tail, sizeof(float));
    net->t = calloc(net->n - net->tail, sizeof(double));
    return net->w1 && net->t ? 0 : -1;
}

void acnet_free(AcNet *net) {
    free(net->w1);
    free(net->t);
    net->w1 = NULL;
    net->t = NULL;
}

AcParts acnet_parts(const AcNet *net, double *v) { return acnet_tail_parts(net, v + net->tail); }

AcParts acnet_tail_parts(const AcNet *net, double *t) {
    const size_t H = (size_t)net->H, A = (size_t)net->A;
    AcParts p;
    p.b1 = t;
    p.Wpi = p.b1 + H;
    p.bpi = p.Wpi + A * H;
    p.wv = p.bpi + A;
    p.bv = p.wv + H;
    return p;
}

// The draws (acnet.h) into w1d (float64, the layout's first D*H) or else w1f (rounded to
// float32), and the tail t.
static void draw(const AcNet *net, uint64_t seed, double *w1d, float *w1f, double *t) {
    Rng rng;
    rng_seed(&rng, seed);
    const size_t H = (size_t)net->H, A = (size_t)net->A;
    const double s1 = 1.0 / sqrt(ACNET_INIT_NNZ), sh = 1.0 / sqrt((double)H);
    for (size_t k = 0; k < net->tail; k++) {
        const double x = rng_normal(&rng) * s1;
        if (w1d)
            w1d[k] = x;
        else
            w1f[k] = (float)x;
    }
    memset(t, 0, sizeof(double) * (net->n - net->tail));
    AcParts p = acnet_tail_parts(net, t);
    for (size_t k = 0; k < A * H; k++) p.Wpi[k] = rng_normal(&rng) * ACNET_PI_GAIN * sh;
    for (size_t k = 0; k < H; k++) p.wv[k] = rng_normal(&rng) * sh;
    if (net->Hv > 0) { // a separate value network: policy | value units
        const size_t Hp = H - (size_t)net->Hv;
        for (size_t a = 0; a < A; a++) memset(p.Wpi + a * H + Hp, 0, sizeof(double) * (size_t)net->Hv);
        memset(p.wv, 0, sizeof(double) * Hp);
    }
}

void acnet_draw(const AcNet *net, uint64_t seed, double *w) { draw(net, seed, w, NULL, w + net->tail); }

void acnet_init_random(AcNet *net, uint64_t seed) { draw(net, seed, NULL, net->w1, net->t); }

void acnet_widen(const AcNet *net, double *w) {
    for (size_t k = 0; k < net->tail; k++) w[k] = net->w1[k];
    memcpy(w + net->tail, net->t, sizeof(double) * (net->n - net->tail));
}

int acnet_round_rows(float *f, const double *x, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (!isfinite((float)x[k])) return -1;
    for (size_t k = 0; k < n; k++) f[k] = (float)x[k];
    return 0;
}

int acnet_narrow(AcNet *net, const double *w) {
    if (acnet_round_rows(net->w1, w, net->tail)) return -1;
    memcpy(net->t, w + net->tail, sizeof(double) * (net->n - net->tail));
    return 0;
}

int acnet_split_check(const AcNet *net) {
    const size_t H = (size_t)net->H, A = (size_t)net->A, Hp = H - (size_t)net->Hv;
    if (net->Hv <= 0) return 0;
    AcParts p = acnet_tail_parts(net, net->t);
    for (size_t a = 0; a < A; a++)
        for (size_t j = Hp; j < H; j++)
            if (p.Wpi[a * H + j] != 0.0) return -1;
    for (size_t j = 0; j < Hp; j++)
        if (p.wv[j] != 0.0) return -1;
    return 0;
}

// ----------------------------------------------------------------------------
// the inner loops: one row of H, contiguous, vectorised

static void row_axpy(double *restrict y, const double *restrict x, double a, int n) {
    for (int j = 0; j < n; j++) y[j] += a * x[j];
}

// The rows a sample reads lie anywhere in W1 (7.6 MB at H = 128 and the coarse views): each is asked for
// MEM_AHEAD_ROWS rows before its turn (util/mem.h).

// ----------------------------------------------------------------------------
// forward

// The hidden layer's sum: the input's rows added in its order in float32 (the rows are float32:
// torch's float32 first layer), then b1 in float64. In chunks of columns held in vectors of 16
// floats (GNU C's vector extension, as ppo_merge.c's row_grad), so that the sum stays in
// registers while the rows stream past, rather than going to memory and back at every entry
// as a loop over a runtime H does: 128 columns a chunk where there are 32 vector registers
// (AVX-512: H = 128 in one pass over the rows), else 64. Each column's sum is in the input's
// order however the columns are chunked: the same bits. Loads and stores by memcpy: no alignment
// is assumed (and no function takes or returns a Cols: without AVX-512 that would be an ABI of
// its own).
typedef float Cols __attribute__((vector_size(16 * sizeof(float))));
#if defined(__AVX512F__)
#define FWD_CHUNK_MAX 8 // Cols: 128 columns
#else
#define FWD_CHUNK_MAX 4 // Cols: 64 columns
#endif

// Asks for the bytes of the row of the input's entry k, if there is one.
static inline void ask_row(const AcNet *net, SparseX x, int k, size_t bytes) {
    if (k < x.nnz) mem_prefetch(net->w1 + (size_t)x.idx[k] * net->H, bytes);
}

// Columns [j0, j0 + 16 chunk) of the sum (chunk a constant where it is inlined). x: entries in
// {-1, +1}, the row added or subtracted. A branch on the sign rather than a product by it
// (ppo_merge.c's row_grad): here the signs come in long runs of +1 (the frame, its coarse view),
// and a product at every entry was an eighth of the time. ask: the bytes of each row to ask for
// ahead (the first chunk asks for the rows whole: the next ones find them in cache).
static inline __attribute__((always_inline)) void chunk_sum(
    const AcNet *net, SparseX x, const double *b1, double *h, size_t j0, int chunk, size_t ask) {
    const size_t H = (size_t)net->H;
    Cols acc[FWD_CHUNK_MAX];
    for (int c = 0; c < chunk; c++) acc[c] = (Cols){ 0 };
    for (int k = 0; k < MEM_AHEAD_ROWS; k++) ask_row(net, x, k, ask);
    for (int k = 0; k < x.nnz; k++) {
        ask_row(net, x, k + MEM_AHEAD_ROWS, ask);
        const float *r = net->w1 + x.idx[k] * H + j0;
        if (x.sign[k] > 0)
            for (int c = 0; c < chunk; c++) {
                Cols w;
                memcpy(&w, r + 16 * c, sizeof(w));
                acc[c] += w;
            }
        else
            for (int c = 0; c < chunk; c++) {
                Cols w;
                memcpy(&w, r + 16 * c, sizeof(w));
                acc[c] -= w;
            }
    }
    for (int c = 0; c < chunk; c++)
        for (int l = 0; l < 16; l++) h[j0 + 16 * c + l] = b1[j0 + 16 * c + l] + (double)acc[c][l];
}

static void hidden_sum(const AcNet *net, SparseX x, const double *b1, double *h) {
    const size_t H = (size_t)net->H;
    size_t j0 = 0;
    for (; j0 + 16 * FWD_CHUNK_MAX <= H; j0 += 16 * FWD_CHUNK_MAX)
        chunk_sum(net, x, b1, h, j0, FWD_CHUNK_MAX, j0 ? 0 : sizeof(float) * H);
    for (; j0 + 64 <= H; j0 += 64) chunk_sum(net, x, b1, h, j0, 4, j0 ? 0 : sizeof(float) * H);
    if (j0 < H) { // the columns past the last whole chunk (H not a multiple of 64)
        const size_t ask = j0 ? 0 : sizeof(float) * H;
        const int n = (int)(H - j0);
        float acc[64] = { 0 };
        for (int k = 0; k < MEM_AHEAD_ROWS; k++) ask_row(net, x, k, ask);
        for (int k = 0; k < x.nnz; k++) {
            ask_row(net, x, k + MEM_AHEAD_ROWS, ask);
            const float *r = net->w1 + x.idx[k] * H + j0;
            if (x.sign[k] > 0)
                for (int j = 0; j < n; j++) acc[j] += r[j];
            else
                for (int j = 0; j < n; j++) acc[j] -= r[j];
        }
        for (int j = 0; j < n; j++) h[j0 + j] = b1[j0 + j] + (double)acc[j];
    }
}

void acnet_hidden(const AcNet *net, SparseX x, double *h) { hidden_sum(net, x, acnet_tail_parts(net, net->t).b1, h); }

double acnet_forward(const AcNet *net, SparseX x, double *h, double *logits) {
    acnet_hidden(net, x, h);
    return acnet_heads(net, h, logits);
}

// Up to 4 dot products of rows with h side by side, into out[0..m): each sums in order (no
// -ffast-math: the bits are fixed), but their chains of additions, each waiting on its last,
// overlap rather than follow one another.
static void row_dots4(const double *const *rows, int m, const double *restrict h, int n, double *out) {
    const double *r0 = rows[0], *r1 = rows[m > 1 ? 1 : 0], *r2 = rows[m > 2 ? 2 : 0], *r3 = rows[m > 3 ? 3 : 0];
    double s[4] = { 0.0, 0.0, 0.0, 0.0 };
    for (int j = 0; j < n; j++) {
        s[0] += r0[j] * h[j];
        s[1] += r1[j] * h[j];
        s[2] += r2[j] * h[j];
        s[3] += r3[j] * h[j];
    }
    for (int i = 0; i < m; i++) out[i] = s[i];
}

double acnet_heads(const AcNet *net, double *h, double *logits) {
    const int H = net->H, A = net->A;
    AcParts p = acnet_tail_parts(net, net->t);
    for (int j = 0; j < H; j++)
        if (h[j] < 0.0) h[j] = 0.0;
    // the policy's rows, then the value's
    const double *rows[ACNET_A_MAX + 1];
    double dot[ACNET_A_MAX + 1];
    for (int a = 0; a < A; a++) rows[a] = p.Wpi + (size_t)a * H;
    rows[A] = p.wv;
    for (int i = 0; i <= A; i += 4) row_dots4(rows + i, A + 1 - i < 4 ? A + 1 - i : 4, h, H, dot + i);
    for (int a = 0; a < A; a++) logits[a] = p.bpi[a] + dot[a];
    return p.bv[0] + dot[A];
}

// The heads of n <= ACNET_BATCH samples side by side: each dot product is summed in the order
// acnet_heads sums it (j ascending, a product then a sum: the same bits), but the samples' sums
// run in the lanes of a vector rather than one after another, so that their chains of additions,
// each waiting on its last, overlap (one sample's 4 chains of H additions were latency-bound).
typedef double Lanes __attribute__((vector_size(ACNET_BATCH * sizeof(double))));

void acnet_heads_batch(const AcNet *net, double *h, int n, double *logits, double *values) {
    const int H = net->H, A = net->A;
    AcParts p = acnet_tail_parts(net, net->t);
    for (int s = 0; s < n; s++)
        for (int j = 0; j < H; j++)
            if (h[(size_t)s * H + j] < 0.0) h[(size_t)s * H + j] = 0.0;
    const double *rows[ACNET_A_MAX + 1];
    for (int a = 0; a < A; a++) rows[a] = p.Wpi + (size_t)a * H;
    rows[A] = p.wv;
    Lanes acc[ACNET_A_MAX + 1];
    for (int a = 0; a <= A; a++) acc[a] = (Lanes){ 0 };
    for (int j = 0; j < H; j++) {
        Lanes x = { 0 };
        for (int s = 0; s < n; s++) x[s] = h[(size_t)s * H + j];
        for (int a = 0; a <= A; a++) acc[a] += rows[a][j] * x;
    }
    for (int s = 0; s < n; s++) {
        for (int a = 0; a < A; a++) logits[(size_t)s * A + a] = p.bpi[a] + acc[a][s];
        values[s] = p.bv[0] + acc[A][s];
    }
}

double acnet_log_softmax(const double *logits, int A, double *logp) {
    double mx = logits[0];
    for (int a = 1; a < A; a++)
        if (logits[a] > mx) mx = logits[a];
    double s = 0.0;
    for (int a = 0; a < A; a++) s += exp(logits[a] - mx);
    const double lse = mx + log(s);
    double ent = 0.0;
    for (int a = 0; a < A; a++) {
        logp[a] = logits[a] - lse;
        ent -= exp(logp[a]) * logp[a];
    }
    return ent;
}

// ----------------------------------------------------------------------------
// backward

void acnet_backward_tail(const AcNet *net, const double *h, const double *dlogits, double dv, double *gt, double *dh) {
    const int H = net->H, A = net->A;
    // the units each head reads: the policy [0, Hp), the value [v0, H) (both all H when shared)
    const int Hp = H - net->Hv, v0 = net->Hv > 0 ? Hp : 0;
    AcParts w = acnet_tail_parts(net, net->t), d = acnet_tail_parts(net, gt);
    // heads: dWpi[a] += dlogits[a] h; dwv += dv h; dh = Wpi' dlogits + wv dv, masked by h > 0
    // (Wpi and wv are zero on the units their head does not read, so dh needs no split)
    for (int j = 0; j < H; j++) dh[j] = dv * w.wv[j];
    for (int a = 0; a < A; a++) {
        row_axpy(d.Wpi + (size_t)a * H, h, dlogits[a], Hp);
        row_axpy(dh, w.Wpi + (size_t)a * H, dlogits[a], H);
        d.bpi[a] += dlogits[a];
    }
    row_axpy(d.wv + v0, h + v0, dv, H - v0);
    d.bv[0] += dv;
    for (int j = 0; j < H; j++) {
        if (h[j] <= 0.0) dh[j] = 0.0;
        d.b1[j] += dh[j];
    }
}
