// ppo_merge.c: the exact merge of a minibatch's gradient: the threads' fixed-point sums into
// one, row by row on the rows any of them touched (ascending: an order no thread count
// changes), converted to float64 and divided by the minibatch's size; under MPI then the
// ranks' sums and loss terms through Comm.reduce (the transport's exact all-reduce).
#include "ppo_parts.h"

#include <stdatomic.h>
#include <string.h>

// The threads' sums into the first thread's, exactly, and into p->g, converted and times 1/M,
// row by row (rows ascending in p->rows), then the tail (zeros on a rank that had no chunk).
typedef struct {
    Ppo *p;
    double scale;
    atomic_int bad;
} MergeJob;

// W1 row `row` (-1: the tail, at [off, off + len)) of the threads that have it into th[0]'s
// sum, exactly; 0, or 1 if a sum passed 2^31.
static bool thread_has(const PpoThread *t, int row) { return row < 0 ? t->tail_used : rowset_has(&t->used, row); }

static int merge_range(Ppo *p, int row, size_t off, size_t len) {
    GradSum *dst = &p->th[0].acc;
    bool filled = thread_has(&p->th[0], row);
    int bad = 0;
    for (int i = 1; i < p->threads; i++) {
        if (!thread_has(&p->th[i], row)) continue;
        if (filled) bad |= gradsum_merge_range(dst, &p->th[i].acc, off, len);
        else gradsum_copy_range(dst, &p->th[i].acc, off, len);
        filled = true;
    }
    if (!filled) gradsum_zero_range(dst, off, len);
    return bad;
}

static void merge_part(void *ctx, int part, int parts) {
    MergeJob *job = ctx;
    Ppo *p = job->p;
    const size_t H = (size_t)p->net.H;
    const int n = p->rows.n;
    const GradSum *sum = &p->th[0].acc;
    int bad = 0;
    const int r1 = (int)((int64_t)n * (part + 1) / parts);
    for (int r = (int)((int64_t)n * part / parts); r < r1; r++) {
        if (r + MEM_AHEAD_ROWS < r1) {    // every thread's (asking only those that have the row measured slower)
            const size_t ahead = (size_t)p->rows.list[r + MEM_AHEAD_ROWS] * H;
            for (int i = 0; i < p->threads; i++) ppo_prefetch_sum_row(&p->th[i].acc, p->g, ahead, H);
        }
        const int row = p->rows.list[r];
        const size_t off = (size_t)row * H;
        bad |= merge_range(p, row, off, H);
        gradsum_to_double_range(sum, p->g + off, off, H);
        for (size_t j = 0; j < H; j++) p->g[off + j] *= job->scale;
    }
    if (part == parts - 1) {
        const size_t off = p->net.tail, len = p->net.n - p->net.tail;
        bad |= merge_range(p, -1, off, len);
        gradsum_to_double_range(sum, p->g + off, off, len);
        for (size_t j = 0; j < len; j++) p->g[off + j] *= job->scale;
    }
    if (bad) atomic_store(&job->bad, 1);
}

// The ranks' total (Comm.reduce's packed g: rows in the plan's order in p->rows, then the
// tail) into p->g, times 1/M, and p->rows ascending again (the norm sums the rows in that
// order, as one process does).
static void unpack_total(Ppo *p, const double *g, double scale) {
    const size_t H = (size_t)p->net.H, tail = p->net.tail, len = p->net.n - p->net.tail;
    const int n = p->rows.n;
    for (int k = 0; k < n; k++) {
        const int row = p->rows.list[k];
        p->pos[row] = k;
        p->row_mark[row] = 1;
        for (size_t j = 0; j < H; j++) p->g[(size_t)row * H + j] = g[(size_t)k * H + j] * scale;
    }
    for (size_t j = 0; j < len; j++) p->g[tail + j] = g[(size_t)n * H + j] * scale;
    rowset_clear(&p->rows);
    for (int row = 0; row < p->net.D; row++)
        if (p->row_mark[row]) { p->row_mark[row] = 0; rowset_add(&p->rows, row); }
}

int ppo_merge(Ppo *p, int M, int chunks) {
    // the rows any thread touched, ascending: an order that no thread count changes
    rowset_clear(&p->rows);
    for (int i = 0; i < p->threads; i++)
        for (int r = 0; r < p->th[i].used.n; r++) p->row_mark[p->th[i].used.list[r]] = 1;
    for (int row = 0; row < p->net.D; row++)
        if (p->row_mark[row]) { p->row_mark[row] = 0; rowset_add(&p->rows, row); }
    MergeJob mj = { p, 1.0 / M, 0 };
    pool_for(p->pool, merge_part, &mj);
    if (atomic_load(&mj.bad)) return 1;
    // the ranks' sums and loss terms (each chunk's are non-zero on the one rank that computed
    // it: summed as integers, every rank has their bits); one process: nothing to do
    if (p->comm) {
        const int nx = chunks * PPO_N_STATS;
        memcpy(p->x, p->chunk_stats, sizeof(int64_t) * (size_t)nx);
        const double *g;
        if (p->comm->reduce(p->comm, p->pool, &p->th[0].acc, &p->rows, (size_t)p->net.H, p->x, nx, p->digest, &g,
                            p->why, sizeof(p->why)))
            return -1;
        memcpy(p->chunk_stats, p->x, sizeof(int64_t) * (size_t)nx);
        if (g) unpack_total(p, g, 1.0 / M);
    }
    return 0;
}
