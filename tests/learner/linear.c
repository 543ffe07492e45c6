// linear.c: a learner defined only in the test tree, to prove a program can add one of its own
// (algo.h's algo_register; main.c here registers it): a linear softmax policy over the 80x80
// difference frame, pi = softmax(W x + b) over (NOOP, RIGHT, LEFT), trained by REINFORCE with
// plain gradient ascent. Whole episodes, LINEAR_EPISODES an iteration, each on a pool thread
// with its own gradient, summed in episode order: the same bits on any number of threads. It
// takes only the shared settings (seed, lr, gamma, the env's); hidden is ignored.
#include "linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/learner_util.h"
#include "train/weights_npy.h"

#define LINEAR_A        3                           // actions
#define LINEAR_EPISODES 2                           // episodes an iteration
#define LINEAR_N        (LINEAR_A * (POLICY_D + 1)) // W (A, D), then b (A,)
enum { STREAM_LINEAR = 0x6c696e72 };                // "linr": episode k's env (1), actions (2); init (0)
static const int LINEAR_ACTION_ID[LINEAR_A] = { ACTION_NOOP, ACTION_RIGHT, ACTION_LEFT };

typedef struct {
    double w[LINEAR_N];
    double grad[LINEAR_EPISODES][LINEAR_N];
    EpisodeStats stats[LINEAR_EPISODES];
} Linear;

static Linear *linear_of(const TrainState *s) { return s->algo; }

// ----------------------------------------------------------------------------
// acting: probs = softmax(W x + b), into h (LINEAR_A)

static int linear_act_probs(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *probs) {
    const double *w = ap->net;
    double z[LINEAR_A], top = -INFINITY, sum = 0;
    for (int a = 0; a < LINEAR_A; a++) {
        z[a] = w[LINEAR_A * POLICY_D + a];
        for (int k = 0; k < x.nnz; k++) z[a] += x.sign[k] * w[(size_t)a * POLICY_D + x.idx[k]];
        top = fmax(top, z[a]);
    }
    for (int a = 0; a < LINEAR_A; a++) sum += (probs[a] = exp(z[a] - top));
    int pick = LINEAR_A - 1;
    double c = 0;
    for (int a = 0; a < LINEAR_A; a++) {
        probs[a] /= sum;
        h[a] = probs[a];
    }
    for (int a = 0; a < LINEAR_A; a++)
        if (ap->greedy ? probs[a] > probs[pick] : u < (c += probs[a])) {
            pick = a;
            if (!ap->greedy) break;
        }
    return LINEAR_ACTION_ID[pick];
}

static int linear_act(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *p_up) {
    double probs[LINEAR_A];
    int a = linear_act_probs(ap, x, cur, prev, u, h, probs);
    *p_up = probs[1];
    return a;
}

static AgentPolicy linear_agent(TrainState *s, bool greedy) {
    return (AgentPolicy){ linear_act, linear_of(s)->w, LINEAR_A, greedy, linear_act_probs, LINEAR_ACTION_ID, LINEAR_A };
}

// ----------------------------------------------------------------------------
// one episode and its gradient

typedef struct {
    int T, cap;
    size_t nz, nzcap;
    uint32_t *xoff; // (T + 1) each step's first input entry
    uint16_t *idx;  // (nz) the steps' inputs, sparse
    int8_t *sign;
    double *probs; // (T, A)
    uint8_t *act;  // (T) index into LINEAR_ACTION_ID
    double *ret;   // (T) reward, then its discounted return less their mean
} Episode;

static void *grow(void *p, size_t bytes, bool *ok) {
    void *q = realloc(p, bytes);
    *ok = *ok && q;
    return q ? q : p;
}

// Room for one more step and its input (at most POLICY_D entries). 0, or -1 (out of memory).
static int episode_room(Episode *e) {
    bool ok = true;
    if (e->T + 1 >= e->cap) {
        const size_t cap = e->cap ? 2 * (size_t)e->cap : 1024;
        e->xoff = grow(e->xoff, sizeof(uint32_t) * (cap + 1), &ok);
        e->probs = grow(e->probs, sizeof(double) * LINEAR_A * cap, &ok);
        e->act = grow(e->act, cap, &ok);
        e->ret = grow(e->ret, sizeof(double) * cap, &ok);
        if (ok) e->cap = (int)cap;
    }
    if (ok && e->nz + POLICY_D > e->nzcap) {
        const size_t cap = 2 * (e->nz + POLICY_D);
        e->idx = grow(e->idx, sizeof(uint16_t) * cap, &ok);
        e->sign = grow(e->sign, cap, &ok);
        if (ok) e->nzcap = cap;
    }
    return ok ? 0 : -1;
}

// Episode k played with w (sampling), its gradient into g (LINEAR_N) and its stats into st.
static int episode_play(const TrainConfig *c, const double *w, int64_t k, double *g, EpisodeStats *st) {
    Episode e = { 0 };
    Env *env = env_new_flavour(c->env_id, c->mode, c->difficulty, 0);
    AgentPolicy ap = { linear_act, w, LINEAR_A, false, linear_act_probs, LINEAR_ACTION_ID, LINEAR_A };
    Agent ag;
    int rc = -1;
    if (!env) goto out;
    agent_reset(
        &ag, env, rng_key(c->seed, STREAM_LINEAR, (uint64_t)k, 1), rng_key(c->seed, STREAM_LINEAR, (uint64_t)k, 2));
    memset(st, 0, sizeof(*st));
    for (;;) {
        if (episode_room(&e)) goto out;
        e.xoff[e.T] = (uint32_t)e.nz;
        AgentInput in = { e.idx + e.nz, e.sign + e.nz, 0 };
        double p_up;
        EnvStep s;
        int action = agent_step(&ag, &ap, &in, e.probs + (size_t)e.T * LINEAR_A, &p_up, &s);
        e.nz += (size_t)in.nnz;
        e.act[e.T] = action == ACTION_NOOP ? 0 : action == ACTION_RIGHT ? 1 : 2;
        e.ret[e.T++] = s.reward;
        st->reward_sum += s.reward;
        st->frames += s.frames;
        if (s.terminated || s.truncated) {
            st->truncated = s.truncated;
            break;
        }
    }
    e.xoff[e.T] = (uint32_t)e.nz;
    st->steps = e.T;
    // discounted returns, reset at each point (Karpathy's), less their mean
    double run = 0, mean = 0;
    for (int t = e.T - 1; t >= 0; t--) {
        if (e.ret[t] != 0) run = 0;
        mean += (e.ret[t] = run = run * c->gamma + e.ret[t]);
    }
    mean /= e.T;
    // d log pi(a_t) / d z_a = [a == a_t] - pi_a, times the step's advantage
    memset(g, 0, sizeof(double) * LINEAR_N);
    for (int t = 0; t < e.T; t++)
        for (int a = 0; a < LINEAR_A; a++) {
            const double d = (e.ret[t] - mean) * ((a == e.act[t]) - e.probs[(size_t)t * LINEAR_A + a]);
            for (uint32_t k2 = e.xoff[t]; k2 < e.xoff[t + 1]; k2++)
                g[(size_t)a * POLICY_D + e.idx[k2]] += d * e.sign[k2];
            g[LINEAR_A * POLICY_D + a] += d;
        }
    rc = 0;
out:
    env_free(env);
    free(e.xoff), free(e.idx), free(e.sign), free(e.probs), free(e.act), free(e.ret);
    return rc;
}

// ----------------------------------------------------------------------------
// the learner's slots

typedef struct {
    TrainState *s;
    int failed[LINEAR_EPISODES];
} Play;

static void play_part(void *ctx, int part, int parts) {
    Play *p = ctx;
    Linear *L = linear_of(p->s);
    int lo, hi;
    part_range(LINEAR_EPISODES, part, parts, &lo, &hi);
    for (int e = lo; e < hi; e++)
        p->failed[e] = episode_play(&p->s->cfg, L->w, p->s->episodes + e, L->grad[e], &L->stats[e]);
}

static int linear_iterate(TrainState *s, Pool *pool, Comm *comm, LearnerBatch *lb, char *err, size_t errlen) {
    if (comm->size > 1) {
        snprintf(err, errlen, "--algo linear runs in one process only");
        return -1;
    }
    Linear *L = linear_of(s);
    Play p = { s, { 0 } };
    pool_for(pool, play_part, &p);
    lb->steps = lb->frames = 0;
    for (int e = 0; e < LINEAR_EPISODES; e++) {
        if (p.failed[e]) {
            snprintf(err, errlen, "out of memory, or %s with mode %d and difficulty %d unknown", s->cfg.env_id,
                s->cfg.mode, s->cfg.difficulty);
            return -1;
        }
        lb->steps += L->stats[e].steps;
        lb->frames += L->stats[e].frames;
    }
    for (size_t i = 0; i < LINEAR_N; i++) { // the sum in episode order: the same bits on any thread count
        double g = 0;
        for (int e = 0; e < LINEAR_EPISODES; e++) g += L->grad[e][i];
        L->w[i] += s->cfg.lr * g;
    }
    lb->episodes = L->stats;
    lb->count = LINEAR_EPISODES;
    return 0;
}

static int linear_create(TrainState *s, bool fresh) {
    Linear *L = calloc(1, sizeof(Linear));
    if (!L) return -1;
    s->algo = L;
    if (fresh) {
        Rng r;
        rng_seed(&r, rng_key(s->cfg.seed, STREAM_LINEAR, 0, 0));
        for (size_t i = 0; i < LINEAR_N; i++) L->w[i] = 0.01 * rng_normal(&r);
    }
    return 0;
}

static void linear_destroy(TrainState *s) {
    free(s->algo);
    s->algo = NULL;
}

static int linear_arrays(TrainState *s, LearnerArray *out) {
    out[0] = (LearnerArray){ "weights", linear_of(s)->w, LINEAR_N, false };
    return 1;
}

static void linear_settle(TrainState *s) { (void)s; }
static bool linear_settled(const TrainState *s) { return (void)s, true; }
static double linear_memory_bytes(const TrainConfig *c) { return sizeof(Linear) + c->workers * 8e6; }
static int linear_episodes_per_iteration(const TrainConfig *c) { return (void)c, LINEAR_EPISODES; }

static const double *linear_weights(const TrainState *s, size_t *n) {
    *n = LINEAR_N;
    return linear_of(s)->w;
}

static int npy_arrays(Linear *L, NpyArray *a) {
    a[0] = (NpyArray){ "linear_W.npy", 2, { LINEAR_A, POLICY_D }, L->w };
    a[1] = (NpyArray){ "linear_b.npy", 1, { LINEAR_A, 0 }, L->w + LINEAR_A * POLICY_D };
    return 2;
}

static int linear_export_npy(TrainState *s, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen) {
    ModelNotes notes = { 0 };
    NpyArray a[NPY_ARRAYS_MAX];
    model_notes_network(&notes, POLICY_D, LINEAR_ACTION_ID, LINEAR_A);
    return model_export(dir, &s->cfg, a, npy_arrays(linear_of(s), a), &notes, wrote, wlen, err, errlen);
}

static int linear_import_npy(TrainState *s, const char *dir, const ModelNotes *notes, char *err, size_t errlen) {
    ModelNotes want = { 0 };
    NpyArray a[NPY_ARRAYS_MAX];
    model_notes_network(&want, POLICY_D, LINEAR_ACTION_ID, LINEAR_A);
    if (model_notes_match(dir, notes, &want, "linear", err, errlen) ||
        train_state_attach(s, &LINEAR_LEARNER, err, errlen))
        return -1;
    return npy_arrays_import(dir, a, npy_arrays(linear_of(s), a), err, errlen);
}

static const char *const linear_metrics[] = { NULL };

static const StreamDecl LINEAR_STREAMS[] = { { STREAM_LINEAR, "linr", false }, { 0, NULL, false } };

const Learner LINEAR_LEARNER = {
    .name = "linear",
    .summary = "a test's learner: linear softmax policy over the difference frame, REINFORCE",
    .npy_files = "DIR/linear_W.npy (3, 6400) and DIR/linear_b.npy (3,), float64, with DIR/model.txt",
    LEARNER_SLOTS(linear),
    .episodes_per_iteration = linear_episodes_per_iteration,
    .streams = LINEAR_STREAMS,
};
