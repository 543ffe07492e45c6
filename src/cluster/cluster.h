// cluster.h: the MPI transport. `mpirun -np N pongrl train ...` runs one process per rank;
// rank 0 is the learner (decides when to stop, logs, metrics, checkpoints) and every rank,
// rank 0 included, plays episodes with its own worker threads. Per iteration:
//   run counters + stop flag: rank 0 -> all (and, once per run, its weights and cache)
//   episode indices: handed out by rank 0's main thread, a few at a time, as ranks free up
//   each rank's record, the rows it touched and its weights digest: all -> all (MPI_Iallgather);
//     the episodes' stats: summed to all (MPI_Iallreduce); the two are the end-of-play barrier
//   gradient sum: all -> all, an exact all-reduce of integer sums over the rows some rank
//     touched (allreduce.h: each row summed by one rank that touched it, then gathered;
//     order-free), rounded to float64 once
//   RMSProp: every rank applies the same update to its own copy of the weights
// so the weights are bit-identical to one process with the same seed, whatever N. The seed's
// ray.put of the new weights becomes a reduction of the sum to every rank: one message of the
// size of the touched rows instead of a reduce and a broadcast.
//
// MPI is touched only from the main thread (MPI_THREAD_FUNNELED), and only when the process
// was started by a launcher (launch.h): a plain run starts no MPI at all. The files:
// cluster.c (this Comm), dispatch.c, identity.c, report.c (mpi_comm.h), allreduce.c, launch.c.
#ifndef PONGRL_CLUSTER_H
#define PONGRL_CLUSTER_H

#include <stdbool.h>
#include <stdio.h>

#include "../train/comm.h"
#include "../train/state.h"

// Start MPI, check that every rank runs the same binary with the same reproducibility-
// relevant configuration (env, batch, hidden, lr, gamma, decay, seed) as rank 0, and return
// the transport. st must outlive the Comm: its run counters are synced from rank 0 every
// iteration. threads: this rank's worker threads (for the share table). adopt (ranks > 0 of
// a resumed run): take rank 0's configuration instead of checking it, st is made afresh from
// it (rank 0 sends the weights and cache at the first iteration), so only rank 0 needs to
// read the run directory. On failure returns NULL with a message in err on every rank (rank
// 0's names the offending ranks and hosts); MPI is finalized then. Without MPI in the build
// it always fails with a message.
Comm *comm_mpi_create(TrainState *st, int threads, bool adopt, char *err, size_t errlen);

// Gather every rank's share (episodes played, busy thread-time, time in communication) and
// print the table on rank 0 to out; check that every rank ended with the same weights.
// Collective: every rank calls it. 0, or -1 on every rank when the weights differ (rank 0
// says which rank on stderr).
int comm_mpi_report(Comm *c, FILE *out);

// After a failure on this rank: end the whole job at once (MPI_Abort), as the others would
// wait for this rank forever.
void comm_mpi_abort(Comm *c) __attribute__((noreturn));

// Finalize MPI and free. Collective.
void comm_mpi_destroy(Comm *c);

// Time spent per phase on this rank since the Comm was made (seconds), for benchmarks.
typedef struct {
    int64_t iterations, episodes;
    double bcast_s;      // begin(): counters (once: weights and cache) out of rank 0 (its wait
                         // for rank 0 is in wait_s)
    double play_s;       // from source() to reduce(): this rank's workers playing
    double wait_s;       // waiting for the other ranks: to finish their episodes (reduce()), and
                         // for rank 0 to log and checkpoint (begin(), ranks > 0)
    double reduce_s;     // reduce(): the gradient sum to every rank (the all-reduce, the rounding of
                         // the sums to float64 included); the records ride on the end-of-play
                         // barrier, in wait_s
    double reduce_phase_s[4];   // of reduce_s: putting values in wire form, the first exchange,
                         // finishing this rank's rows, the second exchange (allreduce.h)
    double busy_s;       // thread-seconds spent in episodes
    int64_t rows;        // W1 rows (of 6400) in the gradient reductions, summed over iterations
    int64_t entries;     // entries in them (rows and W2), summed over iterations
    int64_t wire_bytes;  // bytes this rank sent in the all-reduce (its share of the gather's,
                         // allreduce.h), summed over iterations
    int64_t retries;     // all-reduces done again with wider entries (a sum did not fit)
} CommTimes;
void comm_mpi_times(const Comm *c, CommTimes *t);
void comm_mpi_reset_times(Comm *c);
// Iteration by iteration since the reset (the first COMM_SAMPLES): the time from one begin()
// to the next (iter_s), and the part of it in bcast and reduce (comm_s). Returns how many.
#define COMM_SAMPLES 4096
int comm_mpi_samples(const Comm *c, double *iter_s, double *comm_s, int max);

#endif
