// cluster.h: the MPI transport, a Comm (train/comm.h) like the single process's: the CLI and
// the loop hold a Comm and never ask which. `mpirun -np N pongrl train ...` runs one process
// per rank; rank 0 is the learner's voice (decides when to stop, logs, metrics, checkpoints)
// and every rank, rank 0 included, plays episodes with its own worker threads. At the start
// the ranks agree on the run (identity.c). Per iteration (for pg; a learner calls reduce as
// often as it needs an exact sum):
//   stop flag: rank 0 -> all (and, once per run, its standing, weights and learner arrays)
//   episode indices: handed out by rank 0's main thread, a few at a time, as ranks free up
//   each rank's record, the rows it touched and its weights digest: all -> all (MPI_Iallgather);
//     the episodes' stats: summed to all (MPI_Iallreduce); the two are the end-of-play barrier
//   gradient sum: all -> all, an exact all-reduce of integer sums over the rows some rank
//     touched (allreduce.h: each row summed by one rank that touched it, then gathered;
//     order-free), rounded to float64 once
//   RMSProp: every rank applies the same update to its own copy of the weights, and counts
//     the same episodes
// so the weights are bit-identical to one process with the same seed, whatever N. Ray's
// ray.put of the new weights becomes a reduction of the sum to every rank: one message of the
// size of the touched rows instead of a reduce and a broadcast. For ppo, per iteration: the
// stop flag; each rank's rollout of its range of the envs to every rank (allgather:
// MPI_Iallgatherv); then per minibatch the same end-of-play records and exact all-reduce as
// pg's batch (of its rows of W1 and its dense tail: b1 and the heads), with the chunks' loss
// terms summed beside it.
//
// MPI is touched only from the main thread (MPI_THREAD_FUNNELED), and only when the process
// was started by a launcher (launch.h): a plain run starts no MPI at all. The files:
// cluster.c (this Comm), dispatch.c, identity.c, report.c (mpi_comm.h), allreduce.c, launch.c.
#ifndef PONGRL_CLUSTER_H
#define PONGRL_CLUSTER_H

#include <stdbool.h>
#include <stdio.h>

#include "../train/comm.h"

// The transport this process was started for (comm.h): MPI when a launcher started it
// (launch.h), else the single-process one. Under MPI it ties this rank's life to the
// launcher's (launch.h), so call it before anything is written. NULL with one line in err (MPI
// would not start, or this pongrl was built without it); no MPI is left running then.
Comm *cluster_comm_create(char *err, size_t errlen);

// Time spent per phase on this rank since the Comm was made (seconds), for benchmarks (an MPI
// Comm's only).
typedef struct {
    int64_t iterations, episodes;
    double bcast_s;  // begin(): the stop flag (once: the standing, weights, learner arrays) out of rank 0 (its wait
                     // for rank 0 is in wait_s); allgather(): the bytes (the wait for the sizes in wait_s)
    double play_s;   // from source() to reduce(): this rank's workers playing
    double wait_s;   // waiting for the other ranks: to finish their episodes (reduce()), and
                     // for rank 0 to log and checkpoint (begin(), ranks > 0)
    double reduce_s; // reduce(): the gradient sum to every rank (the all-reduce, the rounding of
                     // the sums to float64 included); the records ride on the end-of-play
                     // barrier, in wait_s
    double reduce_phase_s[4]; // of reduce_s: putting values in wire form, the first exchange,
                              // finishing this rank's rows, the second exchange (allreduce.h)
    double busy_s;            // thread-seconds spent in episodes
    int64_t rows;             // W1 rows (of 6400) in the gradient reductions, summed over iterations
    int64_t entries;          // entries in them (rows and W2), summed over iterations
    int64_t wire_bytes;       // bytes this rank sent in the all-reduce (its share of the gather's,
                              // allreduce.h), summed over iterations
    int64_t retries;          // all-reduces done again with wider entries (a sum did not fit)
} CommTimes;
void comm_mpi_times(const Comm *c, CommTimes *t);
void comm_mpi_reset_times(Comm *c);
// Iteration by iteration since the reset (the first COMM_SAMPLES): the time from one begin()
// to the next (iter_s), and the part of it in bcast and reduce (comm_s). Returns how many.
#define COMM_SAMPLES 4096
int comm_mpi_samples(const Comm *c, double *iter_s, double *comm_s, int max);

#endif
