// cluster.c: the MPI transport's Comm (see cluster.h): start-up, the per-iteration exchange
// (the stop flag out of rank 0, the end-of-play records, the exact all-reduce of the gradient sum),
// and the end. One process per rank, worker threads in each; who plays which episode is
// dispatch.c's, the start-up checks identity.c's, timings and the share table report.c's.
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

#include "launch.h"

#ifndef HAVE_MPI

// ----------------------------------------------------------------------------
// a build without MPI: say so instead of running N unconnected copies

Comm *cluster_comm_create(char *err, size_t errlen) {
    if (!cluster_launched()) {
        Comm *c = comm_local_create();
        if (!c) snprintf(err, errlen, "out of memory");
        return c;
    }
    snprintf(err, errlen,
        "started by an MPI launcher, but this pongrl was built without MPI "
        "(install libopenmpi-dev, then make)");
    return NULL;
}
void comm_mpi_times(const Comm *c, CommTimes *t) {
    (void)c;
    memset(t, 0, sizeof(*t));
}
int comm_mpi_samples(const Comm *c, double *iter_s, double *comm_s, int max) {
    (void)c;
    (void)iter_s;
    (void)comm_s;
    (void)max;
    return 0;
}
void comm_mpi_reset_times(Comm *c) { (void)c; }

#else

#include "../train/train.h"
#include "../util/clock.h"
#include "../util/mem.h"
#include "mpi_comm.h"

// ----------------------------------------------------------------------------
// the Comm

static int buffers_for(MpiComm *m, size_t D, size_t H, size_t L);

static int mpi_begin(Comm *c, TrainState *st, bool *stop) {
    MpiComm *m = (MpiComm *)c;
    double t0 = clock_now_s(), comm_s = m->t.bcast_s + m->t.reduce_s;
    if (m->last_begin > 0 && m->nsamp < COMM_SAMPLES) {
        m->samp_iter[m->nsamp] = t0 - m->last_begin;
        m->samp_comm[m->nsamp++] = comm_s - m->last_comm;
    }
    m->last_begin = t0;
    m->last_comm = comm_s;
    Header h = { 0 };
    if (c->rank == 0) h = (Header){ train_state_counters(st), st->iteration, *stop, !m->synced };
    MPI_Request req;
    MPI_Ibcast(&h, (int)sizeof(h), MPI_BYTE, 0, MPI_COMM_WORLD, &req);
    dispatch_wait(NULL, &req); // ranks > 0 wait here while rank 0 logs and checkpoints
    double t1 = clock_now_s();
    m->t.wait_s += t1 - t0;
    *stop = h.stop != 0;
    m->iteration = h.iteration;
    // A run that stops before its first iteration (a finished run resumed, a stop asked at once)
    // still takes rank 0's state: every rank ends with rank 0's weights, which the end compares.
    if (c->size == 1 || (h.stop && !h.full)) return 0;
    if (h.full) {
        // Once per run: rank 0's standing and learner state, its network among its arrays (a
        // fresh run's are the same everywhere, a resumed one's are rank 0's checkpoint). From
        // then on every rank applies the same update to the same sums, so only those travel.
        if (c->rank == 0)
            train_state_settle(st);
        else
            train_state_adopt(st, &h.at);
        LearnerArray a[LEARNER_ARRAYS_MAX];
        int na = train_state_arrays(st, a);
        for (int i = 0; i < na; i++) MPI_Bcast(a[i].data, (int)a[i].n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        m->synced = true;
    }
    m->t.bcast_s += clock_now_s() - t1;
    return 0;
}

// who plays which episode: dispatch.c
static EpisodeSource *mpi_source(Comm *c, int64_t first, int count) {
    return dispatch_source((MpiComm *)c, first, count);
}

static int mpi_reduce(Comm *c, Pool *pool, const GradSum *sum, RowSet *rows, size_t H, int64_t *x, int nx,
    uint64_t digest, const double **g, char *err, size_t errlen) {
    MpiComm *m = (MpiComm *)c;
    double t0 = clock_now_s();
    if (m->t_source > 0) { // the first sum since the work was handed out
        m->t.play_s += t0 - m->t_source;
        m->t.iterations++;
        m->t_source = 0;
    }
    if (c->size == 1) { // the sums are all here already
        *g = NULL;
        return 0;
    }
    const size_t D = (size_t)rows->D;
    if (H < 1 || sum->n < D * H) {
        snprintf(err, errlen, "internal error: a sum of %zu entries is not %zu rows of %zu", sum->n, D, H);
        return -1;
    }
    if (buffers_for(m, D, H, sum->n - D * H)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    // Every rank's record to every rank: the rows it touched (a bit each) and its weights
    // digest; beside it, the sum of the integers (for pg, the episodes' stats: each episode's
    // are non-zero on the one rank that played it). These two collectives are also the
    // end-of-play barrier: every rank has played its last episode once they complete; rank 0
    // serves the stragglers' requests meanwhile (each rank's last request is answered with 0
    // before it can enter), so no request is ever left unanswered.
    const size_t mw = (D + 63) / 64;
    const size_t nrec = mw + 1;
    int64_t *rec = m->rec;
    uint8_t *mask = (uint8_t *)rec;
    memset(rec, 0, nrec * sizeof(int64_t));
    for (int r = 0; r < rows->n; r++) mask[rows->list[r] >> 3] |= (uint8_t)(1u << (rows->list[r] & 7));
    rec[mw] = (int64_t)digest;
    if (nx + 1 > m->xcap) {
        int64_t *bigger = realloc(m->x, sizeof(int64_t) * (size_t)(nx + 1));
        if (!bigger) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        m->x = bigger;
        m->xcap = nx + 1;
    }
    memcpy(m->x, x, sizeof(int64_t) * (size_t)nx);
    // A stop request (Ctrl-C, SIGTERM) may reach any rank, not only rank 0 (a scheduler signals
    // them all, a user may signal one): it rides along, and every rank then stops after this batch.
    m->x[nx] = train_stop_requested();
    MPI_Request req[2];
    MPI_Iallgather(rec, (int)nrec, MPI_INT64_T, m->recs, (int)nrec, MPI_INT64_T, MPI_COMM_WORLD, &req[0]);
    MPI_Iallreduce(MPI_IN_PLACE, m->x, nx + 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &req[1]);
    dispatch_wait(m, &req[0]);
    dispatch_wait(m, &req[1]);
    double t1 = clock_now_s();
    m->t.wait_s += t1 - t0;
    memcpy(x, m->x, sizeof(int64_t) * (size_t)nx);
    if (m->x[nx] && !train_stop_requested()) train_request_stop(); // rank 0 acts on it in begin()
    for (int r = 1; r < c->size; r++)
        if (m->recs[(size_t)r * nrec + mw] != m->recs[mw]) {
            snprintf(err, errlen,
                "the weights of rank %d differ from rank 0's after iteration %lld: its update"
                " was not the same computation (a different build, CPU or math library?); stopping",
                r, (long long)m->iteration);
            return -1;
        }
    // The gradient's rows, on every rank: those some rank touched, in the plan's order (which
    // is the packed result's, allreduce.h).
    Allreduce *ar = &m->ar;
    allreduce_plan(ar, (const uint8_t *)m->recs, nrec * sizeof(int64_t));
    rowset_clear(rows);
    for (size_t k = 0; k < ar->nrows; k++) rowset_add(rows, ar->order[k]);
    m->t.rows += (int64_t)ar->nrows;
    m->t.entries += (int64_t)allreduce_entries(ar);
    // A sum too large for the high parts makes every rank run it again, wider (wire_size.h).
    for (int attempt = 0;; attempt++) {
        int64_t sent = 0;
        int rc = allreduce_run(ar, pool, sum, m->wire.hs, c->rank, m->g, &sent, err, errlen);
        m->t.wire_bytes += sent;
        if (rc < 0) return -1;
        if (rc == 0 && !(attempt == 0 && m->iteration == m->hooks.retry_iteration)) break; // (a test's retry)
        if (!wire_size_failed(&m->wire)) {
            snprintf(err, errlen, "internal error: a sum does not fit 8-byte high parts");
            return -1;
        }
        m->t.retries++;
    }
    wire_size_done(&m->wire);
    if (c->rank == m->hooks.diverge_rank && m->iteration == 2) m->g[ar->nrows * H] += 1e-3; // a test's fault
    *g = m->g;
    m->t.reduce_s += clock_now_s() - t1;
    return 0;
}

// The buffers of the exchange at the end of play, for a gradient of D rows of H, then L.
static void buffers_free(MpiComm *m) {
    mem_free_all(m->rec, m->recs, m->g);
    m->rec = m->recs = NULL;
    m->g = NULL;
    if (m->D) allreduce_free(&m->ar);
    m->D = m->H = m->L = 0;
}

static int buffers_for(MpiComm *m, size_t D, size_t H, size_t L) {
    if (m->D == D && m->H == H && m->L == L) return 0;
    buffers_free(m);
    const size_t nrec = (D + 63) / 64 + 1;
    m->rec = calloc(nrec, sizeof(int64_t));
    m->recs = calloc(nrec * (size_t)m->comm.size, sizeof(int64_t));
    m->g = big_calloc(D * H + L, sizeof(double));
    if (!m->rec || !m->recs || !m->g || allreduce_init(&m->ar, m->comm.size, D, H, L)) {
        buffers_free(m); // m->D is still 0: the all-reduce freed itself
        return -1;
    }
    m->D = D;
    m->H = H;
    m->L = L;
    return 0;
}

// Every rank's bytes to every rank (Comm.allgather): their sizes first, then the bytes. The
// ranks that wait for slower ones sleep meanwhile (dispatch_wait); the bytes, once every rank
// is there, in a blocking call: MPI moves a large message on only inside its calls, and a
// wait that sleeps between polls would move it a fragment a nap.
static int mpi_allgather(
    Comm *c, const void *mine, size_t n, const uint8_t **all, const size_t **sizes, char *err, size_t errlen) {
    MpiComm *m = (MpiComm *)c;
    const int R = c->size;
    double t0 = clock_now_s();
    int64_t me = (int64_t)n;
    MPI_Request req;
    MPI_Iallgather(&me, 1, MPI_INT64_T, m->gsize64, 1, MPI_INT64_T, MPI_COMM_WORLD, &req);
    dispatch_wait(NULL, &req);
    double t1 = clock_now_s();
    m->t.wait_s += t1 - t0;
    size_t total = 0;
    for (int r = 0; r < R; r++) {
        m->gsize[r] = (size_t)m->gsize64[r];
        if (m->gsize64[r] < 0 || m->gsize[r] > (size_t)INT32_MAX - total) {
            snprintf(err, errlen, "the ranks' shares of an exchange pass 2 GiB (fewer envs or steps a rank)");
            return -1;
        }
        m->gcount[r] = (int)m->gsize[r];
        m->gdispl[r] = (int)total;
        total += m->gsize[r];
    }
    if (total > m->gcap) {
        uint8_t *bigger = realloc(m->gbuf, total);
        if (!bigger) {
            snprintf(err, errlen, "out of memory (%zu bytes for the ranks' exchange)", total);
            return -1;
        }
        m->gbuf = bigger;
        m->gcap = total;
    }
    MPI_Allgatherv(mine, (int)n, MPI_BYTE, m->gbuf, m->gcount, m->gdispl, MPI_BYTE, MPI_COMM_WORLD);
    m->t.bcast_s += clock_now_s() - t1;
    *all = m->gbuf;
    *sizes = m->gsize;
    return 0;
}

static int mpi_agree(Comm *c, TrainConfig *cfg, bool adopt, char *err, size_t errlen) {
    MpiComm *m = (MpiComm *)c;
    m->threads = cfg->workers;
    free(m->queue);
    m->qcap = m->threads + PREFETCH + 1;
    if (!(m->queue = calloc((size_t)m->qcap, sizeof(int64_t)))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return identity_agree(m, cfg, adopt, err, errlen);
}

static void mpi_describe(Comm *c, char *out, size_t n) {
    snprintf(out, n, ", %d MPI ranks (rank 0's worker threads above; each rank has its own)", c->size);
}

static int mpi_report(Comm *c, const TrainState *s, FILE *out) { return report_shares((MpiComm *)c, s, out); }

static void mpi_fail(Comm *c, const char *msg) { mpi_die(c->rank, msg); } // the others are waiting for it

static void mpi_destroy(Comm *c) {
    if (!c) return;
    MpiComm *m = (MpiComm *)c;
    if (m->reply_reqs) MPI_Waitall(c->size, m->reply_reqs, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
    buffers_free(m);
    mem_free_all(m->queue, m->replies, m->reply_reqs, m->x, m->gsize64, m->gsize, m->gcount, m->gdispl, m->gbuf, m);
}

static Comm *comm_mpi_create(char *err, size_t errlen) {
    // an orphaned rank must not go on writing the run (nor hold its lock)
    cluster_die_with_launcher();
    int provided = 0, inited = 0;
    MPI_Initialized(&inited);
    if (inited)
        MPI_Query_thread(&provided); // a benchmark started MPI itself
    else if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Init_thread failed");
        return NULL;
    }
    if (provided < MPI_THREAD_FUNNELED) {
        snprintf(err, errlen, "this MPI library does not allow threads (MPI_THREAD_FUNNELED)");
        MPI_Finalize();
        return NULL;
    }
    MpiComm *m = calloc(1, sizeof(*m));
    if (!m) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        mpi_die(rank, "out of memory");
    }
    Comm *c = &m->comm;
    *c = (Comm){ COMM_SLOTS(mpi), .ctx = m };
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    c->local_size = cluster_launch_local_size();
    int len = 0;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(name, &len);
    snprintf(m->host, sizeof(m->host), "%s", name);
    m->hooks = test_hooks_read();
    wire_size_init(&m->wire, m->hooks.wire_high);
    m->replies = calloc((size_t)c->size, sizeof(*m->replies));
    m->reply_reqs = malloc((size_t)c->size * sizeof(MPI_Request));
    m->gsize64 = calloc((size_t)c->size, sizeof(int64_t));
    m->gsize = calloc((size_t)c->size, sizeof(size_t));
    m->gcount = calloc((size_t)c->size, sizeof(int));
    m->gdispl = calloc((size_t)c->size, sizeof(int));
    if (!m->replies || !m->reply_reqs || !m->gsize64 || !m->gsize || !m->gcount || !m->gdispl)
        mpi_fail(c, "out of memory");
    for (int r = 0; r < c->size; r++) m->reply_reqs[r] = MPI_REQUEST_NULL;
    m->reply_req = MPI_REQUEST_NULL;
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    return c;
}

Comm *cluster_comm_create(char *err, size_t errlen) {
    if (cluster_launched()) return comm_mpi_create(err, errlen);
    Comm *c = comm_local_create();
    if (!c) snprintf(err, errlen, "out of memory");
    return c;
}

#endif
