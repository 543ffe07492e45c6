// dispatch.c: who plays which episode of a batch. Rank 0's own threads take indices from an
// atomic counter; the other ranks' threads block in next() while their main thread asks rank
// 0 for a few at a time (guided self-scheduling), and rank 0's main thread answers between its
// polls. Also: each rank's busy thread-time, for the share table (report.c).
#ifdef HAVE_MPI // a build without MPI has only cluster.c's stubs

#include "mpi_comm.h"

#include <stdlib.h>
#include <time.h>

#include "../util/clock.h"

static void nap(void) {
    struct timespec ts = { 0, NAP_NS };
    nanosleep(&ts, NULL);
}

// Wait for a non-blocking operation without spinning a core: ranks that wait for others
// should leave the CPU to the ones still playing (several ranks often share a machine).
// Rank 0 keeps serving episode requests meanwhile.
static void serve(MpiComm *m);
void dispatch_wait(MpiComm *m, MPI_Request *req) {
    for (;;) {
        if (m && m->comm.rank == 0) serve(m);
        int flag = 0;
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        if (flag) return;
        nap();
    }
}

// ----------------------------------------------------------------------------
// busy time: each worker thread notes when it started its episode; the next call to next()
// ends it. Thread-local, because next() is all the transport sees of a worker.

static _Thread_local double tl_started = -1;

static void busy_stop(MpiComm *m) {
    if (tl_started >= 0) atomic_fetch_add(&m->busy_ns, (long long)((clock_now_s() - tl_started) * 1e9));
    tl_started = -1;
}

static int64_t busy_start(MpiComm *m, int64_t k) {
    if (k >= 0) {
        tl_started = clock_now_s();
        atomic_fetch_add(&m->played, 1);
    }
    return k;
}

// ----------------------------------------------------------------------------
// rank 0: its own threads take indices from the counter; other ranks ask its main thread

// Guided self-scheduling: a rank gets what its idle threads want, but no more than a share of
// what is left, so the end of the batch goes out one episode at a time and a slow host
// holds at most its own last episodes.
static void claim(MpiComm *m, int64_t want, int64_t *k, int64_t *n) {
    int64_t left = m->end - atomic_load(&m->next);
    int64_t cap = left / (2 * m->comm.size);
    if (cap < 1) cap = 1;
    if (want > cap) want = cap;
    if (want < 1) want = 1;
    *k = atomic_fetch_add(&m->next, want);
    *n = *k >= m->end ? 0 : (*k + want <= m->end ? want : m->end - *k);
}

static void serve(MpiComm *m) {
    for (;;) {
        int flag = 0;
        MPI_Status s;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &flag, &s);
        if (!flag) return;
        int64_t req[2];
        int r = s.MPI_SOURCE;
        MPI_Recv(req, 2, MPI_INT64_T, r, TAG_REQUEST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (req[0] != m->iteration) {
            char msg[160];
            snprintf(msg, sizeof(msg),
                "rank %d asked for episodes of iteration %lld during iteration %lld "
                "(protocol error)",
                r, (long long)req[0], (long long)m->iteration);
            mpi_die(m->comm.rank, msg);
        }
        MPI_Wait(&m->reply_reqs[r], MPI_STATUS_IGNORE); // the buffer of its previous reply
        int64_t k, n;
        claim(m, req[1], &k, &n);
        m->replies[r][0] = m->iteration;
        m->replies[r][1] = k;
        m->replies[r][2] = n;
        MPI_Isend(m->replies[r], 3, MPI_INT64_T, r, TAG_REPLY, MPI_COMM_WORLD, &m->reply_reqs[r]);
    }
}

static int64_t next_root(EpisodeSource *src) {
    MpiComm *m = src->ctx;
    busy_stop(m);
    long long k = atomic_fetch_add(&m->next, 1);
    return busy_start(m, k < m->end ? k : -1);
}

static void poll_root(EpisodeSource *src) { serve(src->ctx); }

// ----------------------------------------------------------------------------
// ranks > 0: threads block in next() until the main thread's poll() brings indices

static int64_t next_remote(EpisodeSource *src) {
    MpiComm *m = src->ctx;
    busy_stop(m);
    pthread_mutex_lock(&m->mu);
    m->waiting++;
    while (m->qlen == 0 && !m->done) pthread_cond_wait(&m->cv, &m->mu);
    m->waiting--;
    int64_t k = -1;
    if (m->qlen > 0) {
        k = m->queue[m->qhead];
        m->qhead = (m->qhead + 1) % m->qcap;
        m->qlen--;
    }
    pthread_mutex_unlock(&m->mu);
    return busy_start(m, k);
}

static void poll_remote(EpisodeSource *src) {
    MpiComm *m = src->ctx;
    if (m->outstanding) {
        int flag = 0;
        MPI_Test(&m->reply_req, &flag, MPI_STATUS_IGNORE);
        if (!flag) return;
        pthread_mutex_lock(&m->mu);
        m->outstanding = false;
        if (m->reply[2] == 0) m->done = true;
        for (int64_t i = 0; i < m->reply[2]; i++) {
            m->queue[(m->qhead + m->qlen) % m->qcap] = m->reply[1] + i;
            m->qlen++;
        }
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
    }
    if (m->done) return;
    pthread_mutex_lock(&m->mu);
    int want = m->waiting + PREFETCH - m->qlen;
    if (want > m->qcap - m->qlen) want = m->qcap - m->qlen;
    pthread_mutex_unlock(&m->mu);
    if (want <= 0) return;
    // one request in flight at a time; rank 0 answers every request, with 0 once all are out
    int64_t req[2] = { m->iteration, want };
    MPI_Irecv(m->reply, 3, MPI_INT64_T, 0, TAG_REPLY, MPI_COMM_WORLD, &m->reply_req);
    MPI_Send(req, 2, MPI_INT64_T, 0, TAG_REQUEST, MPI_COMM_WORLD);
    m->outstanding = true;
}

EpisodeSource *dispatch_source(MpiComm *m, int64_t first, int count) {
    Comm *c = &m->comm;
    m->first = first;
    m->end = first + count;
    atomic_store(&m->next, first);
    m->qhead = m->qlen = m->waiting = 0;
    m->done = m->outstanding = false;
    if (c->rank == 0)
        m->src = (EpisodeSource){ next_root, poll_root, m };
    else
        m->src = (EpisodeSource){ next_remote, poll_remote, m };
    m->t_source = clock_now_s();
    return &m->src;
}

#endif
