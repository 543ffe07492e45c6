// test_ppo_plan.c: PPO's rows' plan (ppo_merge.c), whose counting sort the pool's threads
// share, is the one a single pass over the minibatch gives: the touched rows ascending, each
// row's (sample, sign) list in sample order, for minibatches of a real rollout on 1, 2, 3 and 8
// threads, twice in a row (the second time with the ranges of rows the first plans chose). The
// check itself sees two entries of a row swapped. The hidden sums by rows (ppo_rows_forward) on
// 1, 2, 3 and 4 threads give each sample acnet_hidden's bits; one entry's sign flipped, they do not.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ppo_common.h"
#include "algo/ppo/ppo.h"
#include "algo/ppo/ppo_parts.h"
#include "train/pool.h"

typedef struct {
    int n;          // touched rows
    uint16_t *rows; // (D) ascending
    size_t *off;    // (D + 1)
    uint32_t *ent;  // sample i, sign -1: 2 i + 1; +1: 2 i
} Plan;

// The plan of minibatch mb (M samples) by one pass: per row, its entries as the samples come.
static Plan reference_plan(const Ppo *p, const int32_t *mb, int M) {
    const int D = p->net.D;
    size_t *count = calloc((size_t)D + 1, sizeof(size_t)), total = 0;
    for (int i = 0; i < M; i++) {
        const SparseX x = ppo_sample_x(p, mb[i]);
        for (int k = 0; k < x.nnz; k++) count[x.idx[k]]++;
        total += (size_t)x.nnz;
    }
    Plan r = { 0, calloc((size_t)D, sizeof(uint16_t)), calloc((size_t)D + 1, sizeof(size_t)),
        calloc(total + 1, sizeof(uint32_t)) };
    size_t *at = calloc((size_t)D, sizeof(size_t)), pos = 0;
    cr_assert(count && r.rows && r.off && r.ent && at);
    for (int row = 0; row < D; row++) {
        if (!count[row]) continue;
        r.rows[r.n] = (uint16_t)row;
        r.off[r.n++] = pos;
        at[row] = pos;
        pos += count[row];
    }
    r.off[r.n] = pos;
    for (int i = 0; i < M; i++) {
        const SparseX x = ppo_sample_x(p, mb[i]);
        for (int k = 0; k < x.nnz; k++) r.ent[at[x.idx[k]]++] = (uint32_t)i << 1 | (x.sign[k] < 0);
    }
    free(count);
    free(at);
    return r;
}

static void plan_free(Plan *r) {
    free(r->rows);
    free(r->off);
    free(r->ent);
}

// Where p's plan differs from want (a line in why), or true when it does not.
static bool same_plan(const Ppo *p, const Plan *want, char *why, size_t len) {
    if (p->rows.n != want->n) return snprintf(why, len, "%d rows, not %d", p->rows.n, want->n), false;
    int marked = 0;
    for (int r = 0; r < p->net.D; r++) marked += p->rows.in[r] != 0;
    if (marked != want->n) return snprintf(why, len, "%d rows marked, not %d", marked, want->n), false;
    for (int k = 0; k < want->n; k++) {
        if (p->rows.list[k] != want->rows[k] || !p->rows.in[want->rows[k]])
            return snprintf(why, len, "row %d is %d, not %d", k, p->rows.list[k], want->rows[k]), false;
        if (p->row_off[k] != want->off[k])
            return snprintf(why, len, "row %d starts at %zu, not %zu", k, p->row_off[k], want->off[k]), false;
    }
    if (p->row_off[want->n] != want->off[want->n]) return snprintf(why, len, "the entries' count differs"), false;
    for (size_t e = 0; e < want->off[want->n]; e++)
        if (p->ent[e] != want->ent[e])
            return snprintf(why, len, "entry %zu is %u, not %u", e, p->ent[e], want->ent[e]), false;
    return true;
}

// The plan's steps as ppo_grad.c runs them on the pool's parts (there inside its jobs, between
// barriers): begin, count, prefix, place, end.
static void count_part(void *ctx, int part, int parts) {
    (void)parts;
    ppo_plan_count(ctx, part);
}
static void place_part(void *ctx, int part, int parts) {
    (void)parts;
    ppo_plan_place(ctx, part);
}
static int rows_plan(Ppo *p, const int32_t *mb, int M) {
    if (ppo_plan_begin(p, mb, M)) return -1;
    pool_for(p->pool, count_part, p);
    ppo_plan_prefix(p);
    pool_for(p->pool, place_part, p);
    ppo_plan_end(p);
    return 0;
}

Test(ppo_plan, threads_give_the_one_pass_plan_rows_ascending_samples_in_order) {
    TrainConfig c;
    Pool *one;
    Ppo *p = ppo_test_create(&c, "envs=8 steps=128 hidden=8 minibatches=4 epochs=1 coarse=1", 1, &one);
    char err[256];
    for (int k = 0; k < 2; k++) cr_assert_eq(ppo_collect(p), 0, "%s", p->why); // the ball in play
    const int B = c.envs * c.steps, M = B / c.minibatches;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)B);
    cr_assert_not_null(perm);
    for (int s = 0; s < B; s++) perm[s] = (int32_t)((s * 769L + 11) % B); // a shuffle: 769 is prime to 1024
    Plan want[2] = { reference_plan(p, perm, M), reference_plan(p, perm + M, M) };
    cr_assert_gt(want[0].off[want[0].n], 10000, "a real minibatch: %zu entries", want[0].off[want[0].n]);
    static const int counts[] = { 1, 2, 3, 8 };
    for (size_t q = 0; q < sizeof(counts) / sizeof(counts[0]); q++) {
        const int threads = counts[q];
        Pool *pool = pool_create(threads);
        cr_assert_eq(ppo_bind(p, pool, NULL), 0);
        cr_assert_eq(p->threads, threads);
        for (int round = 0; round < 2; round++)
            for (int m = 0; m < 2; m++) {
                cr_assert_eq(rows_plan(p, perm + (size_t)m * M, M), 0);
                cr_assert(same_plan(p, &want[m], err, sizeof(err)), "%d threads, minibatch %d, round %d: %s", threads,
                    m, round, err);
            }
        // the check sees a row whose entries are out of sample order
        int k = 0;
        while (p->row_off[k + 1] - p->row_off[k] < 2) k++;
        const size_t e = p->row_off[k];
        const uint32_t first = p->ent[e];
        p->ent[e] = p->ent[e + 1];
        p->ent[e + 1] = first;
        cr_assert_not(same_plan(p, &want[1], err, sizeof(err)));
        cr_assert(strstr(err, "entry"), "%s", err);
        cr_assert_eq(ppo_bind(p, one, NULL), 0);
        pool_destroy(pool);
    }
    for (int m = 0; m < 2; m++) plan_free(&want[m]);
    free(perm);
    pool_destroy(one);
    ppo_destroy(p);
}

static void rows_forward_part(void *ctx, int part, int parts) { ppo_rows_forward(ctx, part, parts); }

Test(ppo_plan, hidden_sums_by_rows_are_each_samples_own_bit_for_bit) {
    TrainConfig c;
    Pool *one;
    Ppo *p = ppo_test_create(&c, "envs=8 steps=128 hidden=128 minibatches=4 epochs=1 coarse=1", 1, &one);
    for (int k = 0; k < 2; k++) cr_assert_eq(ppo_collect(p), 0, "%s", p->why);
    const int B = c.envs * c.steps, M = B / c.minibatches, H = c.hidden;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)B);
    double *got = malloc(sizeof(double) * (size_t)H), *want = malloc(sizeof(double) * (size_t)H);
    cr_assert(perm && got && want);
    for (int s = 0; s < B; s++) perm[s] = (int32_t)((s * 769L + 11) % B);
    for (int threads = 1; threads <= 4; threads++) {
        Pool *pool = pool_create(threads);
        cr_assert_eq(ppo_bind(p, pool, NULL), 0);
        for (int m = 0; m < 2; m++) {
            cr_assert_eq(rows_plan(p, perm + (size_t)m * M, M), 0);
            cr_assert_gt(p->row_off[p->rows.n], 10000, "a real minibatch");
            pool_for(p->pool, rows_forward_part, p);
            for (int i = 0; i < M; i++) {
                ppo_rows_hidden(p, i, got);
                acnet_hidden(&p->net, ppo_sample_x(p, perm[(size_t)m * M + i]), want);
                cr_assert(!memcmp(got, want, sizeof(double) * (size_t)H), "%d threads, minibatch %d: sample %d",
                    threads, m, i);
            }
        }
        // the check sees one entry's sign flipped: its sample's sums differ
        const uint32_t e = p->ent[p->row_off[p->rows.n / 2]];
        p->ent[p->row_off[p->rows.n / 2]] = e ^ 1;
        pool_for(p->pool, rows_forward_part, p);
        ppo_rows_hidden(p, (int)(e >> 1), got);
        acnet_hidden(&p->net, ppo_sample_x(p, perm[(size_t)M + (e >> 1)]), want);
        cr_assert(memcmp(got, want, sizeof(double) * (size_t)H), "%d threads: a flipped sign went unseen", threads);
        cr_assert_eq(ppo_bind(p, one, NULL), 0);
        pool_destroy(pool);
    }
    free(perm);
    free(got);
    free(want);
    pool_destroy(one);
    ppo_destroy(p);
}
