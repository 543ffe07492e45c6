// ring.h: the exact all-reduce of a batch's gradient sum over MPI ranks.
//
// What is summed: the union of the W1 rows some rank touched (about 2,000-3,400 of 6,400),
// W2, every episode's stats and each rank's weights digest, as exact integers: each gradient
// entry is hi * 2^32 + lo in units of 2^-64 (gradsum.h), up to about 70 bits. A ring
// (reduce-scatter, then all-gather; bandwidth-optimal: each rank sends 2 (N-1)/N of the
// entries whatever N) moves them in chunks, and each rank adds what it receives to its own
// values as integers of up to 128 bits, so the result is exact and the same whatever N and
// whoever played what. A rank's values on a row it did not touch are zeros.
// In the reduce-scatter an entry on the wire is its low 64 bits and a high part of 1 byte (9
// bytes instead of 16), which holds every partial sum below 2^71 in magnitude, or of 2 bytes
// (below 2^79), or 8 (anything). Each value is checked as it is narrowed: a sum that does not
// fit makes the whole all-reduce report RING_WIDER on every rank, and the caller (cluster.c)
// does it again with wider high parts. No pass is spent bounding the sums beforehand.
//
// The reduce-scatter reads each rank's values straight from its sum and adds them to what
// comes in; its last step rounds the finished chunk to float64, into the result, which is
// laid out in the order of the entries. The all-gather then moves float64s (8 bytes: every
// rank would round the exact sum the same way) from result to result, with no pass of its
// own. Each chunk travels in RING_PARTS messages, so that adding and sending overlap. In all,
// two streaming passes over the touched rows, and (N-1)/N x (9 + 8) bytes an entry sent by
// each rank.
#ifndef PONGRL_RING_H
#define PONGRL_RING_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "../train/gradsum.h"

// The entries in order: the H entries of each row in rows[0..nrows) (rows of W1 in sum, which
// holds D rows of H and then W2), W2's H, then `nextra` int64 values (stats, digests). This
// rank's values of a row are in sum where own[row] is set, else zero (zeros: H of them).
typedef struct {
    const GradSum *sum;
    const uint16_t *rows;
    size_t nrows, H, D, nextra;
    const int64_t *extra;
    const uint8_t *own;
    const int64_t *zeros;
} RingEntries;

size_t ring_entries(const RingEntries *x);
size_t ring_wire_bytes(const RingEntries *x, int hs, int ranks);    // what a rank sends in all

#define RING_PARTS 4          // messages a chunk is cut into, so that adding and sending overlap

typedef struct Seg Seg;
typedef struct {
    uint8_t *wire[3];         // three sets of RING_PARTS regions of `stride` bytes: a part in, out, free
    size_t stride;
    Seg *segs;                // (D + 3,) a part's runs of contiguous entries
    MPI_Request *reqs;        // (ranks x (2 RING_PARTS + 1),) the all-gather's receives and sends, the flags' sends
    uint8_t *flags;           // (2 ranks,) the overflow flags going round
} RingBuffers;
int ring_buffers_alloc(RingBuffers *b, size_t D, size_t H, size_t nextra, int ranks);  // 0 or -1
void ring_buffers_free(RingBuffers *b);

// Sum the entries over the `ranks` ranks of MPI_COMM_WORLD (this one is `rank`), with high
// parts of hs bytes (1, 2 or 8: every rank must pass the same). The sums land in g
// (ring_entries(x) slots of 8 bytes, in the order of the entries): the rows' and W2's as
// float64, once rounded, then the extra values as int64. Collective; every rank returns the
// same: 0; RING_WIDER if a partial sum did not fit hs bytes (g is then garbage: do it again
// with more); or -1 with a message if a sum is 2^31 or more (as one process refuses it:
// gradsum.h).
#define RING_WIDER 1
int ring_allreduce(const RingEntries *x, int hs, int rank, int ranks, RingBuffers *b, double *g,
                   char *err, size_t errlen);

#endif
