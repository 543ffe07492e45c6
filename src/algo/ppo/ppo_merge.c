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

// ----------------------------------------------------------------------------
// the rows' plan: a counting sort whose passes the pool's parts share, each the same for any
// number of parts. Part t of P counts its range of the minibatch's samples (ranges in sample
// order) into counts of its own; then part s takes its range of rows (PLAN_ROWS rows a unit):
// their totals, the touched ones ascending, and in each the places of part 0's entries, then
// part 1's, and so on: the sample order. After a prefix over the ranges each part writes its
// range's rows and places its own samples' entries at its cursors. Each part clears only the
// counts that its samples set (the rows it saw), not D of them.

#define PLAN_ROWS 64 // rows a unit of the rows' ranges: lines of every array, none shared

void ppo_plan_free(PpoPlan *pl) {
    if (pl) mem_free_all(pl->cnt, pl->cur, pl->seen, pl->tot, pl->list, pl->off, pl->part, pl);
}

PpoPlan *ppo_plan_alloc(int parts, int D) {
    PpoPlan *pl = calloc(1, sizeof(PpoPlan));
    if (!pl) return NULL;
    const size_t Dp = ((size_t)D + PLAN_ROWS - 1) / PLAN_ROWS * PLAN_ROWS, P = (size_t)parts;
    pl->parts = parts;
    pl->Dp = (int)Dp;
    pl->cnt = pad_calloc(P * Dp, sizeof(uint32_t));
    pl->cur = pad_calloc(P * Dp, sizeof(size_t));
    pl->seen = pad_calloc(P * Dp, sizeof(uint16_t));
    pl->tot = pad_calloc(Dp, sizeof(uint32_t));
    pl->list = pad_calloc(Dp, sizeof(uint16_t));
    pl->off = pad_calloc(Dp, sizeof(size_t));
    pl->part = pad_calloc(P, sizeof(PpoPlanPart));
    if (!pl->cnt || !pl->cur || !pl->seen || !pl->tot || !pl->list || !pl->off || !pl->part) {
        ppo_plan_free(pl);
        return NULL;
    }
    return pl;
}

typedef struct {
    Ppo *p;
    const int32_t *mb;
    int M, span; // span: rows a range (a multiple of PLAN_ROWS)
} PlanJob;

static void plan_count(void *ctx, int part, int parts) {
    PlanJob *job = ctx;
    PpoPlan *pl = job->p->plan;
    PpoPlanPart *pp = &pl->part[part];
    uint32_t *cnt = pl->cnt + (size_t)part * pl->Dp;
    uint16_t *seen = pl->seen + (size_t)part * pl->Dp;
    for (int k = 0; k < pp->n_seen; k++) cnt[seen[k]] = 0;
    int lo, hi, n = 0;
    size_t ents = 0;
    part_range(job->M, part, parts, &lo, &hi);
    for (int i = lo; i < hi; i++) {
        const SparseX x = ppo_sample_x(job->p, job->mb[i]);
        ents += (size_t)x.nnz;
        for (int k = 0; k < x.nnz; k++)
            if (!cnt[x.idx[k]]++) seen[n++] = x.idx[k];
    }
    pp->n_seen = n;
    pp->ents = ents;
}

static void plan_rows(void *ctx, int part, int parts) {
    PlanJob *job = ctx;
    PpoPlan *pl = job->p->plan;
    const int D = job->p->net.D, r0 = part * job->span < D ? part * job->span : D;
    const int r1 = r0 + job->span < D ? r0 + job->span : D;
    const size_t Dp = (size_t)pl->Dp;
    const uint32_t *tot = pl->cnt;
    if (parts > 1) {
        uint32_t *t = pl->tot;
        memcpy(t + r0, pl->cnt + r0, sizeof(uint32_t) * (size_t)(r1 - r0));
        for (int q = 1; q < parts; q++) {
            const uint32_t *c = pl->cnt + (size_t)q * Dp;
            for (int r = r0; r < r1; r++) t[r] += c[r];
        }
        tot = t;
    }
    int n = 0;
    size_t pos = 0;
    for (int r = r0; r < r1; r++) {
        if (!tot[r]) continue;
        pl->list[r0 + n] = (uint16_t)r;
        pl->off[r0 + n++] = pos;
        for (int q = 0; q < parts; q++) {
            const uint32_t c = pl->cnt[(size_t)q * Dp + r];
            if (!c) continue;
            pl->cur[(size_t)q * Dp + r] = pos;
            pos += c;
        }
    }
    pl->part[part].rows = n;
    pl->part[part].range_ents = pos;
}

static void plan_place(void *ctx, int part, int parts) {
    PlanJob *job = ctx;
    Ppo *p = job->p;
    PpoPlan *pl = p->plan;
    const PpoPlanPart *pp = &pl->part[part];
    // the part's range of rows
    const int r0 = part * job->span;
    for (int j = 0; j < pp->rows; j++) {
        const int r = pl->list[r0 + j], k = pp->row_base + j;
        p->rows.list[k] = (uint16_t)r;
        p->rows.in[r] = 1;
        p->row_off[k] = pp->ent_base + pl->off[r0 + j];
    }
    // its samples
    size_t *cur = pl->cur + (size_t)part * pl->Dp;
    const uint16_t *seen = pl->seen + (size_t)part * pl->Dp;
    for (int k = 0; k < pp->n_seen; k++) cur[seen[k]] += pl->part[seen[k] / job->span].ent_base;
    int lo, hi;
    part_range(job->M, part, parts, &lo, &hi);
    for (int i = lo; i < hi; i++) {
        const SparseX x = ppo_sample_x(p, job->mb[i]);
        for (int k = 0; k < x.nnz; k++) p->ent[cur[x.idx[k]]++] = (uint32_t)i << 1 | (x.sign[k] < 0);
    }
}

int ppo_rows_plan(Ppo *p, const int32_t *mb, int M) {
    PpoPlan *pl = p->plan;
    const int P = pl->parts, units = pl->Dp / PLAN_ROWS;
    PlanJob job = { p, mb, M, PLAN_ROWS * ((units + P - 1) / P) };
    pool_for(p->pool, plan_count, &job);
    size_t total = 0;
    for (int t = 0; t < P; t++) total += pl->part[t].ents;
    if (total > p->ent_cap) {
        uint32_t *bigger = realloc(p->ent, sizeof(uint32_t) * (total + total / 4));
        if (!bigger) return -1; // (the counts are cleared by the next plan's count pass)
        p->ent = bigger;
        p->ent_cap = total + total / 4;
    }
    pool_for(p->pool, plan_rows, &job);
    int rows = 0;
    size_t ents = 0;
    for (int s = 0; s < P; s++) {
        pl->part[s].row_base = rows;
        pl->part[s].ent_base = ents;
        rows += pl->part[s].rows;
        ents += pl->part[s].range_ents;
    }
    rowset_clear(&p->rows);
    p->rows.n = rows;
    p->row_off[rows] = ents;
    pool_for(p->pool, plan_place, &job);
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
    const double *b1 = p->net.w + p->net.tail + j0;
    for (int i = 0; i < M; i++) memcpy(sl + (size_t)i * w, b1, sizeof(double) * w);
    const int n = p->rows.n;
    for (int k = 0; k < n; k++) {
        const size_t row = p->rows.list[k];
        if (k + MEM_AHEAD_ROWS < n)
            mem_prefetch(p->net.w + (size_t)p->rows.list[k + MEM_AHEAD_ROWS] * H + j0, sizeof(double) * w);
        const double *restrict wr = p->net.w + row * H + j0;
        for (size_t e = p->row_off[k]; e < p->row_off[k + 1]; e++) {
            double *restrict x = sl + (size_t)(p->ent[e] >> 1) * w;
            if (p->ent[e] & 1)
                for (size_t j = 0; j < w; j++) x[j] -= wr[j];
            else
                for (size_t j = 0; j < w; j++) x[j] += wr[j];
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
