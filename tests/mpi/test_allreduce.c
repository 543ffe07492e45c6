// test_allreduce.c: the all-reduce (src/cluster/allreduce.c) against an exact reference, under
// mpirun with 2 to 4 ranks (tests/sh/test_mpi_allreduce.sh runs it).
//
// Every rank builds every rank's sum from a seed (so each can compute the reference alone):
// a random set of rows touched, with entries of random magnitudes; its other rows hold stale
// garbage, which must never be read. The reference sums the touched entries as 128-bit
// integers and rounds once. Checked, bit for bit, on every rank: the float64 result on every
// row of the union and on the dense tail (pg's W2: H entries; ppo's: more, or fewer), in the
// plan's order; with rows touched by one rank, by several
// (two, and three or more: the accumulator), by all; a rank that touched nothing; no row
// touched at all; hidden sizes of 5 to 200; high parts of 1, 2 and 8 bytes; a value too large
// for the high part chosen (every rank must report ALLREDUCE_WIDER, and the same call with
// 8-byte high parts must then give the exact sum); and a total of 2^31 or more, which it must
// refuse as one process does. Also: every row of the union appears once in the plan. Every case
// runs twice: with the passes on one thread, and shared out to a pool of 3 threads.
// Prints one line per case on rank 0; exits non-zero on any mismatch.
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/allreduce.h"
#include "train/gradsum.h"
#include "train/train.h"
#include "util/rng.h"

typedef __int128 i128;

enum { D = 300, MAXH = 200 };

typedef struct {
    size_t H;
    size_t L;               // the tail's entries (0: H, as pg's W2)
    int rows_pct;           // chance a rank touches a row
    int idle_rank;          // this rank touches no row (-1: none)
    int max_exp;            // entries up to 2^max_exp in magnitude
    int big;                // every entry 1.5 x 2^30: any two sum past 2^31
    int hs;                 // high part size to use; 0: the narrowest that holds every rank's values
    int wider;              // hs is too narrow: ALLREDUCE_WIDER, then 8 bytes
    const char *expect_err; // NULL: must succeed; else a piece of the message every rank must give
} Case;

// Rank q's sum for case c (seeded by both), into s; own[row] says which rows it touched.
static size_t tail_len(const Case *c) { return c->L ? c->L : c->H; }

static void make_sum(const Case *c, int cidx, int q, GradSum *s, uint8_t *own) {
    Rng rng;
    rng_seed(&rng, 1000u * (uint64_t)cidx + (uint64_t)q + 1);
    const size_t H = c->H, n = D * H + tail_len(c);
    double *g = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        double m = ldexp(1.0, (int)(rng_next(&rng) % (uint64_t)(c->max_exp + 41)) - 40);
        double v = rng_normal(&rng) * m;
        if (fabs(v) >= 0x1p31 * 0.99) v = copysign(0x1p31 * 0.99, v);
        g[i] = c->big ? 0x1.8p30 : v;
    }
    for (size_t i = 0; i < n; i++) s->hi[i] = (int64_t)rng_next(&rng), s->lo[i] = (int64_t)(rng_next(&rng) >> 1);
    for (size_t r = 0; r < D; r++) {
        own[r] = (int)(rng_next(&rng) % 100) < c->rows_pct && q != c->idle_rank;
        if (own[r]) gradsum_set(s, g, r * H, H);
    }
    gradsum_set(s, g, D * H, tail_len(c)); // the tail: every rank has one
    free(g);
}

static int run_case(const Case *c, int cidx, int rank, int N, Pool *pool) {
    const size_t H = c->H, L = tail_len(c), n = D * H + L, mb = (D + 7) / 8;
    GradSum mine, other;
    gradsum_alloc(&mine, n);
    gradsum_alloc(&other, n);
    uint8_t own[D], any[D] = { 0 }, oth[D];
    uint8_t *masks = calloc((size_t)N, mb);
    i128 *ref = calloc(n, sizeof(i128)), most = 0;
    for (int q = 0; q < N; q++) {
        GradSum *s = q == rank ? &mine : &other;
        uint8_t *o = q == rank ? own : oth;
        make_sum(c, cidx, q, s, o);
        for (size_t r = 0; r <= D; r++) {
            if (r < D && !o[r]) continue;
            if (r < D) {
                any[r] = 1;
                masks[(size_t)q * mb + r / 8] |= (uint8_t)(1u << (r % 8));
            }
            for (size_t j = 0; j < (r < D ? H : L); j++) {
                i128 v = (i128)s->hi[r * H + j] * ((i128)1 << 32) + s->lo[r * H + j];
                ref[r * H + j] += v;
                if ((v < 0 ? -v : v) > most) most = v < 0 ? -v : v; // what the wire must hold
            }
        }
    }
    int hs = c->hs ? c->hs : most < ((i128)1 << 71) ? 1 : most < ((i128)1 << 79) ? 2 : 8;
    Allreduce a;
    if (allreduce_init(&a, N, D, H, L)) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    allreduce_plan(&a, masks, mb);
    int bad = 0;
    // the plan: every row of the union once
    uint8_t seen[D] = { 0 };
    size_t nrows = 0;
    for (size_t r = 0; r < D; r++) nrows += any[r];
    if (a.nrows != nrows) {
        fprintf(stderr, "rank %d case %d: %zu rows planned, %zu touched\n", rank, cidx, a.nrows, nrows);
        bad = 1;
    }
    for (size_t k = 0; k < a.nrows && !bad; k++)
        if (a.order[k] >= D || !any[a.order[k]] || seen[a.order[k]]++) {
            fprintf(stderr, "rank %d case %d: plan row %zu is %u\n", rank, cidx, k, a.order[k]);
            bad = 1;
        }
    double *g = calloc(n, sizeof(double));
    char err[256] = "";
    int64_t sent = 0;
    int rc = bad ? -1 : allreduce_run(&a, pool, &mine, hs, rank, g, &sent, err, sizeof(err));
    if (c->wider && !bad) {
        if (rc != ALLREDUCE_WIDER) {
            fprintf(stderr, "rank %d case %d: %d-byte high parts cannot hold the values, yet rc %d '%s'\n", rank, cidx,
                hs, rc, err);
            bad = 1;
        }
        hs = 8;
        rc = allreduce_run(&a, pool, &mine, hs, rank, g, &sent, err, sizeof(err));
    }
    if (bad) {
    } else if (c->expect_err) {
        if (rc == 0 || !strstr(err, c->expect_err)) {
            fprintf(stderr, "rank %d case %d: wanted an error with '%s', got rc %d '%s'\n", rank, cidx, c->expect_err,
                rc, err);
            bad = 1;
        }
    } else if (rc) {
        fprintf(stderr, "rank %d case %d: %s\n", rank, cidx, err);
        bad = 1;
    } else {
        for (size_t k = 0; k <= a.nrows && !bad; k++) {
            size_t r = k < a.nrows ? a.order[k] : D;
            for (size_t j = 0; j < (r < D ? H : L); j++) {
                double want = (double)ref[r * H + j] * 0x1p-64, got = g[k * H + j];
                if (memcmp(&want, &got, sizeof(double))) {
                    fprintf(
                        stderr, "rank %d case %d: row %zu entry %zu: %.17g, want %.17g\n", rank, cidx, r, j, got, want);
                    bad = 1;
                    break;
                }
            }
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d ranks, %s, H %zu, tail %zu, %zu rows, %s%s%d-byte high parts, %s\n", bad ? "FAIL" : "ok", N,
            pool ? "passes on 3 threads" : "passes on 1 thread", H, L, a.nrows,
            c->idle_rank >= 0 ? "rank 1 touched none, " : "", c->wider ? "1-byte high parts too narrow, then " : "", hs,
            c->expect_err ? c->expect_err : "the exact sum, rounded once, everywhere");
    free(g);
    free(ref);
    free(masks);
    allreduce_free(&a);
    gradsum_free(&mine);
    gradsum_free(&other);
    return bad;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, N;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    if (N < 2) {
        if (rank == 0) fprintf(stderr, "test_allreduce: run it with 2 or more ranks\n");
        MPI_Finalize();
        return 2;
    }
    // clang-format off
    const Case cases[] = {
        { 13, 0, 50, -1, 4, 0, 0, 0, NULL },      // gradient-like magnitudes
        { 7, 0, 90, -1, 10, 0, 0, 0, NULL },      // past 2^7: 2-byte high parts, the exact conversion
        { 200, 0, 30, -1, 2, 0, 0, 0, NULL },     // the real hidden size
        { 200, 0, 100, -1, 2, 0, 0, 0, NULL },    // every rank touches every row
        { 13, 0, 60, 1, 4, 0, 0, 0, NULL },       // a rank that touched nothing
        { 5, 0, 0, -1, 3, 0, 0, 0, NULL },        // no row touched: the tail only, empty messages
        { 7, 0, 50, -1, 20, 0, 0, 0, NULL },      // past 2^15: 8-byte high parts
        { 13, 0, 50, -1, 4, 0, 2, 0, NULL },      // 2- and 8-byte high parts where 1 would do
        { 13, 0, 50, -1, 4, 0, 8, 0, NULL },
        { 7, 0, 50, -1, 29, 0, 1, 1, NULL },      // values that do not fit 1 byte: ALLREDUCE_WIDER
        { 7, 0, 50, -1, 30, 1, 8, 0, "beyond 2^31" },          // a total of 2^31 or more
        { 16, 67, 50, -1, 4, 0, 0, 0, NULL },  // a tail longer than a row (ppo's b1 and heads)
        { 16, 67, 0, -1, 4, 0, 0, 0, NULL },   // ... and nothing else
        { 13, 3, 60, 1, 10, 0, 0, 0, NULL },   // a tail shorter than a row, 2-byte high parts
        { 13, 40, 50, -1, 29, 0, 1, 1, NULL }, // a long tail too wide for 1 byte: ALLREDUCE_WIDER
    };
    // clang-format on
    // each case with the passes on this thread alone, then shared out to a pool of 3 threads
    Pool *pool = pool_create(3);
    if (!pool) {
        fprintf(stderr, "cannot start a pool of 3 threads\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int bad = 0;
    for (int i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
        bad |= run_case(&cases[i], i, rank, N, NULL);
        bad |= run_case(&cases[i], i, rank, N, pool);
    }
    pool_destroy(pool);
    MPI_Finalize();
    return bad;
}
