// ppo_merge.c: the minibatch's samples and W1's rows: the inputs turned into per-row lists of
// (sample, sign) by a stable counting sort (O(non-zeros), rows ascending); then each row's
// gradient g_r = sum of sign dh_s over its list, in sample order, in float32 (each touched
// row written once a minibatch: 2,100 rows at the defaults, where the samples have 26,000
// entries). A row's sum is the same bits
// whichever thread computes it, so no exact sum is needed; each row is written once.
#include "ppo_parts.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// the rows' plan: a counting sort whose passes the pool's parts share by ranges of rows. Part s
// walks the minibatch's samples in order and takes from each the entries in its range (a
// sample's are ascending: two binary searches), so that each row's list is in sample order
// whoever places it; it counts them, lists its touched rows ascending and their first places
// from its range's start; after a prefix over the ranges it writes its rows and places its
// entries into its own stretch of p->ent (by ranges of samples, two threads' entries of a row
// would share nearly every line of it). The ranges follow the last plan's entries (about equal
// shares for the parts); the plan does not depend on them.

void ppo_plan_free(PpoPlan *pl) {
    mem_free_all(pl->xs, pl->cut);
    pl->xs = NULL;
    pl->cut = NULL;
    pl->cap = 0;
}

void ppo_plan_init(PpoPlan *pl, int parts, int D) {
    pl->parts = parts;
    pl->units = (D + PPO_PLAN_ROWS - 1) / PPO_PLAN_ROWS;
    for (int s = 0; s <= parts; s++) pl->bound[s] = (int)((int64_t)pl->units * s / parts);
}

// Room for M samples' inputs and cuts (a multiple of 32 samples: each part's cuts on lines of
// their own). 0, or -1 (out of memory).
static int plan_reserve(PpoPlan *pl, int M) {
    if (M <= pl->cap) return 0;
    const size_t cap = ((size_t)M + 31) / 32 * 32;
    free(pl->xs);
    free(pl->cut);
    pl->cap = 0;
    pl->xs = malloc(sizeof(SparseX) * cap);
    pl->cut = pad_calloc((size_t)pl->parts * cap * 2, sizeof(uint16_t));
    if (!pl->xs || !pl->cut) return -1;
    pl->cap = (int)cap;
    return 0;
}

// The first of the n ascending indices that is at least row (n if none), without a branch on
// the data: the halves' choices follow no pattern a predictor learns.
static inline int first_from(const uint16_t *idx, int n, int row) {
    if (!n) return 0;
    const uint16_t *b = idx;
    while (n > 1) {
        const int half = n / 2;
        b += b[half - 1] < row ? half : 0;
        n -= half;
    }
    return (int)(b - idx) + (*b < row);
}

// Part s's rows [*r0, *r1).
static inline void plan_rows(const Ppo *p, int part, int *r0, int *r1) {
    const int D = p->net.D, u0 = p->plan->bound[part], u1 = p->plan->bound[part + 1];
    *r0 = u0 * PPO_PLAN_ROWS < D ? u0 * PPO_PLAN_ROWS : D;
    *r1 = u1 * PPO_PLAN_ROWS < D ? u1 * PPO_PLAN_ROWS : D;
}

// The samples' inputs lie wherever their envs' steps put them: sample i + PLAN_AHEAD's are asked
// for while sample i's are walked (the binary searches and the signs' loads waited for memory).
#define PLAN_AHEAD 4

void ppo_plan_count(Ppo *p, int part) {
    PpoPlan *pl = p->plan;
    const int M = pl->M;
    int r0, r1;
    plan_rows(p, part, &r0, &r1);
    uint32_t *cnt = pl->cnt;
    uint16_t *cut = pl->cut + (size_t)part * pl->cap * 2;
    for (int i = 0; i < M; i++) {
        if (i + PLAN_AHEAD < M)
            mem_prefetch(pl->xs[i + PLAN_AHEAD].idx, sizeof(uint16_t) * (size_t)pl->xs[i + PLAN_AHEAD].nnz);
        const SparseX x = pl->xs[i];
        const int k0 = r0 ? first_from(x.idx, x.nnz, r0) : 0;
        const int k1 = r1 < p->net.D ? k0 + first_from(x.idx + k0, x.nnz - k0, r1) : x.nnz;
        cut[2 * i] = (uint16_t)k0;
        cut[2 * i + 1] = (uint16_t)k1;
        for (int k = k0; k < k1; k++) cnt[x.idx[k]]++;
    }
    // the range's rows ascending, a line of 16 counts at a time (most are zeros; rows from D to
    // the last unit's end are never counted)
    int n = 0;
    size_t pos = 0;
    for (int u = pl->bound[part]; u < pl->bound[part + 1]; u++) {
        const size_t at = pos;
        for (int r = u * PPO_PLAN_ROWS; r < (u + 1) * PPO_PLAN_ROWS; r += 16) {
            uint64_t w[8], any = 0;
            memcpy(w, cnt + r, sizeof(w));
            for (int j = 0; j < 8; j++) any |= w[j];
            if (!any) continue;
            for (int q = r; q < r + 16; q++) {
                if (!cnt[q]) continue;
                pl->list[r0 + n++] = (uint16_t)q;
                p->row_at[q] = pos;
                pos += cnt[q];
            }
        }
        pl->unit_ents[u] = pos - at;
    }
    pl->part[part].rows = n;
    pl->part[part].ents = pos;
}

void ppo_plan_place(Ppo *p, int part) {
    PpoPlan *pl = p->plan;
    const int M = pl->M;
    const PpoPlanPart *pp = &pl->part[part];
    int r0, r1;
    plan_rows(p, part, &r0, &r1);
    size_t *cur = p->row_at;
    for (int j = 0; j < pp->rows; j++) {
        const int r = pl->list[r0 + j], k = pp->row_base + j;
        p->rows.list[k] = (uint16_t)r;
        p->rows.in[r] = 1;
        p->row_off[k] = cur[r] += pp->ent_base;
        pl->cnt[r] = 0;
    }
    uint32_t *ent = p->ent;
    const uint16_t *cut = pl->cut + (size_t)part * pl->cap * 2;
    for (int i = 0; i < M; i++) {
        if (i + PLAN_AHEAD < M) {
            const SparseX y = pl->xs[i + PLAN_AHEAD];
            mem_prefetch(y.sign + cut[2 * (i + PLAN_AHEAD)],
                (size_t)(cut[2 * (i + PLAN_AHEAD) + 1] - cut[2 * (i + PLAN_AHEAD)]));
        }
        const SparseX x = pl->xs[i];
        for (int k = cut[2 * i]; k < cut[2 * i + 1]; k++) ent[cur[x.idx[k]]++] = (uint32_t)i << 1 | (x.sign[k] < 0);
    }
}

// The next plan's ranges: about equal shares of this plan's entries, in whole units.
static void plan_split(PpoPlan *pl, size_t total) {
    if (!total) return;
    size_t acc = 0;
    int s = 1;
    for (int u = 0; u < pl->units && s < pl->parts; u++) {
        acc += pl->unit_ents[u];
        while (s < pl->parts && acc * (size_t)pl->parts >= total * (size_t)s) pl->bound[s++] = u + 1;
    }
    while (s < pl->parts) pl->bound[s++] = pl->units;
}

int ppo_plan_begin(Ppo *p, const int32_t *mb, int M) {
    PpoPlan *pl = p->plan;
    if (plan_reserve(pl, M)) return -1;
    size_t total = 0;
    for (int i = 0; i < M; i++) {
        pl->xs[i] = ppo_sample_x(p, mb[i]);
        total += (size_t)pl->xs[i].nnz;
    }
    if (total > p->ent_cap) {
        uint32_t *bigger = realloc(p->ent, sizeof(uint32_t) * (total + total / 4));
        if (!bigger) return -1;
        p->ent = bigger;
        p->ent_cap = total + total / 4;
    }
    pl->M = M;
    pl->total = total;
    return 0;
}

void ppo_plan_prefix(Ppo *p) {
    PpoPlan *pl = p->plan;
    int rows = 0;
    size_t ents = 0;
    for (int s = 0; s < pl->parts; s++) {
        pl->part[s].row_base = rows;
        pl->part[s].ent_base = ents;
        rows += pl->part[s].rows;
        ents += pl->part[s].ents;
        atomic_store_explicit(&pl->part[s].next, 0, memory_order_relaxed); // (job 2 runs after this job)
    }
    rowset_clear(&p->rows);
    p->rows.n = rows;
    p->row_off[rows] = ents;
}

void ppo_plan_end(Ppo *p) { plan_split(p->plan, p->plan->total); }

// ----------------------------------------------------------------------------
// the gradient by rows

// The squared norm of a row, in float64 from its float32 entries, in ROW_LANES partial sums
// (entry j into lane j % ROW_LANES), then the lanes pairwise: a fixed order, so the same bits
// everywhere, that vectorises (one sum in entry order is a chain of H dependent additions: a
// quarter of the rows' pass).
#define ROW_LANES 8
static double row_sq(const float *restrict g, size_t H) {
    double lane[ROW_LANES] = { 0 };
    size_t j = 0;
    for (; j + ROW_LANES <= H; j += ROW_LANES)
        for (int l = 0; l < ROW_LANES; l++) lane[l] += (double)g[j + l] * (double)g[j + l];
    for (int l = 0; j < H; j++, l++) lane[l] += (double)g[j] * (double)g[j];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// A chunk of columns of a row's sum in vectors of 16 floats (GNU C's vector extension: AVX-512
// registers, or pairs and quads of narrower ones), so that the sum stays in registers while the
// row's entries stream past, rather than going to memory and back at every entry (the loops
// over a runtime H are left so by the compiler): 128 columns where there are 32 vector
// registers (AVX-512: H = 128 in one pass over the list), else 64. Each column's sum is in its
// list's order however the columns are chunked: the same bits. Loads and stores by memcpy: no
// alignment is assumed (and no function takes or returns a Cols: without AVX-512 that would be
// an ABI of its own).
typedef float Cols __attribute__((vector_size(16 * sizeof(float))));
#if defined(__AVX512F__)
#define ROW_CHUNK 8 // Cols a chunk: 128 columns
#else
#define ROW_CHUNK 4 // 64 columns
#endif

// An entry's sign as a factor, without a branch (the signs follow no pattern a predictor
// learns): a product by +-1 is exact and x + (-1 y) is x - y, so the bits are a branch's.
static inline float entry_sign(uint32_t e) { return 1.0f - 2.0f * (float)(e & 1); }

// Columns [j0, j0 + 16 chunk) of row k's gradient (chunk a constant where it is inlined).
static inline __attribute__((always_inline)) void row_chunk(
    const uint32_t *e0, const uint32_t *end, const float *dh, size_t H, size_t j0, float scale, float *g, int chunk) {
    Cols acc[ROW_CHUNK];
    const float *d = dh + (size_t)(*e0 >> 1) * H + j0;
    float sg = entry_sign(*e0);
    for (int c = 0; c < chunk; c++) {
        Cols x;
        memcpy(&x, d + 16 * c, sizeof(x));
        acc[c] = sg * x;
    }
    for (const uint32_t *e = e0 + 1; e < end; e++) {
        d = dh + (size_t)(*e >> 1) * H + j0;
        sg = entry_sign(*e);
        for (int c = 0; c < chunk; c++) {
            Cols x;
            memcpy(&x, d + 16 * c, sizeof(x));
            acc[c] += sg * x;
        }
    }
    for (int c = 0; c < chunk; c++) {
        const Cols v = acc[c] * scale;
        memcpy(g + j0 + 16 * c, &v, sizeof(v));
    }
}

// Row k's gradient: its list's signed dh rows in sample order, times scale, in float32; its
// squared norm.
static void row_grad(Ppo *p, const float *dh, float scale, int k) {
    const size_t H = (size_t)p->net.H;
    float *restrict g = p->gw1 + (size_t)k * H;
    const uint32_t *e0 = p->ent + p->row_off[k], *end = p->ent + p->row_off[k + 1];
    size_t j0 = 0;
    for (; j0 + 16 * ROW_CHUNK <= H; j0 += 16 * ROW_CHUNK) row_chunk(e0, end, dh, H, j0, scale, g, ROW_CHUNK);
    for (; j0 + 64 <= H; j0 += 64) row_chunk(e0, end, dh, H, j0, scale, g, 4);
    if (j0 < H) { // the columns past the last whole chunk (H not a multiple of 64)
        const float *d = dh + (size_t)(*e0 >> 1) * H;
        float sg = entry_sign(*e0);
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

void ppo_rows_claim(Ppo *p, PpoThread *th, const float *dh, float scale, int part) {
    PpoPlan *pl = p->plan;
    const size_t H = (size_t)p->net.H;
    int n = 0;
    for (int o = 0; o < pl->parts; o++) {
        PpoPlanPart *pp = &pl->part[(part + o) % pl->parts];
        const int k0 = pp->row_base, k1 = k0 + pp->rows;
        int c;
        while ((c = atomic_fetch_add_explicit(&pp->next, 1, memory_order_relaxed)) * PPO_ROW_PIECE < pp->rows) {
            const int a = k0 + c * PPO_ROW_PIECE, b = a + PPO_ROW_PIECE < k1 ? a + PPO_ROW_PIECE : k1;
            th->pieces[2 * n] = a;
            th->pieces[2 * n + 1] = b;
            n++;
            for (int k = a; k < b; k++) {
                // the packed rows were written a minibatch ago: asked for ahead, their lines arrive meanwhile
                if (k + MEM_AHEAD_ROWS < b)
                    mem_prefetch_w(p->gw1 + (size_t)(k + MEM_AHEAD_ROWS) * H, sizeof(float) * H);
                row_grad(p, dh, scale, k);
            }
        }
    }
    th->npieces = n;
}

// ----------------------------------------------------------------------------
// the hidden sums by rows

// A tile of PPO_TILE columns of a row (GNU C's vector extension: two AVX-512 registers, or as
// many narrower ones as it takes); loads and stores by memcpy, as Cols.
typedef float Tile __attribute__((vector_size(PPO_TILE * sizeof(float))));
typedef uint32_t TileBits __attribute__((vector_size(PPO_TILE * sizeof(uint32_t))));

bool ppo_rows_forward_used(const Ppo *p) {
    const int H = p->net.H;
    return p->threads > 1 && H % PPO_TILE == 0 && (H / PPO_TILE) % p->threads == 0 && (!p->comm || p->comm->size == 1);
}

void ppo_rows_forward(Ppo *p, int part, int parts) {
    const size_t H = (size_t)p->net.H, M = (size_t)p->plan->M;
    const int tiles = (int)(H / PPO_TILE), n = p->rows.n;
    const float *w1 = p->net.w1;
    int t0, t1;
    part_range(tiles, part, parts, &t0, &t1);
    for (int t = t0; t < t1; t++) {
        float *acc = p->hacc + (size_t)t * M * PPO_TILE;
        const size_t c0 = (size_t)t * PPO_TILE;
        memset(acc, 0, sizeof(float) * M * PPO_TILE);
        for (int k = 0; k < n; k++) {
            if (k + MEM_AHEAD_ROWS < n)
                mem_prefetch(w1 + (size_t)p->rows.list[k + MEM_AHEAD_ROWS] * H + c0, sizeof(float) * PPO_TILE);
            TileBits w;
            memcpy(&w, w1 + (size_t)p->rows.list[k] * H + c0, sizeof(w));
            for (const uint32_t *e = p->ent + p->row_off[k], *end = p->ent + p->row_off[k + 1]; e < end; e++) {
                float *a = acc + (size_t)(*e >> 1) * PPO_TILE;
                // -w is w with its sign bits flipped (exact), and x + -w is x - w: the bits of a
                // subtraction, without a product or a branch
                const TileBits sw = w ^ (uint32_t)((*e & 1) << 31);
                Tile x, y;
                memcpy(&x, a, sizeof(x));
                memcpy(&y, &sw, sizeof(y));
                x += y;
                memcpy(a, &x, sizeof(x));
            }
        }
    }
}

void ppo_rows_hidden(const Ppo *p, int i, double *h) {
    const size_t H = (size_t)p->net.H, M = (size_t)p->plan->M;
    const double *b1 = acnet_tail_parts(&p->net, p->net.t).b1;
    for (size_t t = 0; t < H / PPO_TILE; t++) {
        const float *acc = p->hacc + (t * M + (size_t)i) * PPO_TILE;
        for (int l = 0; l < PPO_TILE; l++) h[t * PPO_TILE + l] = b1[t * PPO_TILE + l] + (double)acc[l];
    }
}
