// ppo_merge.c: the minibatch's samples and W1's rows: the inputs turned into per-row lists of
// (sample, sign) by a stable counting sort (O(non-zeros), rows ascending); then the first
// layer of every sample by rows (each touched row read once a minibatch, not once a sample
// that has it: 2,100 rows rather than 26,000 at the defaults), and each row's gradient g_r =
// sum of sign dh_s over its list, in sample order, in float64. A row's sum is the same bits
// whichever thread computes it, so no exact sum is needed; each row is written once.
#include "ppo_parts.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int ppo_rows_plan(Ppo *p, const int32_t *mb, int M) {
    const int D = p->net.D;
    size_t *at = p->row_at, total = 0;
    for (int i = 0; i < M; i++) {
        const SparseX x = ppo_sample_x(p, mb[i]);
        total += (size_t)x.nnz;
        for (int k = 0; k < x.nnz; k++) at[x.idx[k]]++;
    }
    if (total > p->ent_cap) {
        uint32_t *bigger = realloc(p->ent, sizeof(uint32_t) * (total + total / 4));
        if (!bigger) {
            for (int r = 0; r < D; r++) at[r] = 0;
            return -1;
        }
        p->ent = bigger;
        p->ent_cap = total + total / 4;
    }
    // rows ascending (a scan of D counts: cheaper than sorting the touched rows), each row's
    // first entry's place; then the cursors
    rowset_clear(&p->rows);
    size_t pos = 0;
    for (int r = 0; r < D; r++) {
        if (!at[r]) continue;
        p->row_off[p->rows.n] = pos;
        rowset_add(&p->rows, r);
        pos += at[r];
        at[r] = p->row_off[p->rows.n - 1];
    }
    p->row_off[p->rows.n] = pos;
    for (int i = 0; i < M; i++) {
        const SparseX x = ppo_sample_x(p, mb[i]);
        for (int k = 0; k < x.nnz; k++) p->ent[at[x.idx[k]]++] = (uint32_t)i << 1 | (x.sign[k] < 0);
    }
    for (int k = 0; k < p->rows.n; k++) at[p->rows.list[k]] = 0;
    return 0;
}

// ----------------------------------------------------------------------------
// the first layer by rows

// A piece is a range of columns of every sample's hidden layer: its samples' slices (M x w)
// stay in the cache while the rows stream past, each row's w columns read once. The columns'
// sums do not depend on how they are split (each is b1, then the rows ascending: for each
// sample the operations of acnet_forward, whose inputs are ascending, in its order: the same
// bits), so the split follows the threads: one piece each, widths multiples of 8 columns.
typedef struct {
    Ppo *p;
    int M, pieces;
} ForwardJob;

static void forward_cols(Ppo *p, int M, double *restrict sl, size_t j0, size_t w) {
    const size_t H = (size_t)p->net.H;
    const double *b1 = p->net.t + j0;
    for (int i = 0; i < M; i++) memcpy(sl + (size_t)i * w, b1, sizeof(double) * w);
    const int n = p->rows.n;
    for (int k = 0; k < n; k++) {
        const size_t row = p->rows.list[k];
        if (k + MEM_AHEAD_ROWS < n)
            mem_prefetch(p->net.w1 + (size_t)p->rows.list[k + MEM_AHEAD_ROWS] * H + j0, sizeof(float) * w);
        const float *restrict wr = p->net.w1 + row * H + j0; // float32, widened as read: exact
        for (size_t e = p->row_off[k]; e < p->row_off[k + 1]; e++) {
            double *restrict x = sl + (size_t)(p->ent[e] >> 1) * w;
            if (p->ent[e] & 1)
                for (size_t j = 0; j < w; j++) x[j] -= (double)wr[j];
            else
                for (size_t j = 0; j < w; j++) x[j] += (double)wr[j];
        }
    }
    for (int i = 0; i < M; i++) memcpy(p->hid + (size_t)i * H + j0, sl + (size_t)i * w, sizeof(double) * w);
}

static void forward_part(void *ctx, int part, int parts) {
    (void)parts;
    ForwardJob *job = ctx;
    if (part >= job->pieces) return;
    Ppo *p = job->p;
    const size_t H = (size_t)p->net.H, units = (H + 7) / 8;
    const size_t j0 = 8 * (units * (size_t)part / (size_t)job->pieces);
    const size_t j1 = part + 1 == job->pieces ? H : 8 * (units * (size_t)(part + 1) / (size_t)job->pieces);
    forward_cols(p, job->M, p->slices + (size_t)job->M * j0, j0, j1 - j0);
}

void ppo_rows_forward(Ppo *p, int M) {
    const int units = (p->net.H + 7) / 8, threads = pool_threads(p->pool);
    ForwardJob job = { p, M, threads < units ? threads : units };
    pool_for(p->pool, forward_part, &job);
}

// ----------------------------------------------------------------------------
// the gradient by rows

typedef struct {
    Ppo *p;
    const double *dh;
    double scale;
    atomic_int next;
} RowsJob;

// The squared norm of a row, in ROW_LANES partial sums (entry j into lane j % ROW_LANES),
// then the lanes pairwise: a fixed order, so the same bits everywhere, that vectorises (one
// sum in entry order is a chain of H dependent additions: a quarter of the rows' pass).
#define ROW_LANES 8
static double row_sq(const double *restrict g, size_t H) {
    double lane[ROW_LANES] = { 0 };
    size_t j = 0;
    for (; j + ROW_LANES <= H; j += ROW_LANES)
        for (int l = 0; l < ROW_LANES; l++) lane[l] += g[j + l] * g[j + l];
    for (int l = 0; j < H; j++, l++) lane[l] += g[j] * g[j];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// 64 columns of a row's sum in 8 vectors of 8 (GNU C's vector extension: AVX-512 registers, or
// pairs and quads of narrower ones), so that the sum stays in registers while the row's entries
// stream past, rather than going to memory and back at every entry (the loops over a runtime H
// are left so by the compiler). Loads and stores by memcpy: no alignment is assumed (and no
// function takes or returns a Cols: without AVX-512 that would be an ABI of its own).
typedef double Cols __attribute__((vector_size(8 * sizeof(double))));
#define ROW_CHUNK 8 // Cols a chunk: 64 columns

// An entry's sign as a factor, without a branch (the signs follow no pattern a predictor
// learns): a product by +-1 is exact and x + (-1 y) is x - y, so the bits are a branch's.
static inline double entry_sign(uint32_t e) { return 1.0 - 2.0 * (double)(e & 1); }

// Row k's gradient: its list's signed dh rows in sample order, times scale; its squared norm.
static void row_grad(Ppo *p, const double *dh, double scale, int k) {
    const size_t H = (size_t)p->net.H;
    double *restrict g = p->g + (size_t)k * H;
    const uint32_t *e0 = p->ent + p->row_off[k], *end = p->ent + p->row_off[k + 1];
    size_t j0 = 0;
    for (; j0 + 8 * ROW_CHUNK <= H; j0 += 8 * ROW_CHUNK) {
        Cols acc[ROW_CHUNK];
        const double *d = dh + (size_t)(*e0 >> 1) * H + j0;
        double sg = entry_sign(*e0);
        for (int c = 0; c < ROW_CHUNK; c++) {
            Cols x;
            memcpy(&x, d + 8 * c, sizeof(x));
            acc[c] = sg * x;
        }
        for (const uint32_t *e = e0 + 1; e < end; e++) {
            d = dh + (size_t)(*e >> 1) * H + j0;
            sg = entry_sign(*e);
            for (int c = 0; c < ROW_CHUNK; c++) {
                Cols x;
                memcpy(&x, d + 8 * c, sizeof(x));
                acc[c] += sg * x;
            }
        }
        for (int c = 0; c < ROW_CHUNK; c++) {
            const Cols v = acc[c] * scale;
            memcpy(g + j0 + 8 * c, &v, sizeof(v));
        }
    }
    if (j0 < H) { // the columns past the last whole chunk (H not a multiple of 64)
        const double *d = dh + (size_t)(*e0 >> 1) * H;
        double sg = entry_sign(*e0);
        for (size_t j = j0; j < H; j++) g[j] = sg * d[j];
        for (const uint32_t *e = e0 + 1; e < end; e++) {
            d = dh + (size_t)(*e >> 1) * H;
            sg = entry_sign(*e);
            for (size_t j = j0; j < H; j++) g[j] += sg * d[j];
        }
        for (size_t j = j0; j < H; j++) g[j] *= scale;
    }
    p->rowsq[k] = row_sq(g, H);
}

static void rows_part(void *ctx, int part, int parts) {
    (void)part;
    (void)parts;
    RowsJob *job = ctx;
    Ppo *p = job->p;
    const int n = p->rows.n;
    int c;
    while ((c = atomic_fetch_add(&job->next, 1)) * PPO_ROW_PIECE < n) {
        const int k1 = (c + 1) * PPO_ROW_PIECE < n ? (c + 1) * PPO_ROW_PIECE : n;
        for (int k = c * PPO_ROW_PIECE; k < k1; k++) {
            // the packed rows were written a minibatch ago: asked for ahead, their lines arrive meanwhile
            if (k + MEM_AHEAD_ROWS < k1)
                mem_prefetch_w(p->g + (size_t)(k + MEM_AHEAD_ROWS) * p->net.H, sizeof(double) * p->net.H);
            row_grad(p, job->dh, job->scale, k);
        }
    }
}

void ppo_rows_grad(Ppo *p, const double *dh, double scale) {
    RowsJob job = { p, dh, scale, 0 };
    pool_for(p->pool, rows_part, &job);
}
