// cluster.c: the MPI transport (see cluster.h). One process per rank, worker threads in each;
// rank 0's main thread is also the episode dispatcher, serving requests between its polls.
#include "cluster.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static const char *LAUNCHER_VARS[] = {
    "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",   // Open MPI's mpirun
    "PMIX_RANK",                                       // PMIx launchers (Open MPI 5, srun --mpi=pmix)
    "PMI_RANK", "PMI_SIZE",                            // MPICH's Hydra, srun --mpi=pmi2
};

bool cluster_launched(void) {
    for (size_t i = 0; i < sizeof(LAUNCHER_VARS) / sizeof(LAUNCHER_VARS[0]); i++) {
        const char *v = getenv(LAUNCHER_VARS[i]);
        if (v && *v) return true;
    }
    return false;
}

int cluster_launch_rank(void) {
    static const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return 0;
}

int cluster_launch_local_size(void) {
    static const char *vars[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS" };   // Open MPI, MPICH
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    return 1;
}

void cluster_die_with_launcher(void) {
#ifdef __linux__
    pid_t launcher = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != launcher) _exit(1);   // it died just now
#endif
}

#ifndef HAVE_MPI

// ----------------------------------------------------------------------------
// a build without MPI: say so instead of running N unconnected copies

Comm *comm_mpi_create(TrainState *st, int threads, bool adopt, char *err, size_t errlen) {
    (void)st; (void)threads; (void)adopt;
    snprintf(err, errlen, "started by an MPI launcher, but this pongrl was built without MPI "
             "(install libopenmpi-dev, then make clean all)");
    return NULL;
}
int comm_mpi_report(Comm *c, FILE *out) { (void)c; (void)out; return 0; }
void comm_mpi_destroy(Comm *c) { (void)c; }
void comm_mpi_abort(Comm *c) { (void)c; exit(1); }
void comm_mpi_times(const Comm *c, CommTimes *t) { (void)c; memset(t, 0, sizeof(*t)); }
int comm_mpi_samples(const Comm *c, double *iter_s, double *comm_s, int max) {
    (void)c; (void)iter_s; (void)comm_s; (void)max;
    return 0;
}
void comm_mpi_reset_times(Comm *c) { (void)c; }

#else

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../train/train.h"
#include "../util/clock.h"
#include "../util/crc.h"
#include "../util/fmt.h"
#include "../util/mem.h"
#include "allreduce.h"
#include "wire_size.h"

enum { TAG_REQUEST = 101, TAG_REPLY = 102 };
#define HOST_MAX 256
#define CFG_MAX 320
#define PREFETCH 1            // indices a rank asks for beyond its idle threads: hides the round trip
#define NAP_NS 50000          // 50 us between polls while a rank only waits for others

// What rank 0 sends at the start of every iteration. The counters make the other ranks'
// TrainState follow the learner's (a resumed run starts from rank 0's checkpoint alone).
typedef struct {
    int64_t iteration, episodes, agent_steps, frames;
    double running_reward, wall_s;
    int64_t stop;
    int64_t full;             // 1: rank 0's weights and cache follow (once per run)
} Header;

typedef struct {
    Comm comm;                // first: the Comm * handed out is a MpiComm *
    TrainState *st;
    int threads;
    char host[HOST_MAX];
    // the current batch
    EpisodeSource src;
    int64_t iteration, first, end;
    atomic_llong next;        // rank 0: the next index nobody has claimed
    // rank > 0: indices received from rank 0 and not yet taken by a thread
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t *queue;
    int qhead, qlen, qcap, waiting;
    bool done, outstanding;
    MPI_Request reply_req;
    int64_t reply[3];         // iteration, first index, count (0: the batch is all handed out)
    // rank 0: the reply in flight to each rank
    int64_t (*replies)[3];
    MPI_Request *reply_reqs;
    bool synced;              // the weights and cache have been sent out once
    WireSize wire;            // the entries' high parts, 1, 2 or 8 bytes (wire_size.h)
    int64_t test_retry;       // PONGRL_TEST_WIRE_RETRY=K: iteration K's first all-reduce is done again (tests)
    int diverge_rank;         // PONGRL_TEST_DIVERGE=R: rank R's third update is made wrong (tests)
    int64_t *rec, *recs;      // this rank's record at the end of play (mpi_end), and every rank's
    int64_t *stats;           // (4 batch + 1,) the episodes' stats and the stop requests, summed over the ranks
    double *g;                // ((D + 1) H,) the packed result (Comm.end)
    Allreduce ar;
    // accounting
    atomic_llong played, busy_ns;
    CommTimes t;
    double t_source;
    double samp_iter[COMM_SAMPLES], samp_comm[COMM_SAMPLES], last_begin, last_comm;
    int nsamp;
} MpiComm;

static void nap(void) {
    struct timespec ts = { 0, NAP_NS };
    nanosleep(&ts, NULL);
}

// Wait for a non-blocking operation without spinning a core: ranks that wait for others
// should leave the CPU to the ones still playing (several ranks often share a machine).
// Rank 0 keeps serving episode requests meanwhile.
static void serve(MpiComm *m);
static void wait_napping(MpiComm *m, MPI_Request *req) {
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
    if (k >= 0) { tl_started = clock_now_s(); atomic_fetch_add(&m->played, 1); }
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
            fprintf(stderr, "pongrl: rank %d asked for episodes of iteration %lld during iteration %lld "
                    "(protocol error)\n", r, (long long)req[0], (long long)m->iteration);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Wait(&m->reply_reqs[r], MPI_STATUS_IGNORE);    // the buffer of its previous reply
        int64_t k, n;
        claim(m, req[1], &k, &n);
        m->replies[r][0] = m->iteration; m->replies[r][1] = k; m->replies[r][2] = n;
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

// ----------------------------------------------------------------------------
// the Comm

static bool mpi_begin(Comm *c, Policy *p, bool *stop) {
    MpiComm *m = (MpiComm *)c;
    TrainState *st = m->st;
    double t0 = clock_now_s(), comm_s = m->t.bcast_s + m->t.reduce_s;
    if (m->last_begin > 0 && m->nsamp < COMM_SAMPLES) {
        m->samp_iter[m->nsamp] = t0 - m->last_begin;
        m->samp_comm[m->nsamp++] = comm_s - m->last_comm;
    }
    m->last_begin = t0;
    m->last_comm = comm_s;
    Header h = {0};
    if (c->rank == 0) {
        h = (Header){ st->iteration, st->episodes, st->agent_steps, st->frames, st->running_reward,
                      st->wall_s, *stop, !m->synced };
    }
    MPI_Request req;
    MPI_Ibcast(&h, (int)sizeof(h), MPI_BYTE, 0, MPI_COMM_WORLD, &req);
    wait_napping(NULL, &req);       // ranks > 0 wait here while rank 0 logs and checkpoints
    double t1 = clock_now_s();
    m->t.wait_s += t1 - t0;
    if (c->rank != 0) {
        st->iteration = h.iteration; st->episodes = h.episodes;
        st->agent_steps = h.agent_steps; st->frames = h.frames;
        st->running_reward = h.running_reward; st->wall_s = h.wall_s;
        *stop = h.stop != 0;
    }
    m->iteration = h.iteration;
    if (h.stop || c->size == 1) return true;
    if (h.full) {
        // Once per run: rank 0's weights and cache (a fresh run's are the same everywhere, a
        // resumed one's are rank 0's checkpoint). From then on every rank applies the same
        // update to the same batch sum, so only that sum travels.
        if (c->rank == 0) train_state_settle(st);
        MPI_Bcast(p->w, (int)p->n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Bcast(st->cache, (int)p->n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int i = 0; i < p->D; i++) st->cache_at[i] = st->iteration;
        m->synced = true;
    }
    m->t.bcast_s += clock_now_s() - t1;
    return true;
}

static EpisodeSource *mpi_source(Comm *c, int64_t first, int count) {
    MpiComm *m = (MpiComm *)c;
    m->first = first;
    m->end = first + count;
    atomic_store(&m->next, first);
    m->qhead = m->qlen = m->waiting = 0;
    m->done = m->outstanding = false;
    if (c->rank == 0) m->src = (EpisodeSource){ next_root, poll_root, m };
    else m->src = (EpisodeSource){ next_remote, poll_remote, m };
    m->t_source = clock_now_s();
    return &m->src;
}

static int mpi_end(Comm *c, Pool *pool, const GradSum *sum, RowSet *rows, EpisodeStats *stats, int count,
                   const double **g, char *err, size_t errlen) {
    MpiComm *m = (MpiComm *)c;
    double t0 = clock_now_s();
    m->t.play_s += t0 - m->t_source;
    m->t.iterations++;
    if (c->size == 1) {                         // the sum and the stats are all here already
        *g = NULL;
        return 0;
    }
    // Every rank's record to every rank: the rows it touched (a bit each) and its weights
    // digest; beside it, a sum of the episodes' stats (each episode's are non-zero on the one
    // rank that played it). These two collectives are also the end-of-play barrier: every
    // rank has played its last episode once they complete; rank 0 serves the stragglers'
    // requests meanwhile (each rank's last request is answered with 0 before it can enter), so
    // no request is ever left unanswered.
    const size_t H = (size_t)m->st->policy.H, D = (size_t)m->st->policy.D, mw = (D + 63) / 64;
    const size_t nrec = mw + 1;
    int64_t *rec = m->rec;
    uint8_t *mask = (uint8_t *)rec;
    memset(rec, 0, nrec * sizeof(int64_t));
    for (int r = 0; r < rows->n; r++) mask[rows->list[r] >> 3] |= (uint8_t)(1u << (rows->list[r] & 7));
    rec[mw] = (int64_t)m->st->digest;
    int64_t *x = m->stats;
    for (int e = 0; e < count; e++) {
        x[4 * e] = stats[e].reward_sum; x[4 * e + 1] = stats[e].steps;
        x[4 * e + 2] = stats[e].frames; x[4 * e + 3] = stats[e].truncated;
    }
    // A stop request (Ctrl-C, SIGTERM) may reach any rank, not only rank 0 (a scheduler signals
    // them all, a user may signal one): it rides along, and every rank then stops after this batch.
    x[4 * count] = train_stop_requested();
    MPI_Request req[2];
    MPI_Iallgather(rec, (int)nrec, MPI_INT64_T, m->recs, (int)nrec, MPI_INT64_T, MPI_COMM_WORLD, &req[0]);
    MPI_Iallreduce(MPI_IN_PLACE, x, 4 * count + 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &req[1]);
    wait_napping(m, &req[0]);
    wait_napping(m, &req[1]);
    double t1 = clock_now_s();
    m->t.wait_s += t1 - t0;
    for (int e = 0; e < count; e++)
        stats[e] = (EpisodeStats){ (int)x[4 * e], (int)x[4 * e + 1], x[4 * e + 2], x[4 * e + 3] != 0 };
    if (x[4 * count] && !train_stop_requested()) train_request_stop();   // rank 0 acts on it in begin()
    for (int r = 1; r < c->size; r++)
        if (m->recs[(size_t)r * nrec + mw] != m->recs[mw]) {
            snprintf(err, errlen, "the weights of rank %d differ from rank 0's after iteration %lld: its update"
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
        if (rc == 0 && !(attempt == 0 && m->iteration == m->test_retry)) break;   // (the retry test)
        if (!wire_size_failed(&m->wire)) { snprintf(err, errlen, "internal error: a sum does not fit 8-byte high parts"); return -1; }
        m->t.retries++;
    }
    wire_size_done(&m->wire);
    if (c->rank == m->diverge_rank && m->iteration == 2) m->g[ar->nrows * H] += 1e-3;   // the digest test's fault
    *g = m->g;
    m->t.reduce_s += clock_now_s() - t1;
    return 0;
}

// ----------------------------------------------------------------------------
// start-up: same binary, same reproducibility-relevant configuration on every rank

typedef struct {
    uint32_t exe_crc;
    char host[HOST_MAX];
    char cfg[CFG_MAX];
} Identity;

static uint32_t exe_crc32(void) {
    FILE *f = fopen("/proc/self/exe", "rb");
    uLong crc = crc32(0L, Z_NULL, 0);
    if (!f) {                                   // no procfs: the build time has to do
        static const char stamp[] = __DATE__ " " __TIME__;
        return (uint32_t)crc32(crc, (const Bytef *)stamp, sizeof(stamp) - 1);
    }
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) crc = crc32(crc, buf, (uInt)n);
    fclose(f);
    return (uint32_t)crc;
}

static void config_string(const TrainConfig *c, char *out, size_t n) {
    char lr[32], gamma[32], decay[32];
    snprintf(out, n, "env=%s batch=%d hidden=%d lr=%s gamma=%s decay=%s seed=%llu", c->env_id,
             c->batch_size, c->hidden, fmt_shortest(c->lr, lr, sizeof(lr)), fmt_shortest(c->gamma, gamma, sizeof(gamma)),
             fmt_shortest(c->decay, decay, sizeof(decay)), (unsigned long long)c->seed);
}

// "seed=2 (rank 0: seed=1)" for each setting that differs
static void config_diff(const char *a, const char *ref, char *out, size_t n) {
    char x[CFG_MAX], y[CFG_MAX];
    snprintf(x, sizeof(x), "%s", a);
    snprintf(y, sizeof(y), "%s", ref);
    char *sx, *sy;
    char *tx = strtok_r(x, " ", &sx), *ty = strtok_r(y, " ", &sy);
    size_t used = 0;
    out[0] = 0;
    while (tx && ty) {
        if (strcmp(tx, ty) && used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s (rank 0: %s)", used ? ", " : "", tx, ty);
        tx = strtok_r(NULL, " ", &sx);
        ty = strtok_r(NULL, " ", &sy);
    }
}

// 0 when every rank matches rank 0; otherwise -1, with the offenders listed in err.
// Rank 0's run-defining configuration goes to every rank; those asked to adopt it (the other
// ranks of a resumed run, which need not see its run directory) take it and start afresh from
// it: the weights, cache and counters follow from rank 0 at the first iteration. Collective.
static int adopt_config(MpiComm *m, bool adopt, char *err, size_t errlen) {
    TrainConfig root = m->st->cfg;             // the same binary everywhere: the same layout
    MPI_Bcast(&root, (int)sizeof(root), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!adopt || m->comm.rank == 0) return 0;
    TrainConfig c = m->st->cfg;                // how this rank runs: its threads, quiet, no files
    snprintf(c.env_id, sizeof(c.env_id), "%s", root.env_id);
    c.batch_size = root.batch_size; c.hidden = root.hidden;
    c.lr = root.lr; c.gamma = root.gamma; c.decay = root.decay; c.seed = root.seed;
    train_state_free(m->st);
    if (train_state_init(m->st, &c)) { snprintf(err, errlen, "out of memory (H=%d)", c.hidden); return -1; }
    return 0;
}

static int check_identity(MpiComm *m, char *err, size_t errlen) {
    int size = m->comm.size;
    Identity me = {0};
    me.exe_crc = exe_crc32();
    snprintf(me.host, sizeof(me.host), "%s", m->host);
    config_string(&m->st->cfg, me.cfg, sizeof(me.cfg));
    Identity *all = calloc((size_t)size, sizeof(Identity));
    if (!all) { snprintf(err, errlen, "out of memory"); MPI_Abort(MPI_COMM_WORLD, 1); }
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
    size_t used = 0;
    int bad = 0;
    err[0] = 0;
    for (int r = 1; r < size; r++) {
        char diff[2 * CFG_MAX];
        bool exe = all[r].exe_crc != all[0].exe_crc, cfg = strcmp(all[r].cfg, all[0].cfg) != 0;
        if (!exe && !cfg) continue;
        bad++;
        if (cfg) config_diff(all[r].cfg, all[0].cfg, diff, sizeof(diff));
        if (used < errlen)
            used += (size_t)snprintf(err + used, errlen - used, "%srank %d on %s %s%s%s", used ? "; " : "",
                                     r, all[r].host,
                                     exe ? "runs a different pongrl binary" : "",
                                     exe && cfg ? " and " : "",
                                     cfg ? "has a different configuration: " : "");
        if (cfg && used < errlen) used += (size_t)snprintf(err + used, errlen - used, "%s", diff);
    }
    if (bad && used < errlen)
        snprintf(err + used, errlen - used, " (rank 0 is on %s; every rank must run the same build with the "
                 "same --env --batch-size --hidden --lr --gamma --decay --seed)", all[0].host);
    free(all);
    return bad ? -1 : 0;
}

Comm *comm_mpi_create(TrainState *st, int threads, bool adopt, char *err, size_t errlen) {
    int provided = 0, inited = 0;
    MPI_Initialized(&inited);
    if (inited) MPI_Query_thread(&provided);     // a benchmark started MPI itself
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
    if (!m) { snprintf(err, errlen, "out of memory"); MPI_Abort(MPI_COMM_WORLD, 1); }
    MPI_Comm_rank(MPI_COMM_WORLD, &m->comm.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->comm.size);
    int len = 0;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(name, &len);
    snprintf(m->host, sizeof(m->host), "%s", name);
    m->st = st;
    m->threads = threads;
    if (adopt_config(m, adopt, err, errlen)) {      // the others would wait for this rank
        fprintf(stderr, "pongrl: rank %d: %s\n", m->comm.rank, err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *high = getenv("PONGRL_WIRE_HIGH"), *diverge = getenv("PONGRL_TEST_DIVERGE");
    // PONGRL_WIRE_HIGH=2 or 8: high parts of at least that size (tests)
    wire_size_init(&m->wire, high && (atoi(high) == 2 || atoi(high) == 8) ? atoi(high) : 1);
    const char *retry = getenv("PONGRL_TEST_WIRE_RETRY");
    m->test_retry = retry ? atoll(retry) : -1;
    m->diverge_rank = diverge ? atoi(diverge) : -1;
    if (check_identity(m, err, errlen)) {
        MPI_Finalize();
        free(m);
        return NULL;
    }
    m->comm.begin = mpi_begin;
    m->comm.source = mpi_source;
    m->comm.end = mpi_end;
    m->comm.ctx = m;
    const size_t D = (size_t)st->policy.D, H = (size_t)st->policy.H;
    m->qcap = threads + PREFETCH + 1;
    m->queue = calloc((size_t)m->qcap, sizeof(int64_t));
    m->replies = calloc((size_t)m->comm.size, sizeof(*m->replies));
    m->reply_reqs = malloc((size_t)m->comm.size * sizeof(MPI_Request));
    const size_t nrec = (D + 63) / 64 + 1;
    m->rec = calloc(nrec, sizeof(int64_t));
    m->recs = calloc(nrec * (size_t)m->comm.size, sizeof(int64_t));
    m->stats = calloc(4 * (size_t)st->cfg.batch_size + 1, sizeof(int64_t));   // + the stop flag
    m->g = big_calloc((D + 1) * H, sizeof(double));
    if (!m->queue || !m->replies || !m->reply_reqs || !m->rec || !m->recs || !m->stats || !m->g ||
        allreduce_init(&m->ar, m->comm.size, D, H)) {
        snprintf(err, errlen, "out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    // touch the buffers now: their page faults would otherwise land in the first iterations
    for (int r = 0; r < m->comm.size; r++) m->reply_reqs[r] = MPI_REQUEST_NULL;
    m->reply_req = MPI_REQUEST_NULL;
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    return &m->comm;
}

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

int comm_mpi_report(Comm *c, FILE *out) {
    MpiComm *m = (MpiComm *)c;
    CommTimes t;
    comm_mpi_times(c, &t);
    const Policy *p = &m->st->policy;
    Share me = { m->threads, t.episodes, t.retries, t.busy_s, t.bcast_s + t.reduce_s, t.wait_s,
                 crc32_of(p->w, p->n * sizeof(double)), "" };
    snprintf(me.host, sizeof(me.host), "%s", m->host);
    Share *all = calloc((size_t)c->size, sizeof(Share));
    if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
    // every rank updated its own copy of the weights; they must have stayed the same bits
    int differ = -1;
    for (int r = 1; r < c->size && differ < 0; r++)
        if (all[r].weights_crc != all[0].weights_crc) differ = r;
    if (c->rank != 0) { free(all); return differ < 0 ? 0 : -1; }
    if (differ >= 0)
        fprintf(stderr, "pongrl: rank %d on %s ended with other weights than rank 0 (crc32 %08lx, rank 0: %08lx):"
                " its update was not the same computation (a different CPU or math library?)\n", differ,
                all[differ].host, (unsigned long)all[differ].weights_crc, (unsigned long)all[0].weights_crc);
    int64_t total = 0, threads = 0;
    for (int r = 0; r < c->size; r++) { total += all[r].episodes; threads += all[r].threads; }
    fprintf(out, "cluster: %d ranks, %lld worker threads; each rank's share (busy: thread-seconds in episodes;"
            " comm: counters out, gradient sums exchanged; wait: idle for slower ranks)\n", c->size, (long long)threads);
    fprintf(out, "  %4s  %-20s %7s %9s %6s %9s %8s %8s\n", "rank", "host", "threads", "episodes", "share",
            "busy_s", "comm_s", "wait_s");
    for (int r = 0; r < c->size; r++)
        fprintf(out, "  %4d  %-20s %7lld %9lld %5.1f%% %9.2f %8.2f %8.2f\n", r, all[r].host,
                (long long)all[r].threads, (long long)all[r].episodes,
                total ? 100.0 * all[r].episodes / total : 0.0, all[r].busy_s, all[r].comm_s, all[r].wait_s);
    if (all[0].retries)                         // the same on every rank
        fprintf(out, "all-reduce: done again %lld time%s with wider entries (a gradient sum did not fit)\n",
                (long long)all[0].retries, all[0].retries == 1 ? "" : "s");
    if (differ < 0)
        fprintf(out, "weights: the same bits on all %d ranks (crc32 %08lx)\n", c->size, (unsigned long)all[0].weights_crc);
    fflush(out);
    free(all);
    return differ < 0 ? 0 : -1;
}

void comm_mpi_abort(Comm *c) {
    (void)c;
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);                                    // not reached
}

void comm_mpi_destroy(Comm *c) {
    if (!c) return;
    MpiComm *m = (MpiComm *)c;
    if (m->reply_reqs) MPI_Waitall(c->size, m->reply_reqs, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
    free(m->queue); free(m->replies); free(m->reply_reqs); free(m->rec); free(m->recs); free(m->stats); free(m->g);
    allreduce_free(&m->ar);
    free(m);
}

#endif
