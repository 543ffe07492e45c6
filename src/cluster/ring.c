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

// A run of entries contiguous both in a chunk (from index k) and where they live: at `off` in
// the sum and the gradient (part of a row, or W2), or at `off` in the extra values.
struct Seg {
    size_t k, len, off;
    bool extra;
};

static size_t chunk_segments(const Entries *x, size_t a, size_t b, Seg *seg) {
    const size_t H = x->H, grid = (x->nrows + 1) * H;
    size_t ns = 0, e = a;
    while (e < b) {
        if (e < grid) {
            size_t r = e / H, j = e % H, n = H - j < b - e ? H - j : b - e;
            size_t base = (r < x->nrows ? (size_t)x->rows[r] : x->D) * H;
            seg[ns++] = (Seg){ e - a, n, base + j, false };
            e += n;
        } else {
            seg[ns++] = (Seg){ e - a, b - e, e - grid, true };
            e = b;
        }
    }
    return ns;
}

// On the wire an entry v is v mod 2^64 (n words), then floor(v / 2^64) (n int8, int16 or
// int64: hs bytes each): a rank's own value hi * 2^32 + lo split by gradsum_split.
static size_t wire_bytes(size_t n, int hs) { return n * (8 + (size_t)hs); }

size_t ring_wire_bytes(const Entries *x, int hs) { return wire_bytes(ring_entries(x), hs); }

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

static inline void store(const Seg *s, size_t t, int64_t h, uint64_t l, double *g, int64_t *extra_out) {
    if (s->extra) extra_out[s->off + t] = (int64_t)l;          // small integers: v fits
    else g[s->off + t] = to_double(h, l);
}

// The loops over a run of row entries, written so that they vectorise: own value (hi, lo) to
// wire form (h, l), plus what came in, to_double with a scalar fix-up for the entries that do
// not fit int64. One variant per size of the high part.

#define SEG_LOOPS(HT, NAME_PUT, NAME_ADD, NAME_STORE)                                              \
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
    static void NAME_STORE(const uint64_t *restrict L, const HT *restrict Hh, size_t len,          \
                           double *restrict g) {                                                   \
        int big = 0;                                                                               \
        for (size_t t = 0; t < len; t++) {                                                         \
            g[t] = (double)(int64_t)L[t] * 0x1p-64;                                                \
            big |= (int64_t)Hh[t] != ((int64_t)L[t] >> 63);                                        \
        }                                                                                          \
        for (size_t t = 0; big && t < len; t++)                                                    \
            if ((int64_t)Hh[t] != ((int64_t)L[t] >> 63)) g[t] = to_double(Hh[t], L[t]);           \
    }

SEG_LOOPS(int8_t, put8, add8, store8)
SEG_LOOPS(int16_t, put16, add16, store16)
SEG_LOOPS(int64_t, put64, add64, store64)

// Typed views of a wire buffer of n entries.
typedef struct { uint64_t *L; void *H; } Wire;
static Wire wire_view(uint8_t *b, size_t n) { return (Wire){ (uint64_t *)(void *)b, b + 8 * n }; }

// This rank's values of a chunk to the wire.
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
        const int64_t *hi = x->sum->hi + s->off, *lo = x->sum->lo + s->off;
        if (hs == 8) bad |= put64(hi, lo, s->len, w.L + s->k, (int64_t *)w.H + s->k);
        else if (hs == 2) bad |= put16(hi, lo, s->len, w.L + s->k, (int16_t *)w.H + s->k);
        else bad |= put8(hi, lo, s->len, w.L + s->k, (int8_t *)w.H + s->k);
    }
    return !bad;
}

// What came in plus this rank's values, out to the wire again; on the last step of the
// reduce-scatter the result is final and is also stored.
static bool add_own(const Entries *x, const Seg *seg, size_t ns, size_t n, int hs, uint8_t *in,
                    uint8_t *out, bool final, double *g, int64_t *extra_out) {
    int bad = 0;
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
                bad |= !wire_set(out, n, hs, k, h, l2);
                if (final) store(s, t, h, l2, g, extra_out);
            }
            continue;
        }
        const int64_t *hi = x->sum->hi + s->off, *lo = x->sum->lo + s->off;
        uint64_t *L = wo.L + s->k;
        if (hs == 8) {
            int64_t *Hh = (int64_t *)wo.H + s->k;
            bad |= add64(hi, lo, s->len, wi.L + s->k, (const int64_t *)wi.H + s->k, L, Hh);
            if (final) store64(L, Hh, s->len, g + s->off);
        } else if (hs == 2) {
            int16_t *Hh = (int16_t *)wo.H + s->k;
            bad |= add16(hi, lo, s->len, wi.L + s->k, (const int16_t *)wi.H + s->k, L, Hh);
            if (final) store16(L, Hh, s->len, g + s->off);
        } else {
            int8_t *Hh = (int8_t *)wo.H + s->k;
            bad |= add8(hi, lo, s->len, wi.L + s->k, (const int8_t *)wi.H + s->k, L, Hh);
            if (final) store8(L, Hh, s->len, g + s->off);
        }
    }
    return !bad;
}

static void store_wire(const Seg *seg, size_t ns, uint8_t *in, size_t n, int hs, double *g,
                       int64_t *extra_out) {
    Wire w = wire_view(in, n);
    for (size_t i = 0; i < ns; i++) {
        const Seg *s = &seg[i];
        if (s->extra) {
            for (size_t t = 0; t < s->len; t++)
                store(s, t, wire_high(in, n, hs, s->k + t), wire_low(in, s->k + t), g, extra_out);
        } else if (hs == 8) {
            store64(w.L + s->k, (const int64_t *)w.H + s->k, s->len, g + s->off);
        } else if (hs == 2) {
            store16(w.L + s->k, (const int16_t *)w.H + s->k, s->len, g + s->off);
        } else {
            store8(w.L + s->k, (const int8_t *)w.H + s->k, s->len, g + s->off);
        }
    }
}

int ring_allreduce(const Entries *x, int hs, int r, int N, RingBuffers *b, double *g, int64_t *extra_out,
                   char *err, size_t errlen) {
    const int right = (r + 1) % N, left = (r + N - 1) % N;
    const size_t E = ring_entries(x);
#define CHUNK_A(c) (E * (size_t)(c) / (size_t)N)
#define CHUNK_N(c) (CHUNK_A((c) + 1) - CHUNK_A(c))
    uint8_t *sendb = b->wire[0], *recvb = b->wire[1];
    Seg *seg = b->segs;
    bool ok = true;
    // reduce-scatter: after N-1 steps this rank holds the whole sum of chunk (r + 1) % N
    int cur = r;
    size_t ns = chunk_segments(x, CHUNK_A(cur), CHUNK_A(cur + 1), seg);
    ok &= put_own(x, seg, ns, CHUNK_N(cur), hs, sendb);
    for (int s = 0; s < N - 1; s++) {
        int in = (r + N - s - 1) % N;
        MPI_Sendrecv(sendb, (int)wire_bytes(CHUNK_N(cur), hs), MPI_BYTE, right, TAG_RING,
                     recvb, (int)wire_bytes(CHUNK_N(in), hs), MPI_BYTE, left, TAG_RING,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ns = chunk_segments(x, CHUNK_A(in), CHUNK_A(in + 1), seg);
        ok &= add_own(x, seg, ns, CHUNK_N(in), hs, recvb, sendb, s == N - 2, g, extra_out);
        cur = in;
    }
    // all-gather: pass the finished chunks around the ring, unchanged
    for (int s = 0; s < N - 1; s++) {
        int in = (cur + N - s - 1) % N, out = (cur + N - s) % N;
        MPI_Sendrecv(sendb, (int)wire_bytes(CHUNK_N(out), hs), MPI_BYTE, right, TAG_RING,
                     recvb, (int)wire_bytes(CHUNK_N(in), hs), MPI_BYTE, left, TAG_RING,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ns = chunk_segments(x, CHUNK_A(in), CHUNK_A(in + 1), seg);
        store_wire(seg, ns, recvb, CHUNK_N(in), hs, g, extra_out);
        uint8_t *t = sendb; sendb = recvb; recvb = t;
    }
#undef CHUNK_A
#undef CHUNK_N
    // every rank checks the same sums, so all of them stop together, or none
    int bad = !ok;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        snprintf(err, errlen, "internal error: a gradient sum exceeded the transport's range (%d-byte entries)", 8 + hs);
        return -1;
    }
    return 0;
}

int ring_buffers_alloc(RingBuffers *b, size_t D, size_t H, size_t nextra, int ranks) {
    // the largest chunk, in the largest form (8 + 8 bytes an entry)
    const size_t chunk = ((D + 1) * H + nextra) / (size_t)ranks + 1;
    b->wire[0] = big_calloc(chunk, 16);       // zeroed now (pages touched before the first
    b->wire[1] = big_calloc(chunk, 16);       // iteration), on huge pages like the other big arrays
    b->segs = calloc(D + 3, sizeof(Seg));
    if (!b->wire[0] || !b->wire[1] || !b->segs) { ring_buffers_free(b); return -1; }
    return 0;
}

void ring_buffers_free(RingBuffers *b) {
    free(b->wire[0]); free(b->wire[1]); free(b->segs);
    b->wire[0] = b->wire[1] = NULL;
    b->segs = NULL;
}
