// ring.c: the exact all-reduce of a batch's gradient sum (ring.h).
#include "ring.h"
#include "../util/mem.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_RING = 103 };

typedef __int128 i128;

typedef RingEntries Entries;

size_t ring_entries(const Entries *x) { return (x->nrows + 1) * x->H + x->nextra; }

// A run of entries contiguous both in a part of a chunk (from index k) and where this rank's
// values are: hi and lo (part of a row of the sum, or of the zero row for a row this rank did
// not touch), or at `off` in the extra values.
struct Seg {
    size_t k, len, off;
    bool extra;
    const int64_t *hi, *lo;
};

static size_t chunk_segments(const Entries *x, size_t a, size_t b, Seg *seg) {
    const size_t H = x->H, grid = (x->nrows + 1) * H;
    size_t ns = 0, e = a;
    while (e < b) {
        if (e < grid) {
            size_t r = e / H, j = e % H, n = H - j < b - e ? H - j : b - e;
            size_t row = r < x->nrows ? (size_t)x->rows[r] : x->D;
            if (row == x->D || x->own[row]) {
                size_t off = row * H + j;
                seg[ns++] = (Seg){ e - a, n, off, false, x->sum->hi + off, x->sum->lo + off };
            } else {
                seg[ns++] = (Seg){ e - a, n, 0, false, x->zeros, x->zeros };
            }
            e += n;
        } else {
            seg[ns++] = (Seg){ e - a, b - e, e - grid, true, NULL, NULL };
            e = b;
        }
    }
    return ns;
}

// On the wire an entry v is v mod 2^64 (n words), then floor(v / 2^64) (n int8, int16 or
// int64: hs bytes each): a rank's own value hi * 2^32 + lo split by gradsum_split.
static size_t wire_bytes(size_t n, int hs) { return n * (8 + (size_t)hs); }

size_t ring_wire_bytes(const Entries *x, int hs, int ranks) {
    const size_t E = ring_entries(x), N = (size_t)ranks;
    return (wire_bytes(E, hs) + 8 * E) * (N - 1) / N;       // reduce-scatter, all-gather
}

enum { TAG_GATHER = 104, TAG_FLAG = 105 };

// An extra value (an int64) in wire form.
static inline void extra_value(const Entries *x, const Seg *s, size_t t, int64_t *h, uint64_t *l) {
    int64_t v = x->extra[s->off + t];
    *l = (uint64_t)v;
    *h = v >> 63;
}

static inline int64_t wire_high(const uint8_t *in, size_t n, int hs, size_t k) {
    if (hs == 8) { int64_t h; memcpy(&h, in + 8 * n + 8 * k, 8); return h; }
    if (hs == 2) { int16_t h; memcpy(&h, in + 8 * n + 2 * k, 2); return h; }
    return (int8_t)in[8 * n + k];
}

static inline uint64_t wire_low(const uint8_t *in, size_t k) {
    uint64_t l;
    memcpy(&l, in + 8 * k, 8);
    return l;
}

// Writes entry k; returns false if it does not fit (a bug in the bound: never send it garbled).
static inline bool wire_set(uint8_t *out, size_t n, int hs, size_t k, int64_t h, uint64_t l) {
    memcpy(out + 8 * k, &l, 8);
    if (hs == 8) { memcpy(out + 8 * n + 8 * k, &h, 8); return true; }
    if (hs == 2) { int16_t h16 = (int16_t)h; memcpy(out + 8 * n + 2 * k, &h16, 2); return h16 == h; }
    int8_t h8 = (int8_t)h;
    out[8 * n + k] = (uint8_t)h8;
    return h8 == h;
}

// v = high * 2^64 + low to float64 with one rounding (as gradsum_to_double): a hardware
// conversion when v fits int64, which is when high is low's sign.
static inline double to_double(int64_t high, uint64_t low) {
    if (high == ((int64_t)low >> 63)) return (double)(int64_t)low * 0x1p-64;
    return (double)((i128)high * ((i128)1 << 64) + (i128)low) * 0x1p-64;
}

// The loops over a run of row entries, written so that they vectorise: own value (hi, lo) to
// wire form (h, l); plus what came in, to the wire again; plus what came in, final, to float64
// (to_double, with a scalar fix-up for the entries that do not fit int64, which also finds a
// sum of 2^31 or more: beyond what one process's sum holds, gradsum.h). One variant per size
// of the high part.

#define SEG_LOOPS(HT, NAME_PUT, NAME_ADD, NAME_FINAL)                                              \
    static int NAME_PUT(const int64_t *restrict hi, const int64_t *restrict lo, size_t len,        \
                        uint64_t *restrict L, HT *restrict Hh) {                                   \
        int bad = 0;                                                                               \
        for (size_t t = 0; t < len; t++) {                                                         \
            int64_t h; uint64_t l;                                                                 \
            gradsum_split(hi[t], lo[t], &h, &l);                                                   \
            L[t] = l; Hh[t] = (HT)h; bad |= h != (HT)h;                                            \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static int NAME_ADD(const int64_t *restrict hi, const int64_t *restrict lo, size_t len,        \
                        const uint64_t *restrict Lin, const HT *restrict Hin,                      \
                        uint64_t *restrict L, HT *restrict Hh) {                                   \
        int bad = 0;                                                                               \
        for (size_t t = 0; t < len; t++) {                                                         \
            int64_t h; uint64_t l;                                                                 \
            gradsum_split(hi[t], lo[t], &h, &l);                                                   \
            uint64_t l2 = l + Lin[t];                                                              \
            int64_t h2 = h + Hin[t] + (l2 < l);                                                    \
            L[t] = l2; Hh[t] = (HT)h2; bad |= h2 != (HT)h2;                                        \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static int NAME_FINAL(const int64_t *restrict hi, const int64_t *restrict lo, size_t len,       \
                          const uint64_t *restrict Lin, const HT *restrict Hin, double *restrict g) { \
        int big = 0;                                                                               \
        for (size_t t = 0; t < len; t++) {                                                         \
            int64_t h; uint64_t l;                                                                 \
            gradsum_split(hi[t], lo[t], &h, &l);                                                   \
            uint64_t l2 = l + Lin[t];                                                              \
            int64_t h2 = h + Hin[t] + (l2 < l);                                                    \
            g[t] = (double)(int64_t)l2 * 0x1p-64;                                                  \
            big |= h2 != ((int64_t)l2 >> 63);                                                      \
        }                                                                                          \
        int beyond = 0;                                                                            \
        for (size_t t = 0; big && t < len; t++) {                                                  \
            int64_t h; uint64_t l;                                                                 \
            gradsum_split(hi[t], lo[t], &h, &l);                                                   \
            uint64_t l2 = l + Lin[t];                                                              \
            int64_t h2 = h + Hin[t] + (l2 < l);                                                    \
            beyond |= h2 < -(INT64_C(1) << 31) || h2 >= (INT64_C(1) << 31);                        \
            g[t] = to_double(h2, l2);                                                              \
        }                                                                                          \
        return beyond;                                                                             \
    }

SEG_LOOPS(int8_t, put8, add8, final8)
SEG_LOOPS(int16_t, put16, add16, final16)
SEG_LOOPS(int64_t, put64, add64, final64)

// Typed views of a wire buffer of n entries.
typedef struct { uint64_t *L; void *H; } Wire;
static Wire wire_view(uint8_t *b, size_t n) { return (Wire){ (uint64_t *)(void *)b, b + 8 * n }; }

// This rank's values of a part to the wire.
static bool put_own(const Entries *x, const Seg *seg, size_t ns, size_t n, int hs, uint8_t *out) {
    int bad = 0;
    Wire w = wire_view(out, n);
    for (size_t i = 0; i < ns; i++) {
        const Seg *s = &seg[i];
        if (s->extra) {
            for (size_t t = 0; t < s->len; t++) {
                int64_t h; uint64_t l;
                extra_value(x, s, t, &h, &l);
                bad |= !wire_set(out, n, hs, s->k + t, h, l);
            }
            continue;
        }
        const int64_t *hi = s->hi, *lo = s->lo;
        if (hs == 8) bad |= put64(hi, lo, s->len, w.L + s->k, (int64_t *)w.H + s->k);
        else if (hs == 2) bad |= put16(hi, lo, s->len, w.L + s->k, (int16_t *)w.H + s->k);
        else bad |= put8(hi, lo, s->len, w.L + s->k, (int8_t *)w.H + s->k);
    }
    return !bad;
}

// What came in plus this rank's values, out to the wire again; or, on the last step of the
// reduce-scatter, final: into the part's place in g, rounded to float64 (the extra values as
// int64, which they fit). Returns 0, or FLAG_WIRE (a sum did not fit the wire's high part) or
// FLAG_RANGE (a final sum of 2^31 or more: a diverged run).
enum { FLAG_WIRE = 1, FLAG_RANGE = 2 };
static int add_own(const Entries *x, const Seg *seg, size_t ns, size_t n, int hs, uint8_t *in,
                   uint8_t *out, double *g) {
    int bad = 0, beyond = 0;
    Wire wi = wire_view(in, n), wo = wire_view(out, n);
    for (size_t i = 0; i < ns; i++) {
        const Seg *s = &seg[i];
        if (s->extra) {
            for (size_t t = 0; t < s->len; t++) {
                size_t k = s->k + t;
                int64_t h; uint64_t l;
                extra_value(x, s, t, &h, &l);
                uint64_t l2 = l + wire_low(in, k);
                h += wire_high(in, n, hs, k) + (l2 < l);
                if (g) memcpy(&g[k], &l2, 8);
                else bad |= !wire_set(out, n, hs, k, h, l2);
            }
            continue;
        }
        const int64_t *hi = s->hi, *lo = s->lo;
        const uint64_t *Lin = wi.L + s->k;
        uint64_t *L = wo.L + s->k;
        if (hs == 8) {
            const int64_t *Hin = (const int64_t *)wi.H + s->k;
            if (g) beyond |= final64(hi, lo, s->len, Lin, Hin, g + s->k);
            else bad |= add64(hi, lo, s->len, Lin, Hin, L, (int64_t *)wo.H + s->k);
        } else if (hs == 2) {
            const int16_t *Hin = (const int16_t *)wi.H + s->k;
            if (g) beyond |= final16(hi, lo, s->len, Lin, Hin, g + s->k);
            else bad |= add16(hi, lo, s->len, Lin, Hin, L, (int16_t *)wo.H + s->k);
        } else {
            const int8_t *Hin = (const int8_t *)wi.H + s->k;
            if (g) beyond |= final8(hi, lo, s->len, Lin, Hin, g + s->k);
            else bad |= add8(hi, lo, s->len, Lin, Hin, L, (int8_t *)wo.H + s->k);
        }
    }
    return (bad ? FLAG_WIRE : 0) | (beyond ? FLAG_RANGE : 0);
}

// The pipeline: each chunk goes round in RING_PARTS parts, each its own message, so that a
// part is added while the next ones are on the wire, and a rank a little behind holds its
// neighbour up by a part, not a whole chunk. In the reduce-scatter, part k of a message uses
// region k of three buffer sets: one its receive is posted into, one its last send may still
// be reading, and a free one (its send older still) for what the next step writes. In the
// all-gather the parts go from g to g: the result's layout is the order of the entries.
typedef struct {
    MPI_Request recv, send[3];
    int recv_set, send_set;
} Part;

static uint8_t *region(const RingBuffers *b, int set, int k) { return b->wire[set] + (size_t)k * b->stride; }

int ring_allreduce(const Entries *x, int hs, int r, int N, RingBuffers *b, double *g, char *err, size_t errlen) {
    const int right = (r + 1) % N, left = (r + N - 1) % N, cap = (int)b->stride;
    const size_t E = ring_entries(x);
    // part k of chunk c: entries [PART_A(c, k), PART_A(c, k + 1))
#define CHUNK_A(c) (E * (size_t)(c) / (size_t)N)
#define PART_A(c, k) (CHUNK_A(c) + (CHUNK_A((c) + 1) - CHUNK_A(c)) * (size_t)(k) / RING_PARTS)
#define PART_N(c, k) (PART_A(c, (k) + 1) - PART_A(c, k))
    const MPI_Comm W = MPI_COMM_WORLD;
    Seg *seg = b->segs;
    Part p[RING_PARTS];
    MPI_Request *gather = b->reqs, *gsend = gather + (size_t)(N - 1) * RING_PARTS,
                *fsend = gsend + (size_t)(N - 1) * RING_PARTS;
    int bad = 0;
    // Every receive is posted before its message can come: the reduce-scatter's first step
    // into the regions, the whole all-gather straight into g (a tag of its own keeps the two
    // streams apart; each keeps its order). Chunk (r + 1) % N ends up finished here, so step
    // s of the all-gather brings chunk (r - s) % N.
    for (int k = 0; k < RING_PARTS; k++) {
        p[k] = (Part){ MPI_REQUEST_NULL, { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL }, 1, 0 };
        MPI_Irecv(region(b, 1, k), cap, MPI_BYTE, left, TAG_RING, W, &p[k].recv);
    }
    for (int s = 0; s < N - 1; s++) {
        const int in = (r + N - s) % N;
        for (int k = 0; k < RING_PARTS; k++)
            MPI_Irecv(g + PART_A(in, k), (int)(8 * PART_N(in, k)), MPI_BYTE, left, TAG_GATHER, W,
                      &gather[(size_t)s * RING_PARTS + k]);
    }
    // this rank's own chunk r goes out part by part as it is put in wire form
    for (int k = 0; k < RING_PARTS; k++) {
        size_t a = PART_A(r, k), n = PART_N(r, k);
        size_t ns = chunk_segments(x, a, a + n, seg);
        bad |= put_own(x, seg, ns, n, hs, region(b, 0, k)) ? 0 : FLAG_WIRE;
        MPI_Isend(region(b, 0, k), (int)wire_bytes(n, hs), MPI_BYTE, right, TAG_RING, W, &p[k].send[0]);
    }
    // reduce-scatter: what comes in plus this rank's values goes on; the last step's result
    // is final, goes to g and out again as the all-gather's first step
    for (int s = 0; s < N - 1; s++) {
        const int in = (r + N - s - 1) % N;
        const bool final = s == N - 2;
        for (int k = 0; k < RING_PARTS; k++) {
            Part *q = &p[k];
            const int out = 3 - q->recv_set - q->send_set;
            size_t a = PART_A(in, k), n = PART_N(in, k);
            MPI_Wait(&q->recv, MPI_STATUS_IGNORE);
            size_t ns = chunk_segments(x, a, a + n, seg);
            uint8_t *R = region(b, q->recv_set, k);
            if (final) {
                bad |= add_own(x, seg, ns, n, hs, R, NULL, g + a);
                MPI_Isend(g + a, (int)(8 * n), MPI_BYTE, right, TAG_GATHER, W, &gsend[k]);
                continue;
            }
            MPI_Wait(&q->send[out], MPI_STATUS_IGNORE);
            bad |= add_own(x, seg, ns, n, hs, R, region(b, out, k), NULL);
            MPI_Irecv(R, cap, MPI_BYTE, left, TAG_RING, W, &q->recv);
            MPI_Isend(region(b, out, k), (int)wire_bytes(n, hs), MPI_BYTE, right, TAG_RING, W, &q->send[out]);
            q->send_set = out;
        }
    }
    // all-gather: each part that comes in goes on from where it landed, but the last step's.
    // A byte goes round beside it: the OR of the flags (FLAG_WIRE, FLAG_RANGE) seen so far,
    // which after N-1 hops covers every rank, so all of them stop together, or none.
    uint8_t *flag = b->flags, any = (uint8_t)bad;
    for (int s = 0; s < N - 1; s++) {
        const int in = (r + N - s) % N;
        flag[2 * s] = any;
        MPI_Isend(&flag[2 * s], 1, MPI_BYTE, right, TAG_FLAG, W, &fsend[s]);
        for (int k = 0; k < RING_PARTS; k++) {
            MPI_Wait(&gather[(size_t)s * RING_PARTS + k], MPI_STATUS_IGNORE);
            if (s < N - 2)
                MPI_Isend(g + PART_A(in, k), (int)(8 * PART_N(in, k)), MPI_BYTE, right, TAG_GATHER, W,
                          &gsend[(size_t)(s + 1) * RING_PARTS + k]);
        }
        MPI_Recv(&flag[2 * s + 1], 1, MPI_BYTE, left, TAG_FLAG, W, MPI_STATUS_IGNORE);
        any |= flag[2 * s + 1];
    }
    for (int k = 0; k < RING_PARTS; k++) MPI_Waitall(3, p[k].send, MPI_STATUSES_IGNORE);
    MPI_Waitall((N - 1) * (RING_PARTS + 1), gsend, MPI_STATUSES_IGNORE);   // and the flags
#undef CHUNK_A
#undef PART_A
#undef PART_N
    if (any & FLAG_WIRE) {                      // (8-byte high parts hold any sum)
        if (hs < 8) return RING_WIDER;
        snprintf(err, errlen, "internal error: a gradient sum exceeded the transport's range (%d-byte entries)", 8 + hs);
        return -1;
    }
    if (any & FLAG_RANGE) {
        snprintf(err, errlen, "the batch's sum of a gradient entry is beyond 2^31 (training diverged; try a smaller --lr)");
        return -1;
    }
    return 0;
}

int ring_buffers_alloc(RingBuffers *b, size_t D, size_t H, size_t nextra, int ranks) {
    // a part of the largest chunk in the largest form (8 + 8 bytes an entry)
    const size_t part = ((D + 1) * H + nextra) / (size_t)ranks / RING_PARTS + 2;
    b->stride = (16 * part + 63) / 64 * 64;
    for (int i = 0; i < 3; i++)               // zeroed now (pages touched before the first
        b->wire[i] = big_calloc(RING_PARTS, b->stride);   // iteration), on huge pages
    b->segs = calloc(D + 3, sizeof(Seg));
    const size_t nreq = (size_t)ranks * (2 * RING_PARTS + 1);
    b->reqs = calloc(nreq, sizeof(MPI_Request));
    b->flags = calloc(2 * (size_t)ranks, 1);
    if (!b->wire[0] || !b->wire[1] || !b->wire[2] || !b->segs || !b->reqs || !b->flags) {
        ring_buffers_free(b);
        return -1;
    }
    for (size_t i = 0; i < nreq; i++) b->reqs[i] = MPI_REQUEST_NULL;
    return 0;
}

void ring_buffers_free(RingBuffers *b) {
    for (int i = 0; i < 3; i++) { free(b->wire[i]); b->wire[i] = NULL; }
    free(b->segs); free(b->reqs); free(b->flags);
    b->segs = NULL;
    b->reqs = NULL;
    b->flags = NULL;
}
