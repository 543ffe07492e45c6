// report.c: what an MPI run tells about itself: each rank's timings (for bench cluster) and,
// at the end, the share table and the check that every rank ended with the same weights.
#ifdef HAVE_MPI // a build without MPI has only cluster.c's stubs

#include "mpi_comm.h"

#include <stdlib.h>
#include <string.h>

#include "../util/crc.h"
#include "../util/say.h"

void comm_mpi_times(const Comm *c, CommTimes *t) {
    const MpiComm *m = (const MpiComm *)c;
    *t = m->t;
    for (int p = 0; p < ALLREDUCE_PHASES; p++) t->reduce_phase_s[p] = m->ar.phase_s[p];
    t->episodes = atomic_load(&((MpiComm *)m)->played);
    t->busy_s = atomic_load(&((MpiComm *)m)->busy_ns) * 1e-9;
}

int comm_mpi_samples(const Comm *c, double *iter_s, double *comm_s, int max) {
    const MpiComm *m = (const MpiComm *)c;
    int n = m->nsamp < max ? m->nsamp : max;
    memcpy(iter_s, m->samp_iter, (size_t)n * sizeof(double));
    memcpy(comm_s, m->samp_comm, (size_t)n * sizeof(double));
    return n;
}

void comm_mpi_reset_times(Comm *c) {
    MpiComm *m = (MpiComm *)c;
    memset(&m->t, 0, sizeof(m->t));
    memset(m->ar.phase_s, 0, sizeof(m->ar.phase_s));
    m->nsamp = 0;
    m->last_begin = m->last_comm = 0;
    atomic_store(&m->played, 0);
    atomic_store(&m->busy_ns, 0);
}

typedef struct {
    int64_t threads, episodes, retries;
    double busy_s, comm_s, wait_s;
    uint32_t weights_crc;
    char host[HOST_MAX];
} Share;

int report_shares(MpiComm *m, const TrainState *s, FILE *out) {
    const Comm *c = &m->comm;
    CommTimes t;
    comm_mpi_times(c, &t);
    size_t wn;
    const double *w = train_state_weights(s, &wn);
    Share me = { m->threads, t.episodes, t.retries, t.busy_s, t.bcast_s + t.reduce_s, t.wait_s,
        crc32_of(w, wn * sizeof(double)), "" };
    snprintf(me.host, sizeof(me.host), "%s", m->host);
    Share *all = calloc((size_t)c->size, sizeof(Share));
    if (!all) mpi_die(c->rank, "out of memory"); // the others are already in the gather
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
    // every rank updated its own copy of the weights; they must have stayed the same bits
    int differ = -1;
    for (int r = 1; r < c->size && differ < 0; r++)
        if (all[r].weights_crc != all[0].weights_crc) differ = r;
    if (c->rank != 0) {
        free(all);
        return differ < 0 ? 0 : -1;
    }
    if (differ >= 0)
        say_error("rank %d on %s ended with other weights than rank 0 (crc32 %08lx, rank 0: %08lx):"
                  " its update was not the same computation (a different CPU or math library?)",
            differ, all[differ].host, (unsigned long)all[differ].weights_crc, (unsigned long)all[0].weights_crc);
    int64_t total = 0, threads = 0;
    for (int r = 0; r < c->size; r++) {
        total += all[r].episodes;
        threads += all[r].threads;
    }
    if (total) { // work handed out by Comm.source (pg's episodes)
        fprintf(out,
            "cluster: %d ranks, %lld worker threads; each rank's share (busy: thread-seconds in episodes;"
            " comm: the stop flag out, gradient sums exchanged; wait: idle for slower ranks)\n",
            c->size, (long long)threads);
        fprintf(out, "  %4s  %-20s %7s %9s %6s %9s %8s %8s\n", "rank", "host", "threads", "episodes", "share", "busy_s",
            "comm_s", "wait_s");
        for (int r = 0; r < c->size; r++)
            fprintf(out, "  %4d  %-20s %7lld %9lld %5.1f%% %9.2f %8.2f %8.2f\n", r, all[r].host,
                (long long)all[r].threads, (long long)all[r].episodes, 100.0 * all[r].episodes / total, all[r].busy_s,
                all[r].comm_s, all[r].wait_s);
    } else { // a learner that splits its work by rank itself (ppo: a range of the envs each)
        fprintf(out,
            "cluster: %d ranks, %lld worker threads (comm: the stop flag out, rollouts and gradient sums"
            " exchanged; wait: idle for slower ranks)\n",
            c->size, (long long)threads);
        fprintf(out, "  %4s  %-20s %7s %8s %8s\n", "rank", "host", "threads", "comm_s", "wait_s");
        for (int r = 0; r < c->size; r++)
            fprintf(out, "  %4d  %-20s %7lld %8.2f %8.2f\n", r, all[r].host, (long long)all[r].threads, all[r].comm_s,
                all[r].wait_s);
    }
    if (all[0].retries) // the same on every rank
        fprintf(out, "all-reduce: done again %lld time%s with wider entries (a gradient sum did not fit)\n",
            (long long)all[0].retries, all[0].retries == 1 ? "" : "s");
    if (differ < 0)
        fprintf(
            out, "weights: the same bits on all %d ranks (crc32 %08lx)\n", c->size, (unsigned long)all[0].weights_crc);
    fflush(out);
    free(all);
    return differ < 0 ? 0 : -1;
}

#endif
