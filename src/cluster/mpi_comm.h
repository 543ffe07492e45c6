// mpi_comm.h: the MPI transport's insides, shared by its files (not for the rest of pongrl).
// cluster.c is the Comm and calls the others; they call none of it back:
//   cluster.c   the Comm itself: start-up, the per-iteration exchange, failure, the end
//   dispatch.c  episode indices handed out by rank 0's main thread, a few at a time
//   identity.c  same binary, same run-defining configuration on every rank; adoption on resume
//   report.c    timings and the share table
#ifndef PONGRL_MPI_COMM_H
#define PONGRL_MPI_COMM_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "allreduce.h"
#include "cluster.h"
#include "test_hooks.h"
#include "wire_size.h"
#include "../util/say.h"

enum { TAG_REQUEST = 101, TAG_REPLY = 102 };
#define HOST_MAX 256
#define CFG_MAX  1024  // "name=value ..." of the run-defining settings (config.h)
#define PREFETCH 1     // indices a rank asks for beyond its idle threads: hides the round trip
#define NAP_NS   50000 // 50 us between polls while a rank only waits for others

// What rank 0 sends at the start of every iteration: the stop flag, and once, at the first
// iteration, where the run stands (the other ranks adopt it: a resumed run starts from rank
// 0's checkpoint alone), followed by the weights and the learner's arrays. From then on every
// rank counts what every rank played (the learner's sums), so the counters stay the same.
typedef struct {
    TrainCounters at;
    int64_t iteration; // rank 0's, for the episode requests' check (dispatch.c)
    int64_t stop;
    int64_t full; // 1: rank 0's standing, weights and learner arrays follow (once per run)
} Header;

typedef struct {
    Comm comm;   // first: the Comm * handed out is a MpiComm *
    int threads; // this rank's worker threads (agree)
    char host[HOST_MAX];
    // the current batch
    EpisodeSource src;
    int64_t iteration, first, end;
    atomic_llong next; // rank 0: the next index nobody has claimed
    // rank > 0: indices received from rank 0 and not yet taken by a thread
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t *queue;
    int qhead, qlen, qcap, waiting;
    bool done, outstanding;
    MPI_Request reply_req;
    int64_t reply[3]; // iteration, first index, count (0: the batch is all handed out)
    // rank 0: the reply in flight to each rank
    int64_t (*replies)[3];
    MPI_Request *reply_reqs;
    bool synced;         // the weights and learner arrays have been sent out once
    WireSize wire;       // the entries' high parts, 1, 2 or 8 bytes (wire_size.h)
    TestHooks hooks;     // fault injection, in the test build only (test_hooks.h)
    int64_t *rec, *recs; // this rank's record at the end of play (reduce), and every rank's
    size_t D, H, L;      // the gradient's shape, D rows of H then L: the buffers' (0: none yet)
    int64_t *x;          // (xcap,) reduce's integers and the stop requests, summed over the ranks
    int xcap;
    double *g; // (D H + L,) the packed result (Comm.reduce)
    // Comm.allgather's: each rank's size, counts and displacements (ranks,); the bytes
    int64_t *gsize64;
    size_t *gsize;
    int *gcount, *gdispl;
    uint8_t *gbuf;
    size_t gcap;
    Allreduce ar;
    // accounting
    atomic_llong played, busy_ns;
    CommTimes t;
    double t_source;
    double samp_iter[COMM_SAMPLES], samp_comm[COMM_SAMPLES], last_begin, last_comm;
    int nsamp;
} MpiComm;

// After a failure that leaves the other ranks waiting for this one: the message on stderr
// ("pongrl: rank R: msg"), then the whole job ends (MPI_Abort). A leaf that calls only MPI, so
// that every file of the transport may end the job without calling back into cluster.c.
__attribute__((noreturn)) static inline void mpi_die(int rank, const char *msg) {
    say_error("rank %d: %s", rank, msg);
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); // not reached
}

// dispatch.c: the batch's episode source on this rank (rank 0 serves the others' requests
// from its polls), and a wait that leaves the CPU to the ranks still playing.
EpisodeSource *dispatch_source(MpiComm *m, int64_t first, int count);
void dispatch_wait(MpiComm *m, MPI_Request *req); // m NULL: nothing to serve meanwhile

// identity.c: Comm.agree (collective, at start-up): rank 0's run-defining settings adopted
// where asked, the binary and the settings checked everywhere. 0, or -1 with one line in err.
int identity_agree(MpiComm *m, TrainConfig *cfg, bool adopt, char *err, size_t errlen);

// report.c: Comm.report (collective, at the end): the share table on rank 0's out, and the
// check that every rank ended with the same weights. 0, or -1 (said on stderr).
int report_shares(MpiComm *m, const TrainState *s, FILE *out);

#endif
