// ppo.c: one PPO iteration (ppo.h), read from the top: a rollout of every env (ppo_rollout.c,
// the envs in ppo_envs.c, the ranks' exchange in ppo_wire.c), GAE (ppo_gae.c), then epochs of
// shuffled minibatches, each a gradient (ppo_grad.c per sample, ppo_merge.c per W1 row) and a
// step of Adam (ppo_adam.c). Below it: the learner's memory made and freed.
#include "ppo_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/clock.h"
#include "../learner_util.h"
#include "../../util/rng.h"
#include "ppo_streams.h"

// ----------------------------------------------------------------------------
// one iteration

static double annealed_lr(const Ppo *p);
static double annealed_ent_coef(const Ppo *p);
static void shuffle(Ppo *p, int epoch);
static double explained_variance(const Ppo *p);

int ppo_iteration(Ppo *p, PpoStats *st, char *err, size_t errlen) {
    const TrainConfig *c = &p->cfg;
    const int B = c->envs * c->steps, M = B / c->minibatches;
    memset(st, 0, sizeof(*st));
    st->lr = annealed_lr(p);
    p->ent_coef = annealed_ent_coef(p);
    ppo_sticky_set(p, p->agent_steps);
    double t0 = clock_now_s();
    if (ppo_collect(p)) {
        snprintf(err, errlen, "%s", p->why);
        return -1;
    }
    ppo_advantages(p);
    double t1 = clock_now_s();
    double sums[PPO_N_STATS], acc[PPO_N_STATS] = { 0 }, gn = 0.0;
    int steps = 0;
    for (int ep = 0; ep < c->epochs; ep++) {
        shuffle(p, ep);
        for (int m = 0; m < c->minibatches; m++) {
            double norm;
            if (ppo_minibatch_update(p, p->perm + (size_t)m * M, M, st->lr, sums, &norm)) {
                snprintf(err, errlen, "%s", p->why);
                return -1;
            }
            gn += norm;
            for (int k = 0; k < PPO_N_STATS; k++) acc[k] += sums[k];
            steps++;
        }
    }
    st->policy_loss = acc[0] / steps;
    st->value_loss = acc[1] / steps;
    st->entropy = acc[2] / steps;
    st->approx_kl = acc[3] / steps;
    st->clip_frac = acc[4] / steps;
    st->grad_norm = gn / steps;
    st->explained_var = explained_variance(p);
    st->rollout_s = t1 - t0;
    st->update_s = clock_now_s() - t1;
    p->iteration++;
    p->last = *st;
    // the envs as the next iteration plays them, so that a checkpoint taken now holds them so
    ppo_sticky_set(p, p->agent_steps);
    return 0;
}

// Adam's learning rate, falling linearly to zero over anneal_steps agent steps.
static double annealed_lr(const Ppo *p) {
    const TrainConfig *c = &p->cfg;
    double frac = c->anneal_steps > 0 ? 1.0 - (double)p->agent_steps / (double)c->anneal_steps : 1.0;
    return c->lr * (frac > 0.0 ? frac : 0.0);
}

// The entropy coefficient, falling linearly to zero over ent_anneal_steps agent steps (RLlib's
// Pong setting: the bonus explores early and stops blurring the policy late).
static double annealed_ent_coef(const Ppo *p) {
    const TrainConfig *c = &p->cfg;
    if (c->ent_anneal_steps <= 0) return c->ent_coef;
    double frac = 1.0 - (double)p->agent_steps / (double)c->ent_anneal_steps;
    return c->ent_coef * (frac > 0.0 ? frac : 0.0);
}

// From p's agent steps alone, never from who plays: the same seed plays the same games with
// any thread or rank count, and a resumed run sets what the stopped one had. The draw that
// keeps an action stays the env's own (env_step), so the envs' streams are as without it.
void ppo_sticky_set(Ppo *p, int64_t agent_steps) {
    const TrainConfig *c = &p->cfg;
    const EnvPreset *preset = env_preset_find(c->env_id);
    if (!preset || c->sticky_warmup <= 0) return; // the envs keep their preset's
    double frac = (double)agent_steps / (double)c->sticky_warmup;
    const double prob = frac < 1.0 ? preset->repeat_prob * frac : preset->repeat_prob;
    for (int e = 0; e < c->envs; e++) vecenv_set_repeat_prob(p->venv, e, prob);
}

// p->perm: the samples in the order of epoch `epoch`, Fisher-Yates from the epoch's own stream.
static void shuffle(Ppo *p, int epoch) {
    const int B = p->cfg.envs * p->cfg.steps;
    Rng rng;
    rng_seed(&rng, stream_ppo_perm(p->cfg.seed, (uint64_t)p->iteration, (uint64_t)epoch));
    for (int i = 0; i < B; i++) p->perm[i] = i;
    for (int i = B - 1; i > 0; i--) {
        int j = (int)rng_below(&rng, (uint64_t)i + 1);
        int32_t tmp = p->perm[i];
        p->perm[i] = p->perm[j];
        p->perm[j] = tmp;
    }
}

// How much of the returns' variance the values explain, over the batch (NaN: returns all equal).
static double explained_variance(const Ppo *p) {
    const int B = p->cfg.envs * p->cfg.steps;
    double mr = 0.0, md = 0.0;
    for (int s = 0; s < B; s++) {
        mr += p->ret[s];
        md += p->ret[s] - p->value[s];
    }
    mr /= B;
    md /= B;
    double vr = 0.0, vd = 0.0;
    for (int s = 0; s < B; s++) {
        double a = p->ret[s] - mr, d = p->ret[s] - p->value[s] - md;
        vr += a * a;
        vd += d * d;
    }
    return vr > 0.0 ? 1.0 - vd / vr : NAN;
}

// ----------------------------------------------------------------------------
// settings

const char *ppo_check(const TrainConfig *c) {
    if ((int64_t)c->envs * c->steps > 16777216) return "--envs x --steps must be at most 2^24";
    if (c->minibatches > c->envs * c->steps) return "--minibatches must be in [1, envs x steps]";
    if (ppo_value_units(c) >= c->hidden)
        return "--value-hidden must be less than --hidden (the policy keeps at least one of the H units), or -1 for "
               "H/2";
    return NULL;
}

// ----------------------------------------------------------------------------
// create / destroy

// The learner's arrays, each declared once: its field, element type, length (from the sizes z
// of ppo_make) and block (util/arrays.h: one mapping each). ppo_make points them all, ppo_destroy
// frees them; ppo.h says what each holds. The weights, the moments and the envs are what a
// checkpoint holds (ppo_learner.c's held parts, as float64 in the network's layout, and the
// envs' games beside them); the rest is made again by a run that resumes. Outside the table:
// what grows as a rollout's inputs or a minibatch's entries need (xidx[e], xsign[e], ent,
// wire.p: realloc), the envs' games (venv), the rows' sets and the threads' scratch (ppo_bind).
enum { PPO_WEIGHTS, PPO_MOMENTS, PPO_ENVS, PPO_ROLLOUT, PPO_UPDATE };
#define PPO_ARRAYS(X) \
    X(net.w1, float, z.w1, PPO_WEIGHTS) \
    X(net.t, double, z.tailn, PPO_WEIGHTS) \
    X(adam_m, float, z.w1, PPO_MOMENTS) \
    X(adam_v, float, z.w1, PPO_MOMENTS) \
    X(adam_mt, double, z.tailn, PPO_MOMENTS) \
    X(adam_vt, double, z.tailn, PPO_MOMENTS) \
    X(envs, PpoEnv, z.N, PPO_ENVS) \
    X(xoff, uint32_t, z.xoff, PPO_ROLLOUT) \
    X(xidx, uint16_t *, z.N, PPO_ROLLOUT) \
    X(xsign, int8_t *, z.N, PPO_ROLLOUT) \
    X(xcap, size_t, z.N, PPO_ROLLOUT) \
    X(action, uint8_t, z.B, PPO_ROLLOUT) \
    X(done, uint8_t, z.B, PPO_ROLLOUT) \
    X(logp, double, z.B, PPO_ROLLOUT) \
    X(value, double, z.B, PPO_ROLLOUT) \
    X(reward, double, z.B, PPO_ROLLOUT) \
    X(adv, double, z.B, PPO_ROLLOUT) \
    X(ret, double, z.B, PPO_ROLLOUT) \
    X(next_value, double, z.N, PPO_ROLLOUT) \
    X(ended, PpoEpisode, z.B, PPO_ROLLOUT) \
    X(ended_slot, PpoEpisode, z.B, PPO_ROLLOUT) \
    X(ended_stats, EpisodeStats, z.B, PPO_ROLLOUT) \
    X(perm, int32_t, z.B, PPO_UPDATE) \
    X(mb_adv, double, z.M, PPO_UPDATE) \
    X(dh, float, z.MH, PPO_UPDATE) \
    X(hacc, float, z.MH, PPO_UPDATE) \
    X(tail_sum.hi, int64_t, z.n, PPO_UPDATE) /* only [tail, n) is ever written, */ \
    X(tail_sum.lo, int64_t, z.n, PPO_UPDATE) /* so only it is ever resident */ \
    X(rowsq, double, z.D, PPO_UPDATE) \
    X(gw1, float, z.w1, PPO_UPDATE) \
    X(gt, double, z.tailn, PPO_UPDATE) \
    X(row_at, size_t, z.D, PPO_UPDATE) \
    X(row_off, size_t, z.D + 1, PPO_UPDATE) \
    X(block_stats, double, z.stats, PPO_UPDATE) \
    X(x, int64_t, z.stats, PPO_UPDATE)

static void ppo_threads_free(Ppo *p);

void ppo_destroy(Ppo *p) {
    if (!p) return;
    ppo_threads_free(p);
    if (p->xidx)
        for (int e = 0; e < p->cfg.envs; e++) mem_free_all(p->xidx[e], p->xsign[e]);
    vecenv_free(p->venv);
    rowset_free(&p->rows);
    rowset_free(&p->none);
    arrays_free(&p->mem);
    mem_free_all(p->ent, p->wire.p, p);
}

void ppo_free(void *p) { ppo_destroy(p); }

// The arrays of p for settings cfg, its network drawn, its envs started. 0, or -1 (out of memory).
static int ppo_make(void *obj, const TrainConfig *cfg) {
    Ppo *p = obj;
    p->cfg = *cfg;
    acnet_shape(&p->net, ppo_input_size(cfg->coarse), cfg->hidden, PPO_ACTIONS);
    p->net.Hv = ppo_value_units(cfg);
    struct {
        size_t N, xoff, B, M, MH, stats, D, n, w1, tailn;
    } z = { (size_t)cfg->envs, 0, (size_t)cfg->envs * (size_t)cfg->steps, 0, 0, 0, (size_t)p->net.D, p->net.n,
        p->net.tail, p->net.n - p->net.tail };
    z.xoff = z.N * ((size_t)cfg->steps + 1);
    z.M = z.B / (size_t)cfg->minibatches;
    z.MH = z.M * (size_t)p->net.H;
    z.stats = (z.M + PPO_BLOCK - 1) / PPO_BLOCK * PPO_N_STATS;
#define X(FIELD, TYPE, LEN, BLOCK) { sizeof(TYPE), (LEN), (BLOCK), NULL },
    ArraySpec spec[] = { PPO_ARRAYS(X) };
#undef X
    if (arrays_make(spec, (int)(sizeof(spec) / sizeof(spec[0])), &p->mem)) return -1;
    int i = 0;
#define X(FIELD, TYPE, LEN, BLOCK) p->FIELD = (TYPE *)spec[i++].at;
    PPO_ARRAYS(X)
#undef X
    p->tail_sum.n = z.n;
    p->env0 = 0;
    p->env1 = cfg->envs;
    if (rowset_alloc(&p->rows, p->net.D) || rowset_alloc(&p->none, p->net.D)) return -1;
    acnet_init_random(&p->net, stream_ppo_init(cfg->seed));
    if (ppo_envs_start(p)) return -1;
    p->ent_coef = annealed_ent_coef(p);
    ppo_sticky_set(p, 0);
    return 0;
}

Ppo *ppo_create(const TrainConfig *cfg, char *err, size_t errlen) {
    return learner_object_create(cfg, ppo_check, sizeof(Ppo), ppo_make, ppo_free, err, errlen);
}

// What ppo_bind makes for a pool of z.n threads, in one block: each thread's scratch (PpoThread),
// digest and the rows' plan (ppo_parts.h); then each thread's own arrays, every one on lines of
// its own (no two threads' scratch shares a line: mem.h's MEM_PAD). The plan's inputs and cuts
// (ppo_merge.c) grow with the minibatch it is given, outside it.
#define PPO_BIND_ARRAYS(X) \
    X(th, PpoThread, z.n) \
    X(digests, uint64_t, z.n) \
    X(plan, PpoPlan, 1) \
    X(plan->bound, int, z.n + 1) \
    X(plan->unit_ents, size_t, z.units) \
    X(plan->cnt, uint32_t, z.rows) \
    X(plan->list, uint16_t, z.rows) \
    X(plan->part, PpoPlanPart, z.n)
#define PPO_THREAD_ARRAYS(X) \
    X(h, double, PPO_BLOCK *z.H) \
    X(dh, double, z.H) \
    X(gt, double, z.tailn) \
    X(acc.hi, int64_t, z.tailn) \
    X(acc.lo, int64_t, z.tailn) \
    X(pieces, int, 2 * (z.D / PPO_ROW_PIECE + z.n + 1))

static void ppo_threads_free(Ppo *p) {
    if (p->plan) ppo_plan_free(p->plan);
    arrays_free(&p->bind_mem);
    p->th = NULL;
    p->digests = NULL;
    p->plan = NULL;
    p->threads = 0;
}

// Each of n threads' scratch (PpoThread), digest and part of the rows' plan, made again for n.
static int ppo_threads(Ppo *p, int n) {
    ppo_threads_free(p);
    struct {
        size_t n, units, rows, D, H, tailn;
    } z = { (size_t)n, ((size_t)p->net.D + PPO_PLAN_ROWS - 1) / PPO_PLAN_ROWS, 0, (size_t)p->net.D, (size_t)p->net.H,
        p->net.n - p->net.tail };
    z.rows = z.units * PPO_PLAN_ROWS;
#define X(FIELD, TYPE, LEN) { sizeof(TYPE), (LEN), 0, NULL },
    const ArraySpec bind[] = { PPO_BIND_ARRAYS(X) }, each[] = { PPO_THREAD_ARRAYS(X) };
#undef X
    enum { NB = sizeof(bind) / sizeof(bind[0]), NE = sizeof(each) / sizeof(each[0]) };
    ArraySpec spec[NB + NE * n];
    memcpy(spec, bind, sizeof(bind));
    for (int i = 0; i < n; i++) memcpy(spec + NB + (size_t)NE * i, each, sizeof(each));
    if (arrays_make(spec, NB + NE * n, &p->bind_mem)) return -1;
    int k = 0;
#define X(FIELD, TYPE, LEN) p->FIELD = (TYPE *)spec[k++].at;
    PPO_BIND_ARRAYS(X)
#undef X
#define X(FIELD, TYPE, LEN) t->FIELD = (TYPE *)spec[k++].at;
    for (int i = 0; i < n; i++) {
        PpoThread *t = &p->th[i];
        PPO_THREAD_ARRAYS(X)
        t->acc.n = z.tailn;
    }
#undef X
    ppo_plan_init(p->plan, n, p->net.D);
    p->threads = n;
    return 0;
}

int ppo_bind(Ppo *p, Pool *pool, Comm *comm) { return LEARNER_BIND(p, pool, comm, ppo_threads); }
