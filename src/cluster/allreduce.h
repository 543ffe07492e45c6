// allreduce.h: the exact all-reduce of a batch's gradient sum over MPI ranks.
//
// What is summed: a gradient of D rows of H entries, then a dense tail of L entries (pg: the
// 6,400 rows of W1, then W2, L = H; ppo: the input's rows of W1, then b1 and the heads): the
// rows some rank touched (pg: about 2,000-3,400 of 6,400) and the tail, as exact integers: each entry is hi * 2^32 + lo in units of 2^-64 (gradsum.h). Each rank adds the
// values as integers of up to 128 bits, so the result is exact and the same whatever the
// number of ranks and whoever played what; it is rounded to float64 once.
//
// Rows have owners. A rank's sum holds values only on the rows it touched, and a row touched
// by one rank alone is final there; the rows several ranks touched go to one of them. Every
// rank knows every rank's touched rows (they ride on the end-of-play barrier), so every rank
// draws up the same plan: a row's owner is one of the ranks that touched it (the only one if
// there is one; else the one with the fewest rows so far, which spreads the work), the tail
// goes to the last rank. Then two exchanges:
//   1. each rank sends its values of the rows it touched but does not own to their owners
//      (MPI_Alltoallv), and each owner adds what came in to its own values and rounds the
//      finished rows to float64, into its block of the result;
//   2. the blocks go to every rank (MPI_Allgatherv, 8 bytes an entry).
// The two passes (this rank's values into wire form; its rows finished) are shared out, by
// rows, to the rank's worker threads, idle at that point.
// A rank thus sends only values someone else needs: against a ring over all rows, nothing for
// a row only it touched, and nothing at all for the rows it owns in step 1. On the wire, step
// 1's entries are their low 64 bits and a high part of 1 byte (9 bytes instead of 16), which
// holds one rank's sum below 2^7 in magnitude, or of 2 bytes (below 2^15), or 8 (anything).
// A value too large for the high part is caught as it is narrowed, every rank learns it from
// step 1's message headers, and the call returns ALLREDUCE_WIDER on every rank before step
// 2; the caller (cluster.c) does it again wider (wire_size.h).
#ifndef PONGRL_ALLREDUCE_H
#define PONGRL_ALLREDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "../train/gradsum.h"
#include "../train/pool.h"

enum { ALLREDUCE_PACK, ALLREDUCE_STEP1, ALLREDUCE_FINISH, ALLREDUCE_STEP2, ALLREDUCE_PHASES };

typedef struct {
    int ranks;
    size_t D, H, L; // D rows of H, then the tail's L entries
    // the plan (allreduce_plan): the same on every rank
    const uint8_t *masks; // rank q touched W1 row i: bit i % 8 of masks[q * stride + i / 8]
    size_t stride;
    size_t nrows;    // W1 rows some rank touched
    uint16_t *order; // (D,) those rows, owner by owner, each owner's in ascending order
    size_t *first;   // (ranks + 1,) rank q owns order[first[q] .. first[q + 1]); the tail goes with the last rank
    // scratch and buffers
    int16_t *owner; // (D,)
    size_t *load;   // (ranks,)
    uint8_t *send, *recv;
    size_t send_cap, recv_cap;
    int *scount, *sdispl, *rcount, *rdispl, *gcount, *gdispl; // (ranks,) each, bytes
    size_t *nin, *nout;                                       // (ranks,) entries coming from, going to, each rank
    struct AllreduceOut *out; // (D + 1,) the rows (and the tail) this rank sends, where each goes
    size_t nout_rows;
    struct AllreducePart *part; // (nparts,) a thread's scratch in the passes
    int nparts;
    // seconds spent in each phase, summed over calls: putting values in wire form, step 1's
    // exchange, finishing this rank's rows, step 2's exchange (benchmarks; the caller clears it)
    double phase_s[ALLREDUCE_PHASES];
} Allreduce;

int allreduce_init(Allreduce *a, int ranks, size_t D, size_t H, size_t L); // 0 or -1 (out of memory)
void allreduce_free(Allreduce *a);

// Draw up the plan from every rank's touched rows (masks: `ranks` masks of D bits, `stride`
// bytes apart, alive until allreduce_run returns). The result's layout follows: row order[k]
// at entry k H, the tail at nrows H.
void allreduce_plan(Allreduce *a, const uint8_t *masks, size_t stride);

static inline size_t allreduce_entries(const Allreduce *a) { return a->nrows * a->H + a->L; }

// Sum this rank's (`rank`) values with everyone's, with high parts of hs bytes (1, 2 or 8:
// every rank must pass the same). sum holds this rank's values on the rows it touched, and the
// tail (D rows of H, then L); its other rows are not read. The passes over the rows are shared out
// to the pool's threads (pool_for; NULL: this thread alone). The result lands in g
// (allreduce_entries(a) float64s, each the exact sum rounded once). *sent is what this rank
// sent (bytes; the second exchange counted as its share, (ranks - 1) / ranks of the result).
// Collective; every rank returns the same: 0; ALLREDUCE_WIDER if a value did not fit hs bytes
// (do it again with more); or -1 with a message if a total is 2^31 or more (as one process
// refuses it: gradsum.h) or memory ran out.
#define ALLREDUCE_WIDER 1
int allreduce_run(
    Allreduce *a, Pool *pool, const GradSum *sum, int hs, int rank, double *g, int64_t *sent, char *err, size_t errlen);

#endif
