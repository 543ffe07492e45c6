// allreduce.c: the exact all-reduce of a batch's gradient sum (allreduce.h).
#include "allreduce.h"

#include "../util/clock.h"
#include "../util/mem.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Adds the time since *t to phase p, and moves *t on.
static void lap(Allreduce *a, int p, double *t) {
    double now = clock_now_s();
    a->phase_s[p] += now - *t;
    *t = now;
}

#define HEADER 8 // every message of step 1 starts with its sender's flags

// A message of step 1 with n entries: the header, n low words, n high parts, padded to 8
// bytes (so that every message's words are aligned).
static size_t msg_bytes(size_t n, int hs) { return (HEADER + n * (8 + (size_t)hs) + 7) / 8 * 8; }

enum { FLAG_WIRE = 1, FLAG_RANGE = 2 };

// A row this rank sends: to whom, and where in that message (entry e).
struct AllreduceOut {
    uint16_t row; // D: the tail
    int32_t q;
    size_t e;
};

// A thread's scratch in the passes.
struct AllreducePart {
    size_t *cur;          // (ranks,) entries read so far from each rank's message
    const uint64_t **inL; // (ranks,) per row: where each incoming rank's values are
    const void **inH;
    uint64_t *accL; // (max(H, L),) a row's sum, as 128-bit integers
    int64_t *accH;
    int bad, beyond; // a value did not fit its high part; a total reached 2^31
};

static inline bool touched(const Allreduce *a, int q, size_t row) {
    return row == a->D || (a->masks[(size_t)q * a->stride + (row >> 3)] >> (row & 7) & 1);
}

// The entries of row `row` (D: the tail).
static inline size_t row_len(const Allreduce *a, size_t row) { return row == a->D ? a->L : a->H; }

int allreduce_init(Allreduce *a, int ranks, size_t D, size_t H, size_t L) {
    memset(a, 0, sizeof(*a));
    a->ranks = ranks;
    a->D = D;
    a->H = H;
    a->L = L;
    const size_t R = (size_t)ranks;
    a->order = calloc(D, sizeof(uint16_t));
    a->first = calloc(R + 1, sizeof(size_t));
    a->owner = calloc(D, sizeof(int16_t));
    a->load = calloc(R, sizeof(size_t));
    a->nin = calloc(R, sizeof(size_t));
    a->nout = calloc(R, sizeof(size_t));
    a->out = calloc(D + 1, sizeof(*a->out));
    int **ints[] = { &a->scount, &a->sdispl, &a->rcount, &a->rdispl, &a->gcount, &a->gdispl };
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) *ints[i] = calloc(R, sizeof(int));
    // a rank sends at most its every row once, in the widest form
    a->send_cap = (D * H + L) * 16 + R * (HEADER + 8);
    a->send = malloc(a->send_cap);
    if (!a->order || !a->first || !a->owner || !a->load || !a->nin || !a->nout || !a->out || !a->scount || !a->sdispl ||
        !a->rcount || !a->rdispl || !a->gcount || !a->gdispl || !a->send || ranks > INT16_MAX) {
        allreduce_free(a);
        return -1;
    }
    return 0;
}

static void parts_free(Allreduce *a) {
    for (int p = 0; p < a->nparts; p++) {
        struct AllreducePart *t = &a->part[p];
        mem_free_all(t->cur, t->inL, t->inH, t->accL, t->accH);
    }
    free(a->part);
    a->part = NULL;
    a->nparts = 0;
}

// Scratch for n threads. 0 or -1 (out of memory).
static int parts_alloc(Allreduce *a, int n) {
    if (n <= a->nparts) return 0;
    parts_free(a);
    a->part = calloc((size_t)n, sizeof(*a->part));
    if (!a->part) return -1;
    a->nparts = n;
    const size_t R = (size_t)a->ranks;
    for (int p = 0; p < n; p++) {
        struct AllreducePart *t = &a->part[p];
        t->cur = calloc(R, sizeof(size_t));
        t->inL = calloc(R, sizeof(*t->inL));
        t->inH = calloc(R, sizeof(*t->inH));
        const size_t w = a->H > a->L ? a->H : a->L;
        t->accL = calloc(w, sizeof(uint64_t));
        t->accH = calloc(w, sizeof(int64_t));
        if (!t->cur || !t->inL || !t->inH || !t->accL || !t->accH) {
            parts_free(a);
            return -1;
        }
    }
    return 0;
}

void allreduce_free(Allreduce *a) {
    parts_free(a);
    mem_free_all(a->order, a->first, a->owner, a->load, a->nin, a->nout, a->out, a->scount, a->sdispl, a->rcount,
        a->rdispl, a->gcount, a->gdispl, a->send, a->recv);
    memset(a, 0, sizeof(*a));
}

// ----------------------------------------------------------------------------
// the plan

void allreduce_plan(Allreduce *a, const uint8_t *masks, size_t stride) {
    const int R = a->ranks;
    const size_t D = a->D;
    a->masks = masks;
    a->stride = stride;
    memset(a->load, 0, (size_t)R * sizeof(size_t));
    a->load[R - 1] = 1; // the tail
    // a row one rank touched is its; the others go to the least-loaded rank that touched
    // them, looking from a rank that moves with the row, so that ties spread
    for (size_t i = 0; i < D; i++) {
        int only = -1, n = 0;
        for (int q = 0; q < R && n < 2; q++)
            if (touched(a, q, i)) {
                only = q;
                n++;
            }
        a->owner[i] = (int16_t)(n == 1 ? only : n == 0 ? -1 : -2);
        if (n == 1) a->load[only]++;
    }
    for (size_t i = 0; i < D; i++) {
        if (a->owner[i] != -2) continue;
        int best = -1;
        for (int t = 0; t < R; t++) {
            int q = (int)((i + (size_t)t) % (size_t)R);
            if (touched(a, q, i) && (best < 0 || a->load[q] < a->load[best])) best = q;
        }
        a->owner[i] = (int16_t)best;
        a->load[best]++;
    }
    // the rows, owner by owner (a counting sort keeps each owner's in ascending order)
    memset(a->first, 0, ((size_t)R + 1) * sizeof(size_t));
    for (size_t i = 0; i < D; i++)
        if (a->owner[i] >= 0) a->first[a->owner[i] + 1]++;
    for (int q = 0; q < R; q++) a->first[q + 1] += a->first[q];
    a->nrows = a->first[R];
    size_t *next = a->load; // (reused: the load is done with)
    for (int q = 0; q < R; q++) next[q] = a->first[q];
    for (size_t i = 0; i < D; i++)
        if (a->owner[i] >= 0) a->order[next[a->owner[i]]++] = (uint16_t)i;
}

// Owner q's rows, the tail last for the last rank: its k-th row (k < owned(a, q)).
static size_t owned(const Allreduce *a, int q) { return a->first[q + 1] - a->first[q] + (q == a->ranks - 1); }
static size_t owned_row(const Allreduce *a, int q, size_t k) {
    size_t j = a->first[q] + k;
    return j < a->first[q + 1] ? a->order[j] : a->D;
}

// ----------------------------------------------------------------------------
// the loops over a row, written so that they vectorise; one variant per size of high part.
// On the wire an entry v is v mod 2^64 (n words), then floor(v / 2^64) (n int8, int16 or
// int64: hs bytes each), for a rank's own value hi * 2^32 + lo split by gradsum_split.
//   put:    own value to the wire form; 1 if one does not fit
//   acc0:   own plus one incoming, to a 128-bit accumulator (L, Hh)
//   accn:   accumulator plus one incoming
// then acc_final rounds the accumulator (a fused own-plus-one-to-float64 loop for the common
// case of two ranks was no faster: the accumulator is a row, in L1).
// Conversions to float64 take one rounding (gradsum_round, and the exact conversion beyond
// 2^7); a total of 2^31 or more (beyond what one process's sum holds, gradsum.h) is reported.

static inline int beyond_2_31(int64_t high) { return high < -(INT64_C(1) << 31) || high >= (INT64_C(1) << 31); }

// The accumulator (L, Hh) rounded into g; 1 if a total is 2^31 or more.
static int acc_final(const uint64_t *restrict L, const int64_t *restrict Hh, size_t len, double *restrict g) {
    uint64_t far = 0;
    for (size_t t = 0; t < len; t++) g[t] = gradsum_round(Hh[t], L[t], &far);
    int beyond = 0;
    for (size_t t = 0; far && t < len; t++)
        if (gradsum_far(Hh[t])) {
            beyond |= beyond_2_31(Hh[t]);
            g[t] = gradsum_value128(Hh[t], L[t]);
        }
    return beyond;
}

#define ROW_LOOPS(HT, PUT, ACC0, ACCN) \
    static int PUT( \
        const int64_t *restrict hi, const int64_t *restrict lo, size_t len, uint64_t *restrict L, HT *restrict Hh) { \
        int bad = 0; \
        for (size_t t = 0; t < len; t++) { \
            int64_t h; \
            uint64_t l; \
            gradsum_split(hi[t], lo[t], &h, &l); \
            L[t] = l; \
            Hh[t] = (HT)h; \
            bad |= h != (HT)h; \
        } \
        return bad; \
    } \
    static void ACC0(const int64_t *restrict hi, const int64_t *restrict lo, size_t len, const uint64_t *restrict Lin, \
        const HT *restrict Hin, uint64_t *restrict L, int64_t *restrict Hh) { \
        for (size_t t = 0; t < len; t++) { \
            int64_t h; \
            uint64_t l; \
            gradsum_split(hi[t], lo[t], &h, &l); \
            L[t] = l + Lin[t]; \
            Hh[t] = h + Hin[t] + (L[t] < l); \
        } \
    } \
    static void ACCN(uint64_t *restrict L, int64_t *restrict Hh, size_t len, const uint64_t *restrict Lin, \
        const HT *restrict Hin) { \
        for (size_t t = 0; t < len; t++) { \
            uint64_t l = L[t]; \
            L[t] = l + Lin[t]; \
            Hh[t] += Hin[t] + (L[t] < l); \
        } \
    }

ROW_LOOPS(int8_t, put8, acc0_8, accn_8)
ROW_LOOPS(int16_t, put16, acc0_16, accn_16)
ROW_LOOPS(int64_t, put64, acc0_64, accn_64)

static int put_row(const int64_t *hi, const int64_t *lo, size_t len, int hs, uint64_t *L, void *Hh) {
    if (hs == 8) return put64(hi, lo, len, L, Hh);
    if (hs == 2) return put16(hi, lo, len, L, Hh);
    return put8(hi, lo, len, L, Hh);
}

// Row `row` finished into g: this rank's values plus the n incoming rows (t->inL/inH).
// Returns 1 if a total is 2^31 or more.
static int finish_row(
    const Allreduce *a, const struct AllreducePart *t, const GradSum *sum, size_t row, int n, int hs, double *g) {
    const size_t H = row_len(a, row), off = row * a->H;
    const int64_t *hi = sum->hi + off, *lo = sum->lo + off;
    if (n == 0) { // one rank's sum: below 2^31 (gradsum.h)
        gradsum_to_double_range(sum, g, off, H);
        return 0;
    }
    const uint64_t *L0 = t->inL[0];
    const void *H0 = t->inH[0];
    uint64_t *L = t->accL;
    int64_t *Hh = t->accH;
    if (hs == 8)
        acc0_64(hi, lo, H, L0, H0, L, Hh);
    else if (hs == 2)
        acc0_16(hi, lo, H, L0, H0, L, Hh);
    else
        acc0_8(hi, lo, H, L0, H0, L, Hh);
    for (int s = 1; s < n; s++) {
        if (hs == 8)
            accn_64(L, Hh, H, t->inL[s], t->inH[s]);
        else if (hs == 2)
            accn_16(L, Hh, H, t->inL[s], t->inH[s]);
        else
            accn_8(L, Hh, H, t->inL[s], t->inH[s]);
    }
    return acc_final(L, Hh, H, g);
}

// ----------------------------------------------------------------------------
// the exchange

// The two passes, each a share of the rows on one thread of the pool.
typedef struct {
    Allreduce *a;
    const GradSum *sum;
    int hs, rank;
    double *g;
} Pass;

// This rank's values of the rows others own, into wire form in their messages.
static void pack_part(void *ctx, int part, int parts) {
    const Pass *ps = ctx;
    const Allreduce *a = ps->a;
    const size_t H = a->H, n = a->nout_rows;
    int bad = 0;
    for (size_t i = n * (size_t)part / (size_t)parts; i < n * (size_t)(part + 1) / (size_t)parts; i++) {
        const struct AllreduceOut *o = &a->out[i];
        uint64_t *L = (uint64_t *)(void *)(a->send + a->sdispl[o->q] + HEADER);
        uint8_t *Hb = (uint8_t *)(L + a->nout[o->q]);
        bad |= put_row(ps->sum->hi + (size_t)o->row * H, ps->sum->lo + (size_t)o->row * H, row_len(a, o->row), ps->hs,
            L + o->e, Hb + o->e * (size_t)ps->hs);
    }
    a->part[part].bad = bad;
}

// This rank's rows, finished: its values plus those of each rank that touched them.
static void finish_part(void *ctx, int part, int parts) {
    const Pass *ps = ctx;
    const Allreduce *a = ps->a;
    struct AllreducePart *t = &a->part[part];
    const int R = a->ranks, rank = ps->rank, hs = ps->hs;
    const size_t H = a->H, mo = owned(a, rank);
    const size_t k0 = mo * (size_t)part / (size_t)parts, k1 = mo * (size_t)(part + 1) / (size_t)parts;
    // where this share starts in each rank's message: its values of the rows before it
    memset(t->cur, 0, (size_t)R * sizeof(size_t));
    for (size_t k = 0; k < k0; k++) {
        const size_t row = owned_row(a, rank, k);
        for (int q = 0; q < R; q++)
            if (q != rank && touched(a, q, row)) t->cur[q] += row_len(a, row);
    }
    int beyond = 0;
    for (size_t k = k0; k < k1; k++) {
        const size_t row = owned_row(a, rank, k);
        int n = 0;
        for (int q = 0; q < R; q++) {
            if (q == rank || !touched(a, q, row)) continue;
            const uint8_t *m = a->recv + a->rdispl[q] + HEADER;
            t->inL[n] = (const uint64_t *)(const void *)m + t->cur[q];
            t->inH[n++] = m + 8 * a->nin[q] + t->cur[q] * (size_t)hs;
            t->cur[q] += row_len(a, row);
        }
        beyond |= finish_row(a, t, ps->sum, row, n, hs, ps->g + (a->first[rank] + k) * H);
    }
    t->beyond = beyond;
}

static void run_parts(Pool *pool, void (*fn)(void *, int, int), void *ctx) {
    if (pool)
        pool_for(pool, fn, ctx);
    else
        fn(ctx, 0, 1);
}

int allreduce_run(Allreduce *a, Pool *pool, const GradSum *sum, int hs, int rank, double *g, int64_t *sent, char *err,
    size_t errlen) {
    const int R = a->ranks, parts = pool ? pool_threads(pool) : 1;
    const size_t H = a->H;
    const MPI_Comm W = MPI_COMM_WORLD;
    if (parts_alloc(a, parts)) {
        snprintf(err, errlen, "out of memory (the all-reduce's scratch)");
        return -1;
    }
    // step 1's messages: to each owner, this rank's values of the owner's rows it touched; from
    // each rank, its values of this rank's rows it touched; every message has its header
    size_t soff = 0, roff = 0;
    a->nout_rows = 0;
    for (int q = 0; q < R; q++) {
        size_t ns = 0, nr = 0;
        a->nin[q] = a->nout[q] = 0;
        if (q != rank) {
            for (size_t k = 0, m = owned(a, q); k < m; k++) {
                const size_t row = owned_row(a, q, k);
                if (!touched(a, rank, row)) continue;
                a->out[a->nout_rows++] = (struct AllreduceOut){ (uint16_t)row, q, ns };
                ns += row_len(a, row);
            }
            for (size_t k = 0, m = owned(a, rank); k < m; k++) {
                const size_t row = owned_row(a, rank, k);
                if (touched(a, q, row)) nr += row_len(a, row);
            }
            a->nout[q] = ns; // entries
            a->nin[q] = nr;
            ns = msg_bytes(ns, hs); // bytes
            nr = msg_bytes(nr, hs);
        }
        if (ns > INT32_MAX || nr > INT32_MAX || soff + ns > a->send_cap) {
            snprintf(err, errlen, "internal error: an all-reduce message of %zu bytes", ns > nr ? ns : nr);
            return -1;
        }
        a->scount[q] = (int)ns;
        a->sdispl[q] = (int)soff;
        soff += ns;
        a->rcount[q] = (int)nr;
        a->rdispl[q] = (int)roff;
        roff += nr;
        size_t gbytes = ((a->first[q + 1] - a->first[q]) * H + (q == R - 1 ? a->L : 0)) * 8;
        a->gcount[q] = (int)gbytes;
        a->gdispl[q] = (int)(a->first[q] * H * 8);
    }
    if (roff > INT32_MAX) {
        snprintf(err, errlen, "internal error: %zu bytes to receive in the all-reduce", roff);
        return -1;
    }
    if (roff > a->recv_cap) { // grows with this rank's share of rows several ranks touched
        free(a->recv);
        a->recv_cap = 0;
        a->recv = malloc(roff + roff / 4);
        if (!a->recv) {
            snprintf(err, errlen, "out of memory (%zu bytes for the all-reduce)", roff);
            return -1;
        }
        a->recv_cap = roff + roff / 4;
    }
    double t = clock_now_s();
    Pass ps = { a, sum, hs, rank, g };
    run_parts(pool, pack_part, &ps);
    int bad = 0;
    for (int p = 0; p < parts; p++) bad |= a->part[p].bad;
    uint64_t flags = bad ? FLAG_WIRE : 0;
    for (int q = 0; q < R; q++)
        if (q != rank) memcpy(a->send + a->sdispl[q], &flags, HEADER);
    lap(a, ALLREDUCE_PACK, &t);
    MPI_Alltoallv(a->send, a->scount, a->sdispl, MPI_BYTE, a->recv, a->rcount, a->rdispl, MPI_BYTE, W);
    lap(a, ALLREDUCE_STEP1, &t);
    int64_t total = 0;
    for (int q = 0; q < R; q++) total += a->scount[q];
    *sent = total;
    for (int q = 0; q < R; q++) {
        if (q == rank) continue;
        uint64_t f;
        memcpy(&f, a->recv + a->rdispl[q], HEADER);
        flags |= f;
    }
    if (flags & FLAG_WIRE) { // every rank has every header: all of them stop here
        if (hs < 8) return ALLREDUCE_WIDER;
        snprintf(
            err, errlen, "internal error: a gradient sum exceeded the transport's range (%d-byte entries)", 8 + hs);
        return -1;
    }
    run_parts(pool, finish_part, &ps);
    int beyond = 0;
    for (int p = 0; p < parts; p++) beyond |= a->part[p].beyond;
    lap(a, ALLREDUCE_FINISH, &t);
    // step 2: every block to every rank; beside it, whether some total went past 2^31
    uint8_t flag = beyond ? FLAG_RANGE : 0;
    MPI_Request req[2];
    MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, a->gcount, a->gdispl, MPI_BYTE, W, &req[0]);
    MPI_Iallreduce(MPI_IN_PLACE, &flag, 1, MPI_UNSIGNED_CHAR, MPI_BOR, W, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    lap(a, ALLREDUCE_STEP2, &t);
    *sent += (int64_t)(allreduce_entries(a) * 8 * (size_t)(R - 1) / (size_t)R);
    if (flag & FLAG_RANGE) {
        snprintf(
            err, errlen, "the batch's sum of a gradient entry is beyond 2^31 (training diverged; try a smaller --lr)");
        return -1;
    }
    return 0;
}
