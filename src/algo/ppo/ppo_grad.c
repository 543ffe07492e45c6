// ppo_grad.c: the gradient of one minibatch: the clipped surrogate, the clipped value loss and
// the entropy bonus of each sample, in float64 over fixed chunks of the minibatch (the work the
// threads, and the ranks, share), each chunk's sum added exactly into its thread's fixed-point
// sum; then ppo_merge.c adds the threads' (and ranks') sums. A chunk's float64 sum does not
// depend on who computes it, the exact sum not on who adds what: the same bits with any number
// of threads and ranks.
#include "ppo_parts.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// per-thread scratch

void ppo_thread_free(PpoThread *t) {
    free(t->g); free(t->fresh); free(t->h); free(t->dh);
    rowset_free(&t->crows); rowset_free(&t->used);
    gradsum_free(&t->acc);
}

int ppo_thread_alloc(PpoThread *t, const AcNet *net) {
    memset(t, 0, sizeof(*t));
    t->g = big_calloc(net->n, sizeof(double));
    t->fresh = calloc((size_t)net->D, 1);
    t->h = calloc((size_t)net->H, sizeof(double));
    t->dh = calloc((size_t)net->H, sizeof(double));
    if (!t->g || !t->fresh || !t->h || !t->dh || rowset_alloc(&t->crows, net->D) ||
        rowset_alloc(&t->used, net->D) || gradsum_alloc(&t->acc, net->n)) { ppo_thread_free(t); return -1; }
    return 0;
}

// ----------------------------------------------------------------------------
// the loss of a sample, and a chunk's gradient

typedef struct {
    Ppo *p;
    const int32_t *mb;
    int M, end;               // chunks [next, end) are this rank's
    atomic_int next;
} GradJob;

// The loss of one sample and its gradient wrt the logits and the value (not divided by M).
// stats += policy loss, value loss, entropy, approx kl, clipped (0/1).
static void sample_loss(const TrainConfig *c, const double *logits, double v, int a, double old_logp,
                        double old_v, double adv, double ret, double *dlogits, double *dv, double *stats) {
    double logp[ACNET_A_MAX];
    const int A = PPO_ACTIONS;
    const double ent = acnet_log_softmax(logits, A, logp);
    const double logratio = logp[a] - old_logp, ratio = exp(logratio);
    const double clipped = ratio < 1.0 - c->clip ? 1.0 - c->clip : ratio > 1.0 + c->clip ? 1.0 + c->clip : ratio;
    const double pg1 = -adv * ratio, pg2 = -adv * clipped;
    // d(max(pg1, pg2))/dlogp: through pg1 (ratio' = ratio) unless the clipped term is larger
    const double dlogp = pg1 >= pg2 ? -adv * ratio : 0.0;
    for (int k = 0; k < A; k++) {
        const double pk = exp(logp[k]);
        dlogits[k] = dlogp * ((k == a ? 1.0 : 0.0) - pk) + c->ent_coef * pk * (logp[k] + ent);
    }
    // value: 0.5 max((v - R)^2, (v_old + clip(v - v_old, -c, c) - R)^2)
    const double dvv = v - old_v;
    const double vc = old_v + (dvv < -c->clip ? -c->clip : dvv > c->clip ? c->clip : dvv);
    const double l1 = (v - ret) * (v - ret), l2 = (vc - ret) * (vc - ret);
    const bool inside = dvv >= -c->clip && dvv <= c->clip;
    *dv = c->vf_coef * (l1 >= l2 ? v - ret : inside ? vc - ret : 0.0);
    stats[0] += pg1 >= pg2 ? pg1 : pg2;
    stats[1] += 0.5 * (l1 >= l2 ? l1 : l2);
    stats[2] += ent;
    stats[3] += (ratio - 1.0) - logratio;
    stats[4] += fabs(ratio - 1.0) > c->clip ? 1.0 : 0.0;
}

// The update's loops walk W1's rows at scattered places (15 MB arrays at H = 128): each loop
static void grad_chunk(Ppo *p, PpoThread *th, const int32_t *mb, int lo, int hi, double *stats) {
    const AcNet *net = &p->net;
    const size_t H = (size_t)net->H;
    const size_t tail_n = net->n - net->tail;
    double logits[ACNET_A_MAX], dlogits[ACNET_A_MAX], dv;
    rowset_clear(&th->crows);
    memset(th->g + net->tail, 0, sizeof(double) * tail_n);
    for (int i = lo; i < hi; i++) {
        const int s = mb[i];
        SparseX x = ppo_sample_x(p, s);
        for (int k = 0; k < x.nnz; k++) th->fresh[k] = rowset_add(&th->crows, x.idx[k]);
        const double v = acnet_forward(net, x, th->h, logits);
        sample_loss(&p->cfg, logits, v, p->action[s], p->logp[s], p->value[s], p->mb_adv[i], p->ret[s],
                    dlogits, &dv, stats);
        acnet_backward(net, x, th->h, dlogits, dv, th->g, th->dh, th->fresh);
    }
    int bad = 0;
    for (int r = 0; r < th->crows.n; r++) {
        if (r + MEM_AHEAD_ROWS < th->crows.n) ppo_prefetch_sum_row(&th->acc, th->g, (size_t)th->crows.list[r + MEM_AHEAD_ROWS] * H, H);
        const size_t off = (size_t)th->crows.list[r] * H;
        bad |= rowset_add(&th->used, th->crows.list[r]) ? gradsum_set(&th->acc, th->g, off, H)
                                                         : gradsum_add(&th->acc, th->g, off, H);
    }
    bad |= th->tail_used ? gradsum_add(&th->acc, th->g, net->tail, tail_n) : gradsum_set(&th->acc, th->g, net->tail, tail_n);
    th->tail_used = true;
    th->bad |= bad;
}

static void grad_part(void *ctx, int part, int parts) {
    (void)parts;
    GradJob *job = ctx;
    Ppo *p = job->p;
    PpoThread *th = &p->th[part];
    const int C = p->cfg.chunk;
    int c;
    while ((c = atomic_fetch_add(&job->next, 1)) < job->end) {
        double *st = p->chunk_stats + (size_t)c * PPO_N_STATS;
        memset(st, 0, sizeof(double) * PPO_N_STATS);
        grad_chunk(p, th, job->mb, c * C, c * C + C < job->M ? c * C + C : job->M, st);
    }
}


// ----------------------------------------------------------------------------
// the minibatch

int ppo_minibatch_grad(Ppo *p, const int32_t *mb, int M, double *sums) {
    // normalised advantages, in minibatch order (std with Bessel's correction, as torch)
    double mean = 0.0, var = 0.0;
    for (int i = 0; i < M; i++) mean += p->adv[mb[i]];
    mean /= M;
    for (int i = 0; i < M; i++) { double d = p->adv[mb[i]] - mean; var += d * d; }
    const double sd = M > 1 ? sqrt(var / (M - 1)) : 0.0;
    for (int i = 0; i < M; i++) p->mb_adv[i] = (p->adv[mb[i]] - mean) / (sd + PPO_ADV_EPS);

    for (int i = 0; i < p->threads; i++) {
        rowset_clear(&p->th[i].used);
        p->th[i].tail_used = false;
        p->th[i].bad = 0;
    }
    // this rank's share of the chunks (all of them in one process); the others' loss terms are zeros
    const int chunks = (M + p->cfg.chunk - 1) / p->cfg.chunk;
    const int rank = p->comm ? p->comm->rank : 0, ranks = p->comm ? p->comm->size : 1;
    const int c0 = (int)((int64_t)chunks * rank / ranks), c1 = (int)((int64_t)chunks * (rank + 1) / ranks);
    memset(p->chunk_stats, 0, sizeof(double) * (size_t)chunks * PPO_N_STATS);
    GradJob job = { p, mb, M, c1, c0 };
    pool_for(p->pool, grad_part, &job);
    int bad = 0;
    for (int i = 0; i < p->threads; i++) bad |= p->th[i].bad;
    if (bad) goto diverged;

    // the threads' sums, then the ranks'
    const int merged = ppo_merge(p, M, chunks);
    if (merged < 0) return -1;
    if (merged > 0) goto diverged;

    for (int k = 0; k < PPO_N_STATS; k++) sums[k] = 0.0;
    for (int c = 0; c < chunks; c++)
        for (int k = 0; k < PPO_N_STATS; k++) sums[k] += p->chunk_stats[(size_t)c * PPO_N_STATS + k];
    for (int k = 0; k < PPO_N_STATS; k++) sums[k] /= M;
    return 0;
diverged:
    snprintf(p->why, sizeof(p->why), "iteration %lld: a gradient sum passed 2^31 or is not finite "
             "(training diverged; try a smaller --lr)", (long long)p->iteration);
    return -1;
}
