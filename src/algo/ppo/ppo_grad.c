// ppo_grad.c: the gradient of one minibatch: the clipped surrogate, the clipped value loss and
// the entropy bonus. W1's gradient is g_r = sum over the samples s with x_s[r] != 0 of
// x_s[r] dh_s, so the work splits in two passes, neither of which writes a W1-sized array:
//   0. the minibatch's rows and their samples (ppo_merge.c's plan);
//   1. per sample, in blocks of PPO_BLOCK samples (the threads', and the ranks', pieces): the
//      forward pass (acnet_forward's, the hidden sum in registers; the minibatch's rows, about
//      1 MB of float32, stay in the core's cache from sample to sample; or, on several threads,
//      the hidden sums by rows first, ppo_rows_forward, the same bits), the block's heads side
//      by side (acnet_heads_batch), the loss, dh_s into
//      p->dh (M, H: cache-resident, rounded to float32), and the block's tail gradient (b1, the
//      heads) as a float64 sum in sample order, added into its thread's exact sum;
//   2. per W1 row (ppo_merge.c): g_r summed over the row's samples in sample order, in float32
//      (W1, its moments and its gradient are float32, and so is their arithmetic: torch's
//      float32 training; the tail and the losses stay float64);
//   3. the global norm (rows ascending, then the tail) clipped, and Adam's step (ppo_adam.c) on
//      each piece of rows by the thread that summed it in 2 (its gradient still in that core's
//      cache), the tail by one thread. A part runs on the same thread every minibatch
//      (pool_for_fixed) and sums the rows whose entries it placed in 0 first: a row's entries,
//      gradient and moments mostly stay with one core (ppo_rows_claim).
// Each sample's values do not depend on who computes them, a row's sum is in sample order
// whoever sums it, and the tail is an exact sum of fixed blocks: the same bits with any number
// of threads and ranks. Under MPI each rank computes a fixed share of the blocks; Comm.allgather
// gives every rank every dh, Comm.reduce the exact tail and the blocks' loss terms (and compares
// the ranks' weights digests); every rank then sums every row and takes the same Adam step.
// The pool runs two jobs a minibatch (a job's start and end cost every thread a wake-up and a
// wait): 0, 1 and the tails' merge, with barriers among the parts between them; then 2 and 3.
#include "ppo_parts.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/workpool.h"

// ----------------------------------------------------------------------------
// the loss of a sample, and a block's pass

// A minibatch's two jobs on the pool (ppo_minibatch_update), each with a barrier among its parts.
typedef struct {
    Ppo *p;
    const int32_t *mb;
    int M, end;      // blocks [next, end) are this rank's
    atomic_int next; // the next block (job 1)
    bool by_rows;    // the hidden sums by rows (ppo_rows_forward)
    const float *dh; // job 2's
    float scale;
    double lr;     // job 2's step
    double sq;     // the gradient's squared norm (job 2, part 0)
    double coef;   // its clip
    AdamStep adam; // the step
    PartBarrier bar;
} GradJob;

// The loss of one sample and its gradient wrt the logits and the value (not divided by M).
// stats += policy loss, value loss, entropy, approx kl, clipped (0/1).
static void sample_loss(const TrainConfig *c, double ent_coef, const double *logits, double v, int a, double old_logp,
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
        dlogits[k] = dlogp * ((k == a ? 1.0 : 0.0) - pk) + ent_coef * pk * (logp[k] + ent);
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

// Samples [lo, hi) of the minibatch (their inputs in the plan): the forward pass (the block's
// heads side by side), the loss, dh into p->dh, and their tail gradients' float64 sum (in
// sample order) into the thread's exact sum.
_Static_assert(PPO_BLOCK <= ACNET_BATCH, "a block's heads are one batch");
static void grad_block(Ppo *p, PpoThread *th, const int32_t *mb, int lo, int hi, bool summed, double *stats) {
    const AcNet *net = &p->net;
    const size_t H = (size_t)net->H, tail_n = net->n - net->tail;
    const int A = net->A;
    double logits[PPO_BLOCK * ACNET_A_MAX], values[PPO_BLOCK], dlogits[ACNET_A_MAX], dv;
    memset(th->gt, 0, sizeof(double) * tail_n);
    for (int i = lo; i < hi; i++)
        if (summed)
            ppo_rows_hidden(p, i, th->h + (size_t)(i - lo) * H);
        else
            acnet_hidden(net, p->plan->xs[i], th->h + (size_t)(i - lo) * H);
    acnet_heads_batch(net, th->h, hi - lo, logits, values);
    for (int i = lo; i < hi; i++) {
        const int s = mb[i], b = i - lo;
        sample_loss(&p->cfg, p->ent_coef, logits + (size_t)b * A, values[b], p->action[s], p->logp[s], p->value[s],
            p->mb_adv[i], p->ret[s], dlogits, &dv, stats);
        acnet_backward_tail(net, th->h + (size_t)b * H, dlogits, dv, th->gt, th->dh);
        float *dh = p->dh + (size_t)i * H;
        for (size_t j = 0; j < H; j++) dh[j] = (float)th->dh[j];
    }
    th->bad |= th->used ? gradsum_add(&th->acc, th->gt, 0, tail_n) : gradsum_set(&th->acc, th->gt, 0, tail_n);
    th->used = true;
}

// Columns [c0, c1) of the threads' exact tail sums into p->tail_sum's tail (zeros where no
// thread had a block). 0, or -1 if a sum passed 2^31.
static int merge_tails(Ppo *p, size_t c0, size_t c1) {
    const size_t tail = p->net.tail, len = p->net.n - tail;
    GradSum dst = { len, p->tail_sum.hi + tail, p->tail_sum.lo + tail };
    bool filled = false;
    int bad = 0;
    for (int i = 0; i < p->threads; i++) {
        if (!p->th[i].used) continue;
        if (filled)
            bad |= gradsum_merge_range(&dst, &p->th[i].acc, c0, c1 - c0);
        else
            gradsum_copy_range(&dst, &p->th[i].acc, c0, c1 - c0);
        filled = true;
    }
    if (!filled) gradsum_zero_range(&dst, c0, c1 - c0);
    return bad;
}

// Job 1, part `part`: its range of the rows' plan counted; (all counted) the prefix by part 0;
// (placed where the prefix says) its range's entries placed; blocks of samples until none is
// left; then (every block done) its share of the tails' columns merged.
static void grad_part(void *ctx, int part, int parts) {
    GradJob *job = ctx;
    Ppo *p = job->p;
    PpoThread *th = &p->th[part];
    ppo_plan_count(p, part);
    part_barrier_wait(&job->bar);
    if (part == 0) ppo_plan_prefix(p);
    part_barrier_wait(&job->bar);
    ppo_plan_place(p, part);
    int b;
    if (job->by_rows) { // every entry placed: the hidden sums by rows
        part_barrier_wait(&job->bar);
        ppo_rows_forward(p, part, parts);
        part_barrier_wait(&job->bar);
    }
    while ((b = atomic_fetch_add(&job->next, 1)) < job->end) {
        const int lo = b * PPO_BLOCK, hi = lo + PPO_BLOCK < job->M ? lo + PPO_BLOCK : job->M;
        grad_block(p, th, job->mb, lo, hi, job->by_rows, p->block_stats + (size_t)b * PPO_N_STATS);
    }
    part_barrier_wait(&job->bar);
    int c0, c1;
    part_range((int)(p->net.n - p->net.tail), part, parts, &c0, &c1);
    th->merge_bad = merge_tails(p, (size_t)c0, (size_t)c1);
}

// Job 2: pieces of rows until none is left; (all summed) the squared norm by part 0: the rows'
// in ascending order, then the tail; (if finite) the step of the pieces this part summed, the
// tail by the last part.
static void update_part(void *ctx, int part, int parts) {
    GradJob *job = ctx;
    Ppo *p = job->p;
    PpoThread *th = &p->th[part];
    ppo_rows_claim(p, th, job->dh, job->scale, part);
    part_barrier_wait(&job->bar);
    if (part == 0) {
        const size_t tail = p->net.tail, tail_n = p->net.n - tail;
        const double *gt = p->gt;
        double sq = 0.0;
        for (int r = 0; r < p->rows.n; r++) sq += p->rowsq[r];
        for (size_t j = 0; j < tail_n; j++) sq += gt[j] * gt[j];
        job->sq = sq;
        if (isfinite(sq)) job->adam = ppo_adam_begin(p, job->lr, sq, &job->coef);
    }
    part_barrier_wait(&job->bar);
    if (!isfinite(job->sq)) return;
    ppo_adam_pieces(p, th, &job->adam, job->coef, part == parts - 1, part);
}

// Under MPI: every rank's dh (rank q's samples [i0_q, i1_q), in rank order: the minibatch's
// order) into p->dh. 0, or -1 with a line in p->why.
static int gather_dh(Ppo *p, int i0, int i1, int M) {
    const size_t H = (size_t)p->net.H, want = sizeof(float) * H * (size_t)M;
    const uint8_t *all;
    const size_t *sizes;
    if (p->comm->allgather(p->comm, p->dh + (size_t)i0 * H, sizeof(float) * H * (size_t)(i1 - i0), &all, &sizes, p->why,
            sizeof(p->why)))
        return -1;
    size_t got = 0;
    for (int q = 0; q < p->comm->size; q++) got += sizes[q];
    if (got != want) {
        snprintf(p->why, sizeof(p->why),
            "the ranks' hidden-layer gradients are %zu bytes, not %zu: a rank runs "
            "another build",
            got, want);
        return -1;
    }
    memcpy(p->dh, all, want);
    return 0;
}

// ----------------------------------------------------------------------------
// the minibatch

int ppo_minibatch_update(Ppo *p, const int32_t *mb, int M, double lr, double *sums, double *norm) {
    const size_t H = (size_t)p->net.H, tail = p->net.tail, tail_n = p->net.n - tail;
    // normalised advantages, in minibatch order (std with Bessel's correction, as torch)
    double mean = 0.0, var = 0.0;
    for (int i = 0; i < M; i++) mean += p->adv[mb[i]];
    mean /= M;
    for (int i = 0; i < M; i++) {
        double d = p->adv[mb[i]] - mean;
        var += d * d;
    }
    const double sd = M > 1 ? sqrt(var / (M - 1)) : 0.0;
    for (int i = 0; i < M; i++) p->mb_adv[i] = (p->adv[mb[i]] - mean) / (sd + PPO_ADV_EPS);

    // the minibatch's inputs, for the samples' pass and the rows' plan
    if (ppo_plan_begin(p, mb, M)) {
        snprintf(p->why, sizeof(p->why), "out of memory");
        return -1;
    }

    for (int i = 0; i < p->threads; i++) {
        p->th[i].used = false;
        p->th[i].bad = 0;
    }
    // this rank's share of the blocks (all of them in one process); the others' loss terms are zeros
    const int blocks = (M + PPO_BLOCK - 1) / PPO_BLOCK;
    int b0, b1;
    comm_share(p->comm, blocks, &b0, &b1);
    memset(p->block_stats, 0, sizeof(double) * (size_t)blocks * PPO_N_STATS);
    // job 1: the plan, the samples' pass, the tails merged
    GradJob job = { .p = p,
        .mb = mb,
        .M = M,
        .end = b1,
        .next = b0,
        .by_rows = ppo_rows_forward_used(p),
        .dh = p->dh,
        .scale = 1.0 / M,
        .lr = lr };
    part_barrier_init(&job.bar, p->threads);
    pool_for_fixed(p->pool, grad_part, &job);
    int bad = 0;
    for (int i = 0; i < p->threads; i++) bad |= p->th[i].bad | p->th[i].merge_bad;
    if (bad) goto diverged;

    // the ranks: every dh to every rank; the tails and the blocks' loss terms summed exactly
    // (each block's are non-zero on the one rank that computed it: summed as integers, every
    // rank has their bits); one process: nothing to do
    const double *tg = NULL;
    if (p->comm && p->comm->size > 1) {
        const int i0 = b0 * PPO_BLOCK < M ? b0 * PPO_BLOCK : M, i1 = b1 * PPO_BLOCK < M ? b1 * PPO_BLOCK : M;
        if (gather_dh(p, i0, i1, M)) return -1;
    }
    if (p->comm) {
        const int nx = blocks * PPO_N_STATS;
        memcpy(p->x, p->block_stats, sizeof(int64_t) * (size_t)nx);
        rowset_clear(&p->none);
        if (p->comm->reduce(
                p->comm, p->pool, &p->tail_sum, &p->none, H, p->x, nx, p->digest, &tg, p->why, sizeof(p->why)))
            return -1;
        memcpy(p->block_stats, p->x, sizeof(int64_t) * (size_t)nx);
    }
    // the tail, times 1/M (the ranks' total is packed after their rows: none)
    const double scale = 1.0 / M;
    double *gt = p->gt;
    if (tg)
        memcpy(gt, tg, sizeof(double) * tail_n);
    else
        gradsum_to_double_range(&p->tail_sum, gt, tail, tail_n);
    for (size_t j = 0; j < tail_n; j++) gt[j] *= scale;

    // job 2: W1's rows' gradients, the norm, the step
    for (int i = 0; i < p->threads; i++) p->digests[i] = 0;
    pool_for_fixed(p->pool, update_part, &job);
    ppo_plan_end(p);
    if (!isfinite(job.sq)) goto diverged;
    *norm = sqrt(job.sq);
    for (int i = 0; i < p->threads; i++) p->digest += p->digests[i];

    for (int k = 0; k < PPO_N_STATS; k++) sums[k] = 0.0;
    for (int b = 0; b < blocks; b++)
        for (int k = 0; k < PPO_N_STATS; k++) sums[k] += p->block_stats[(size_t)b * PPO_N_STATS + k];
    for (int k = 0; k < PPO_N_STATS; k++) sums[k] /= M;
    return 0;
diverged:
    snprintf(p->why, sizeof(p->why),
        "iteration %lld: a gradient sum passed 2^31 or is not finite "
        "(training diverged; try a smaller --lr)",
        (long long)p->iteration);
    return -1;
}
