// pg.c: Karpathy's recipe (pg.h): a batch of whole episodes on the worker threads, their
// gradients summed exactly, the sparse RMSProp step and its digest, the deferred cache decays.
#include "pg.h"
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../train/comm.h"
#include "../../util/digest.h"
#include "../../util/rng.h"
#include "../learner_util.h"
#include "pg_streams.h"

// pg's arrays, each declared once: its field, element type, length (from the sizes z), block
// (util/arrays.h: one mapping each) and, for the saved block, its name in a checkpoint (float64
// each: Learner.arrays is these rows) and whether it must be non-negative. pg_create points them
// all, pg_destroy frees them; pg.h says what each holds. Outside them: the rows' set (rowset.c)
// and each thread's player (episodes.c, whose episodes grow their trajectories).
enum { PG_SAVED, PG_BATCH };
#define PG_ARRAYS(X) \
    X(net.w, double, z.n, PG_SAVED, "weights", false) \
    X(cache, double, z.n, PG_SAVED, "RMSProp cache", true) \
    X(cache_at, int64_t, z.D, PG_BATCH, NULL, false) \
    X(stats, EpisodeStats, z.B, PG_BATCH, NULL, false) \
    X(x, int64_t, z.stats, PG_BATCH, NULL, false)
// and those of the pool's parts (its threads), made again when their number changes
#define PG_PARTS_ARRAYS(X) \
    X(scratch, double, z.partsH, 0, NULL, false) \
    X(digests, uint64_t, z.parts, 0, NULL, false)

typedef struct {
    size_t D, n, B, stats, parts, partsH;
} PgSizes;

static PgSizes pg_sizes(const TrainConfig *c, int parts) {
    const size_t H = (size_t)c->hidden, B = (size_t)c->batch_size;
    return (PgSizes){ POLICY_D, POLICY_D * H + H, B, 4 * B, (size_t)parts, (size_t)parts * H };
}

// ----------------------------------------------------------------------------
// the update: RMSProp over the touched rows

// The update of W1 rows rows->list[a .. b) and its digest. The gradient is g's packed rows or,
// where g is NULL, the sum's rows converted here (into scratch, H entries: one pass instead of
// a conversion pass and an update pass).
static uint64_t update_rows(
    TrainState *s, const double *g, const GradSum *sum, const RowSet *rows, int a, int b, double *scratch) {
    PgState *pg = pg_state(s);
    Policy *p = &pg->net;
    const size_t H = (size_t)p->H;
    const double lr = s->cfg.lr, decay = s->cfg.decay;
    uint64_t d = 0;
    for (int r = a; r < b; r++) {
        const int i = rows->list[r];
        const size_t off = (size_t)i * H;
        const double *gr = g ? g + (size_t)r * H : scratch;
        if (!g) gradsum_to_double_range(sum, scratch, off, H);
        rmsprop_decay(pg->cache + off, H, s->iteration - pg->cache_at[i], decay);
        rmsprop_update(p->w + off, pg->cache + off, gr, H, lr, decay);
        pg->cache_at[i] = s->iteration + 1;
        d += digest_range(p->w, off, H);
    }
    return d;
}

static uint64_t update_w2(TrainState *s, const double *g, const GradSum *sum, const RowSet *rows, double *scratch) {
    Policy *p = &pg_state(s)->net;
    const size_t H = (size_t)p->H, w2 = (size_t)p->D * H;
    const double *gr = g ? g + (size_t)rows->n * H : scratch;
    if (!g) gradsum_to_double_range(sum, scratch, w2, H);
    rmsprop_update(p->w + w2, pg_state(s)->cache + w2, gr, H, s->cfg.lr, s->cfg.decay);
    return digest_range(p->w, w2, H);
}

void pg_update(TrainState *s, const double *g, const RowSet *rows) {
    s->digest += update_rows(s, g, NULL, rows, 0, rows->n, NULL) + update_w2(s, g, NULL, rows, NULL);
}

// A share of the rows for each of the pool's threads (the digest is a sum: the same whatever
// the split).
typedef struct {
    TrainState *s;
    const double *g;
    const GradSum *sum;
    const RowSet *rows;
    double *scratch;  // (parts x H)
    uint64_t *digest; // (parts,)
} Update;

static void update_part(void *ctx, int part, int parts) {
    Update *u = ctx;
    const int n = u->rows->n;
    double *scratch = u->scratch + (size_t)part * (size_t)pg_state(u->s)->net.H;
    uint64_t d = update_rows(
        u->s, u->g, u->sum, u->rows, (int)((int64_t)n * part / parts), (int)((int64_t)n * (part + 1) / parts), scratch);
    if (part == parts - 1) d += update_w2(u->s, u->g, u->sum, u->rows, scratch);
    u->digest[part] = d;
}

// The step on the pool's threads, a share of the rows each; where g is NULL the gradient is
// sum's rows, converted to float64 as they are used.
static void update_pool(TrainState *s, Pool *pool, const double *g, const GradSum *sum, const RowSet *rows) {
    PgState *pg = pg_state(s);
    Update up = { s, g, sum, rows, pg->scratch, pg->digests };
    pool_for(pool, update_part, &up);
    for (int k = 0; k < pool_threads(pool); k++) s->digest += pg->digests[k];
}

// ----------------------------------------------------------------------------
// the deferred cache decays

static void pg_settle(TrainState *s) {
    PgState *pg = pg_state(s);
    const size_t H = (size_t)pg->net.H;
    for (int i = 0; i < pg->net.D; i++) {
        if (pg->cache_at[i] == s->iteration) continue;
        rmsprop_decay(pg->cache + i * H, H, s->iteration - pg->cache_at[i], s->cfg.decay);
        pg->cache_at[i] = s->iteration;
    }
}

static bool pg_settled(const TrainState *s) {
    const PgState *pg = pg_state(s);
    for (int i = 0; i < pg->net.D; i++)
        if (pg->cache_at[i] != s->iteration) return false;
    return true;
}

// ----------------------------------------------------------------------------
// one iteration: a batch of episodes, their exact sum, the step

// The scratch for the pool's thread count (it may differ from the last call's): pg's table of
// arrays below, and each thread's player.
static int scratch_for(PgState *pg, const TrainConfig *c, const Policy *p, int parts) {
    if (pg->parts == parts) return 0;
    arrays_free(&pg->parts_mem);
    pg_players_destroy(pg->players);
    pg->scratch = NULL;
    pg->digests = NULL;
    pg->parts = 0;
    const PgSizes z = pg_sizes(c, parts);
#define X(FIELD, TYPE, LEN, BLOCK, SAVED, NONNEG) { sizeof(TYPE), (LEN), 0, NULL },
    ArraySpec spec[] = { PG_PARTS_ARRAYS(X) };
#undef X
    if (arrays_make(spec, (int)(sizeof(spec) / sizeof(spec[0])), &pg->parts_mem)) return -1;
    int i = 0;
#define X(FIELD, TYPE, LEN, BLOCK, SAVED, NONNEG) pg->FIELD = (TYPE *)spec[i++].at;
    PG_PARTS_ARRAYS(X)
#undef X
    pg->players = pg_players_create(parts, c->env_id, c->mode, c->difficulty, p);
    pg->parts = pg->players ? parts : 0;
    return pg->parts ? 0 : -1;
}

static int pg_iterate(TrainState *s, Pool *pool, Comm *comm, LearnerBatch *lb, char *err, size_t errlen) {
    PgState *pg = pg_state(s);
    const int B = s->cfg.batch_size;
    if (scratch_for(pg, &s->cfg, &pg->net, pool_threads(pool))) {
        snprintf(err, errlen, "out of memory, or %s with mode %d and difficulty %d unknown", s->cfg.env_id, s->cfg.mode,
            s->cfg.difficulty);
        return -1;
    }
    const int64_t first = s->episodes;
    memset(pg->stats, 0, sizeof(EpisodeStats) * (size_t)B);
    EpisodeSource *src = comm->source(comm, first, B);
    const GradSum *sum;
    if (pg_play(pg->players, pool, &pg->net, s->cfg.seed, s->cfg.gamma, src, first, pg->stats, &sum, &pg->rows, err,
            errlen))
        return -1;
    // each episode's stats are non-zero on the one rank that played it: summed, every rank has them all
    int64_t *x = pg->x;
    for (int e = 0; e < B; e++) {
        x[4 * e] = pg->stats[e].reward_sum;
        x[4 * e + 1] = pg->stats[e].steps;
        x[4 * e + 2] = pg->stats[e].frames;
        x[4 * e + 3] = pg->stats[e].truncated;
    }
    const double *g;
    if (comm->reduce(comm, pool, sum, &pg->rows, (size_t)pg->net.H, x, 4 * B, s->digest, &g, err, errlen)) return -1;
    lb->steps = lb->frames = 0;
    for (int e = 0; e < B; e++) {
        pg->stats[e] = (EpisodeStats){ (int)x[4 * e], (int)x[4 * e + 1], x[4 * e + 2], x[4 * e + 3] != 0 };
        lb->steps += pg->stats[e].steps;
        lb->frames += pg->stats[e].frames;
    }
    lb->episodes = pg->stats;
    lb->count = B;
    update_pool(s, pool, g, sum, &pg->rows);
    return 0;
}

// ----------------------------------------------------------------------------
// its state

static void pg_destroy(TrainState *s) {
    PgState *pg = pg_state(s);
    if (!pg) return;
    pg_players_destroy(pg->players);
    rowset_free(&pg->rows);
    arrays_free(&pg->mem);
    arrays_free(&pg->parts_mem);
    free(pg);
    s->algo = NULL;
}

static int pg_create(TrainState *s, bool fresh) {
    PgState *pg = calloc(1, sizeof(PgState));
    if (!pg) return -1;
    s->algo = pg;
    const PgSizes z = pg_sizes(&s->cfg, 0);
#define X(FIELD, TYPE, LEN, BLOCK, SAVED, NONNEG) { sizeof(TYPE), (LEN), (BLOCK), NULL },
    ArraySpec spec[] = { PG_ARRAYS(X) };
#undef X
    if (arrays_make(spec, (int)(sizeof(spec) / sizeof(spec[0])), &pg->mem) || rowset_alloc(&pg->rows, (int)z.D)) {
        pg_destroy(s);
        return -1;
    }
    int i = 0;
#define X(FIELD, TYPE, LEN, BLOCK, SAVED, NONNEG) pg->FIELD = (TYPE *)spec[i++].at;
    PG_ARRAYS(X)
#undef X
    pg->net.D = (int)z.D;
    pg->net.H = s->cfg.hidden;
    pg->net.n = z.n;
    for (size_t r = 0; r < z.D; r++) pg->cache_at[r] = s->iteration; // settled
    if (fresh) policy_init_random(&pg->net, stream_pg_init(s->cfg.seed));
    return 0;
}

// The table's saved arrays, in its order.
static int pg_arrays(TrainState *s, LearnerArray *out) {
    PgState *pg = pg_state(s);
    const PgSizes z = pg_sizes(&s->cfg, 0);
    int k = 0;
#define X(FIELD, TYPE, LEN, BLOCK, SAVED, NONNEG) \
    if (BLOCK == PG_SAVED) out[k++] = (LearnerArray){ SAVED, (double *)pg->FIELD, (LEN), NONNEG };
    PG_ARRAYS(X)
#undef X
    return k;
}

// The weights and the RMSProp cache, and each worker thread's gradient and exact sum.
static double pg_memory_bytes(const TrainConfig *c) {
    double n = (double)POLICY_D * c->hidden + c->hidden;
    return n * 8 * 3 + (double)c->workers * n * (8 + 16);
}

static int pg_episodes_per_iteration(const TrainConfig *c) { return c->batch_size; }

static const char *const pg_metrics[] = { NULL };

static AgentPolicy pg_agent(TrainState *s, bool greedy) { return pg_agent_policy(&pg_state(s)->net, greedy); }

// Its network as Karpathy's W1.npy and W2.npy (npy.h).
static int pg_export_npy(TrainState *s, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen) {
    return pg_npy_write(&pg_state(s)->net, dir, wrote, wlen, err, errlen);
}

// A folder of Karpathy's W1.npy and W2.npy (no model.txt: notes NULL): pg, attached, with them
// as its weights and its cache zero.
static int pg_import_npy(TrainState *s, const char *dir, const ModelNotes *notes, char *err, size_t errlen) {
    (void)notes;
    Policy net;
    if (pg_npy_read(dir, &net, err, errlen)) return -1;
    s->cfg.hidden = net.H;
    int rc = train_state_attach(s, &PG_LEARNER, err, errlen);
    if (!rc) memcpy(pg_state(s)->net.w, net.w, sizeof(double) * net.n);
    policy_free(&net);
    return rc;
}

static const double *pg_weights(const TrainState *s, size_t *n) {
    *n = pg_state(s)->net.n;
    return pg_state(s)->net.w;
}

const StreamDecl PG_STREAMS[] = {
    { STREAM_PG_EPISODE_ENV, "env", false },
    { STREAM_PG_EPISODE_ACT, "act", false },
    { STREAM_PG_INIT, "init", false },
    { 0, NULL, false },
};

// clang-format off
const Learner PG_LEARNER = {
    .name = "pg",
    .summary = "Karpathy's policy gradient: whole episodes, REINFORCE, RMSProp, his 6400-H-1 network",
    .network = (const char *const[]){ "hidden", NULL },
    .npy_files = "DIR/W1.npy (H, 6400) and DIR/W2.npy (H,), float64: Karpathy's model['W1'] and model['W2']",
    LEARNER_SLOTS(pg),
    .episodes_per_iteration = pg_episodes_per_iteration,
    .bare_npy = pg_bare_npy,
    .streams = PG_STREAMS,
};
// clang-format on
