// train.c: the iteration loop: weights out, a batch of episodes played, gradients summed,
// RMSProp, one log line and one metrics row per batch.
#include "train.h"
#include "../util/mem.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int train_cores_available(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

void train_config_default(TrainConfig *c) {
    memset(c, 0, sizeof(*c));
    snprintf(c->env_id, sizeof(c->env_id), "%s", "ALE/Pong-v5");
    c->batch_size = 10;
    c->hidden = POLICY_H_DEFAULT;
    c->lr = 1e-4; c->gamma = 0.99; c->decay = 0.99;
    c->seed = 1;
    c->iterations = -1;
    c->workers = train_cores_available();
    c->checkpoint_every = 100;
    c->checkpoint_secs = 300.0;
    c->keep = 3;
}

int train_state_init(TrainState *s, const TrainConfig *cfg) {
    memset(s, 0, sizeof(*s));
    s->cfg = *cfg;
    if (policy_alloc(&s->policy, POLICY_D, cfg->hidden)) return -1;
    s->cache = big_calloc(s->policy.n, sizeof(double));
    if (!s->cache) { policy_free(&s->policy); return -1; }
    policy_init_random(&s->policy, rng_key(cfg->seed, 0x696e6974 /* "init" */, 0, 0));
    return 0;
}

void train_state_free(TrainState *s) {
    policy_free(&s->policy);
    free(s->cache);
    free(s->cache_at);
    s->cache = NULL;
    s->cache_at = NULL;
}

void train_state_settle(TrainState *s) {
    if (!s->cache_at) return;
    const size_t H = (size_t)s->policy.H;
    for (int i = 0; i < s->policy.D; i++) {
        if (s->cache_at[i] == s->iteration) continue;
        rmsprop_decay(s->cache + i * H, H, s->iteration - s->cache_at[i], s->cfg.decay);
        s->cache_at[i] = s->iteration;
    }
}

int train_state_defer(TrainState *s) {
    if (s->cache_at) return 0;
    if (!(s->cache_at = malloc(sizeof(int64_t) * (size_t)s->policy.D))) return -1;
    for (int i = 0; i < s->policy.D; i++) s->cache_at[i] = s->iteration;     // settled
    return 0;
}

bool train_state_settled(const TrainState *s) {
    for (int i = 0; s->cache_at && i < s->policy.D; i++)
        if (s->cache_at[i] != s->iteration) return false;
    return true;
}

int rowset_alloc(RowSet *r, int D) {
    r->n = 0;
    r->D = D;
    r->list = calloc((size_t)D, sizeof(uint16_t));
    r->in = calloc((size_t)D, 1);
    if (D > 65536 || !r->list || !r->in) { rowset_free(r); return -1; }
    return 0;
}

void rowset_free(RowSet *r) {
    free(r->list); free(r->in);
    r->list = NULL; r->in = NULL;
    r->n = 0;
}

void rowset_clear(RowSet *r) {
    for (int k = 0; k < r->n; k++) r->in[r->list[k]] = 0;
    r->n = 0;
}


uint64_t episode_env_seed(uint64_t run_seed, int64_t k) { return rng_key(run_seed, 1, (uint64_t)k, 0x656e76); }
uint64_t episode_act_seed(uint64_t run_seed, int64_t k) { return rng_key(run_seed, 2, (uint64_t)k, 0x616374); }

// ----------------------------------------------------------------------------
// stop requests (signal handlers may only touch a lock-free atomic)

static atomic_int stop_flag;
void train_request_stop(void) { atomic_store(&stop_flag, 1); }
bool train_stop_requested(void) { return atomic_load(&stop_flag) != 0; }

// ----------------------------------------------------------------------------
// the single-process transport: episodes from an atomic counter, nothing to send

typedef struct {
    EpisodeSource src;
    atomic_llong next;
    int64_t end;
} LocalSource;

static int64_t local_next(EpisodeSource *src) {
    LocalSource *ls = src->ctx;
    long long k = atomic_fetch_add(&ls->next, 1);
    return k < ls->end ? k : -1;
}

static bool local_begin(Comm *c, Policy *p, bool *stop) {
    (void)c; (void)p; (void)stop;
    return true;
}

static EpisodeSource *local_source(Comm *c, int64_t first, int count) {
    LocalSource *ls = c->ctx;
    atomic_store(&ls->next, first);
    ls->end = first + count;
    ls->src = (EpisodeSource){ local_next, NULL, ls };
    return &ls->src;
}

static int local_end(Comm *c, Pool *pool, const GradSum *sum, RowSet *rows, EpisodeStats *stats, int count,
                     const double **g, char *err, size_t errlen) {
    (void)c; (void)pool; (void)sum; (void)rows; (void)stats; (void)count; (void)err; (void)errlen;
    *g = NULL;                      // the sum is the batch's: the update converts it as it goes
    return 0;
}

Comm *comm_local_create(void) {
    Comm *c = calloc(1, sizeof(Comm));
    LocalSource *ls = calloc(1, sizeof(LocalSource));
    if (!c || !ls) { free(c); free(ls); return NULL; }
    *c = (Comm){ 0, 1, local_begin, local_source, local_end, ls };
    return c;
}

void comm_local_destroy(Comm *c) {
    if (c) free(c->ctx);
    free(c);
}

// ----------------------------------------------------------------------------
// reporting

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void format_duration(double s, char *buf, size_t n) {
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, n, "%lds", t);
}

typedef struct {
    double secs, batch_mean, mean_len;
    int64_t steps;
} BatchSummary;

// 0, or the errno of a failed write (a closed pipe: SIGPIPE is ignored, main.c).
static int print_batch_line(const TrainState *s, const BatchSummary *b, double session_rate_it) {
    char eta[32] = "";
    const TrainConfig *c = &s->cfg;
    if (c->iterations > 0 && session_rate_it > 0) {
        char d[24];
        format_duration((double)(c->iterations - s->iteration) / session_rate_it, d, sizeof(d));
        snprintf(eta, sizeof(eta), " | eta %s", d);
    }
    printf("Batch %lld computed %d rollouts in %.3f seconds, running mean is %.4f"
           " | %.0f steps/s | mean length %.0f%s\n",
           (long long)s->iteration, c->batch_size, b->secs, s->running_reward,
           b->secs > 0 ? b->steps / b->secs : 0.0, b->mean_len, eta);
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    return errno ? errno : EIO;
}

static int metrics_append(const TrainState *s, const BatchSummary *b, char *err, size_t errlen) {
    if (!s->cfg.run_dir[0]) return 0;
    char path[RUN_DIR_MAX + 32];
    snprintf(path, sizeof(path), "%s/metrics.csv", s->cfg.run_dir);
    FILE *f = fopen(path, "a");
    if (!f) { snprintf(err, errlen, "cannot append to %s: %s", path, strerror(errno)); return -1; }
    if (ftell(f) == 0)
        fprintf(f, TRAIN_METRICS_HEADER "\n");
    fprintf(f, "%lld,%lld,%lld,%.3f,%.4f,%.6f,%.1f\n", (long long)s->iteration, (long long)s->episodes,
            (long long)s->agent_steps, s->wall_s, b->batch_mean, s->running_reward, b->mean_len);
    if (fclose(f) != 0) { snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno)); return -1; }
    return 0;
}

// ----------------------------------------------------------------------------
// the loop

static bool should_stop(const TrainState *s) {
    const TrainConfig *c = &s->cfg;
    if (train_stop_requested()) return true;
    if (c->iterations >= 0 && s->iteration >= c->iterations) return true;
    if (c->has_target && s->episodes > 0 && s->running_reward >= c->target_reward) return true;
    return false;
}

// Fold a batch into the counters; the running mean is taken in episode-index order.
static void account_batch(TrainState *s, const EpisodeStats *stats, int count, BatchSummary *b) {
    double rsum = 0, lsum = 0;
    b->steps = 0;
    for (int i = 0; i < count; i++) {
        double r = stats[i].reward_sum;
        s->running_reward = s->episodes == 0 ? r : s->running_reward * TRAIN_RUNNING_DECAY + r * (1.0 - TRAIN_RUNNING_DECAY);
        s->episodes++;
        s->agent_steps += stats[i].steps;
        s->frames += stats[i].frames;
        b->steps += stats[i].steps;
        rsum += r;
        lsum += stats[i].steps;
    }
    b->batch_mean = rsum / count;
    b->mean_len = lsum / count;
}

// The seed's RMSProp step on the batch sum. A W1 row no episode touched has a zero gradient:
// its weights stay as they are and its cache only decays, so those steps are deferred
// (cache_at) and the update costs the touched rows (a few thousand of 6400) and W2, not a
// pass over the whole 20 MB of weights and cache. The bits are those of the dense update.
// A sum of hashes of (position, bits): the same whatever the order the rows come in.
static uint64_t digest_range(const double *w, size_t off, size_t len) {
    uint64_t d = 0;
    for (size_t k = 0; k < len; k++) {
        uint64_t x;
        memcpy(&x, &w[off + k], sizeof(x));
        x ^= (off + k) * 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        d += x ^ (x >> 31);
    }
    return d;
}

// The update of W1 rows rows->list[a .. b) and its digest. The gradient is g's packed rows or,
// where g is NULL, the sum's rows converted here (into scratch, H entries: one pass instead of
// a conversion pass and an update pass).
static uint64_t update_rows(TrainState *s, const double *g, const GradSum *sum, const RowSet *rows, int a,
                            int b, double *scratch) {
    Policy *p = &s->policy;
    const size_t H = (size_t)p->H;
    const double lr = s->cfg.lr, decay = s->cfg.decay;
    uint64_t d = 0;
    for (int r = a; r < b; r++) {
        const int i = rows->list[r];
        const size_t off = (size_t)i * H;
        const double *gr = g ? g + (size_t)r * H : scratch;
        if (!g) gradsum_to_double_range(sum, scratch, off, H);
        rmsprop_decay(s->cache + off, H, s->iteration - s->cache_at[i], decay);
        rmsprop_update(p->w + off, s->cache + off, gr, H, lr, decay);
        s->cache_at[i] = s->iteration + 1;
        d += digest_range(p->w, off, H);
    }
    return d;
}

static uint64_t update_w2(TrainState *s, const double *g, const GradSum *sum, const RowSet *rows, double *scratch) {
    Policy *p = &s->policy;
    const size_t H = (size_t)p->H, w2 = (size_t)p->D * H;
    const double *gr = g ? g + (size_t)rows->n * H : scratch;
    if (!g) gradsum_to_double_range(sum, scratch, w2, H);
    rmsprop_update(p->w + w2, s->cache + w2, gr, H, s->cfg.lr, s->cfg.decay);
    return digest_range(p->w, w2, H);
}

void train_apply_update(TrainState *s, const double *g, const RowSet *rows) {
    s->digest += update_rows(s, g, NULL, rows, 0, rows->n, NULL) + update_w2(s, g, NULL, rows, NULL);
}

// The same on the pool's threads, a share of the rows each (the digest is a sum: the same
// whatever the split).
typedef struct {
    TrainState *s;
    const double *g;
    const GradSum *sum;
    const RowSet *rows;
    double *scratch;          // (parts x H)
    uint64_t *digest;         // (parts,)
} Update;

static void update_part(void *ctx, int part, int parts) {
    Update *u = ctx;
    const int n = u->rows->n;
    double *scratch = u->scratch + (size_t)part * (size_t)u->s->policy.H;
    uint64_t d = update_rows(u->s, u->g, u->sum, u->rows, (int)((int64_t)n * part / parts),
                             (int)((int64_t)n * (part + 1) / parts), scratch);
    if (part == parts - 1) d += update_w2(u->s, u->g, u->sum, u->rows, scratch);
    u->digest[part] = d;
}

int train_run(TrainState *s, Pool *pool, Comm *comm, char *err, size_t errlen) {
    const int B = s->cfg.batch_size;
    const bool learner = comm->rank == 0;
    EpisodeStats *stats = calloc((size_t)B, sizeof(EpisodeStats));
    RowSet rows = {0};
    const int parts = pool_threads(pool);
    Update up = { s, NULL, NULL, &rows, calloc((size_t)parts * (size_t)s->policy.H, sizeof(double)),
                  calloc((size_t)parts, sizeof(uint64_t)) };
    int rc = -1;
    if (!stats || !up.scratch || !up.digest || train_state_defer(s) || rowset_alloc(&rows, s->policy.D)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    double session_t0 = now_s();
    int64_t session_it0 = s->iteration;
    for (;;) {
        bool stop = learner && should_stop(s);
        if (!comm->begin(comm, &s->policy, &stop)) { snprintf(err, errlen, "lost contact with the other ranks"); goto out; }
        if (stop) break;
        double t0 = now_s();
        int64_t first = s->episodes;
        memset(stats, 0, sizeof(EpisodeStats) * (size_t)B);
        EpisodeSource *src = comm->source(comm, first, B);
        const GradSum *sum;
        if (pool_play(pool, &s->policy, s->cfg.seed, s->cfg.gamma, src, first, B, stats, &sum, &rows, err, errlen))
            goto out;
        const double *g;
        if (comm->end(comm, pool, sum, &rows, stats, B, &g, err, errlen)) goto out;
        BatchSummary b;
        account_batch(s, stats, B, &b);
        up.g = g; up.sum = sum;
        pool_for(pool, update_part, &up);
        for (int k = 0; k < parts; k++) s->digest += up.digest[k];
        s->iteration++;
        b.secs = now_s() - t0;
        s->wall_s += b.secs;
        if (learner) {
            double rate = (s->iteration - session_it0) / (now_s() - session_t0);
            if (!s->cfg.quiet && !s->stdout_errno && (s->stdout_errno = print_batch_line(s, &b, rate)))
                train_request_stop();           // nobody reads the log: stop after this batch
            if (metrics_append(s, &b, err, errlen)) goto out;
            if (s->on_iteration && s->on_iteration(s, false, s->on_iteration_ctx, err, errlen)) goto out;
        }
    }
    if (learner && s->on_iteration && s->on_iteration(s, true, s->on_iteration_ctx, err, errlen)) goto out;
    rc = 0;
out:
    free(stats);
    free(up.scratch);
    free(up.digest);
    rowset_free(&rows);
    return rc;
}
