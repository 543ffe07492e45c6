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

void ppo_destroy(Ppo *p) {
    if (!p) return;
    if (p->th)
        for (int i = 0; i < p->threads; i++) ppo_thread_free(&p->th[i]);
    free(p->th);
    ppo_plan_free(p->plan);
    if (p->xidx)
        for (int e = 0; e < p->cfg.envs; e++) {
            free(p->xidx[e]);
            free(p->xsign[e]);
        }
    vecenv_free(p->venv);
    gradsum_free(&p->tail_sum);
    rowset_free(&p->rows);
    rowset_free(&p->none);
    acnet_free(&p->net);
    mem_free_all(p->xidx, p->xsign, p->xcap, p->xoff, p->envs, p->action, p->logp, p->value, p->reward, p->adv, p->ret,
        p->done, p->next_value, p->ended, p->ended_slot, p->ended_stats, p->perm, p->mb_adv, p->dh, p->hacc, p->rowsq,
        p->gw1, p->gt, p->block_stats, p->row_at, p->row_off, p->ent, p->wire.p, p->x, p->digests, p->adam_m, p->adam_v,
        p->adam_mt, p->adam_vt, p);
}

void ppo_free(void *p) { ppo_destroy(p); }

// The arrays of p for settings cfg, its network drawn, its envs started. 0, or -1 (out of memory).
static int ppo_make(void *obj, const TrainConfig *cfg) {
    Ppo *p = obj;
    p->cfg = *cfg;
    const int N = cfg->envs, T = cfg->steps;
    const size_t B = (size_t)N * T;
    const int M = (int)(B / (size_t)cfg->minibatches);
    const int blocks = (M + PPO_BLOCK - 1) / PPO_BLOCK;
    if (acnet_alloc(&p->net, ppo_input_size(cfg->coarse), cfg->hidden, PPO_ACTIONS)) return -1;
    p->net.Hv = ppo_value_units(cfg);
    acnet_init_random(&p->net, stream_ppo_init(cfg->seed));
    p->adam_m = big_calloc(p->net.tail, sizeof(float));
    p->adam_v = big_calloc(p->net.tail, sizeof(float));
    p->adam_mt = calloc(p->net.n - p->net.tail, sizeof(double));
    p->adam_vt = calloc(p->net.n - p->net.tail, sizeof(double));
    p->envs = calloc((size_t)N, sizeof(PpoEnv));
    p->xoff = calloc((size_t)N * (T + 1), sizeof(uint32_t));
    p->xidx = calloc((size_t)N, sizeof(uint16_t *));
    p->xsign = calloc((size_t)N, sizeof(int8_t *));
    p->xcap = calloc((size_t)N, sizeof(size_t));
    p->action = calloc(B, 1);
    p->done = calloc(B, 1);
    p->logp = calloc(B, sizeof(double));
    p->value = calloc(B, sizeof(double));
    p->reward = calloc(B, sizeof(double));
    p->adv = calloc(B, sizeof(double));
    p->ret = calloc(B, sizeof(double));
    p->next_value = calloc((size_t)N, sizeof(double));
    p->ended = calloc(B, sizeof(PpoEpisode));
    p->ended_slot = calloc(B, sizeof(PpoEpisode));
    p->ended_stats = calloc(B, sizeof(EpisodeStats));
    p->perm = calloc(B, sizeof(int32_t));
    p->mb_adv = calloc((size_t)M, sizeof(double));
    p->dh = calloc((size_t)M * (size_t)cfg->hidden, sizeof(float));
    p->hacc = calloc((size_t)M * (size_t)cfg->hidden, sizeof(float));
    // calloc, not big_calloc: only the tail is ever written (the rest is the transport's shape)
    p->tail_sum = (GradSum){ p->net.n, calloc(p->net.n, sizeof(int64_t)), calloc(p->net.n, sizeof(int64_t)) };
    p->rowsq = calloc((size_t)p->net.D, sizeof(double));
    p->gw1 = big_calloc(p->net.tail, sizeof(float));
    p->gt = calloc(p->net.n - p->net.tail, sizeof(double));
    p->row_at = calloc((size_t)p->net.D, sizeof(size_t));
    p->row_off = calloc((size_t)p->net.D + 1, sizeof(size_t));
    p->block_stats = calloc((size_t)blocks * PPO_N_STATS, sizeof(double));
    p->x = calloc((size_t)blocks * PPO_N_STATS, sizeof(int64_t));
    p->env0 = 0;
    p->env1 = N;
    if (!p->x || !p->dh || !p->hacc || !p->tail_sum.hi || !p->tail_sum.lo || !p->row_at || !p->row_off || !p->adam_m ||
        !p->adam_v || !p->adam_mt || !p->adam_vt || !p->envs || !p->xoff || !p->xidx || !p->xsign || !p->xcap ||
        !p->action || !p->done || !p->logp || !p->value || !p->reward || !p->adv || !p->ret || !p->next_value ||
        !p->ended || !p->ended_slot || !p->ended_stats || !p->perm || !p->mb_adv || !p->rowsq || !p->gw1 || !p->gt ||
        !p->block_stats || rowset_alloc(&p->rows, p->net.D) || rowset_alloc(&p->none, p->net.D))
        return -1;
    if (ppo_envs_start(p)) return -1;
    p->ent_coef = annealed_ent_coef(p);
    ppo_sticky_set(p, 0);
    return 0;
}

Ppo *ppo_create(const TrainConfig *cfg, char *err, size_t errlen) {
    return learner_object_create(cfg, ppo_check, sizeof(Ppo), ppo_make, ppo_free, err, errlen);
}

// Each of n threads' scratch (PpoThread), digest and part of the rows' plan, made again for n.
static int ppo_threads(Ppo *p, int n) {
    for (int i = 0; i < p->threads; i++) ppo_thread_free(&p->th[i]);
    free(p->th);
    free(p->digests);
    ppo_plan_free(p->plan);
    p->threads = 0;
    p->th = calloc((size_t)n, sizeof(PpoThread));
    p->digests = calloc((size_t)n, sizeof(uint64_t));
    p->plan = ppo_plan_alloc(n, p->net.D);
    if (!p->th || !p->digests || !p->plan) return -1;
    for (int i = 0; i < n; i++) {
        if (ppo_thread_alloc(&p->th[i], &p->net, n)) return -1;
        p->threads = i + 1;
    }
    return 0;
}

int ppo_bind(Ppo *p, Pool *pool, Comm *comm) { return LEARNER_BIND(p, pool, comm, ppo_threads); }
