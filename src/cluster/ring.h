// ring.h: the exact all-reduce of a batch's gradient sum over MPI ranks.
//
// What is summed: the union of the W1 rows some rank touched (about 2,000-3,400 of 6,400),
// W2, every episode's stats and each rank's weights digest, as exact integers: each gradient
// entry is hi * 2^32 + lo in units of 2^-64 (gradsum.h), up to about 70 bits. A ring
// (reduce-scatter, then all-gather; bandwidth-optimal: each rank sends 2 (N-1)/N of the data
// whatever N) moves them in chunks, and each rank adds what it receives to its own values as
// integers of up to 128 bits, so the result is exact and the same whatever N and whoever
// played what.
// On the wire an entry is its low 64 bits and a high part of 1 byte (9 bytes instead of 16),
// which holds every partial sum below 2^71 in magnitude; iterations with larger sums (many
// ranks, large gradients) use 2 bytes (below 2^79), and a diverging run 8
// (PONGRL_WIRE_HIGH=2 or 8 forces at least that size, for tests).
//
// The reduce-scatter reads each rank's values straight from its sum and adds them to what
// comes in; the last step also converts its chunk to float64; the all-gather converts what
// comes in. Every pass is a streaming loop over rows: the whole exchange costs about three
// passes over the touched rows and 2 (N-1)/N x 9 bytes an entry on the wire. The caller
// (cluster.c) picks the size of the high parts from a bound every rank reports.
#ifndef PONGRL_RING_H
#define PONGRL_RING_H

#include <stddef.h>
#include <stdint.h>

#include "../train/gradsum.h"

// a high part of 1 or 2 bytes holds partial sums of magnitude below 2^71 or 2^79
#define RING_BITS_1 71
#define RING_BITS_2 79

// The entries in order: the H entries of each row in rows[0..nrows) (rows of W1 in sum, which
// holds D rows of H and then W2), W2's H, then `nextra` int64 values (stats, digests).
typedef struct {
    const GradSum *sum;
    const uint16_t *rows;
    size_t nrows, H, D, nextra;
    const int64_t *extra;
} RingEntries;

size_t ring_entries(const RingEntries *x);
size_t ring_wire_bytes(const RingEntries *x, int hs);      // this rank's data on the wire

typedef struct Seg Seg;
typedef struct {
    uint8_t *wire[2];         // one chunk on the wire, out and in
    Seg *segs;                // (D + 3,) a chunk's runs of contiguous entries
} RingBuffers;
int ring_buffers_alloc(RingBuffers *b, size_t D, size_t H, size_t nextra, int ranks);  // 0 or -1
void ring_buffers_free(RingBuffers *b);

// Sum the entries over the `ranks` ranks of MPI_COMM_WORLD (this one is `rank`), with high
// parts of hs bytes (1, 2 or 8: every rank must pass the same, large enough for every partial
// sum). The sums land in g (float64, at the rows' and W2's positions, once rounded) and in
// extra_out (int64). Collective. 0, or -1 with a message if a sum did not fit hs.
int ring_allreduce(const RingEntries *x, int hs, int rank, int ranks, RingBuffers *b, double *g,
                   int64_t *extra_out, char *err, size_t errlen);

#endif
