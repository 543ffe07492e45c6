// qr_update.c: one update of QR-DQN (qrdqn.h): a minibatch drawn uniformly from the replay
// memory, each transition's quantile Huber loss against its n-step target (the pool's threads
// share the transitions by fixed ranges: each one's forward passes are its own), then the
// gradient and one step of Adam (lazy on W1: only the rows the minibatch's inputs touched) in
// one pass, the threads sharing the columns: each column's sum in sample order and its step
// are one thread's. Then the target network's copy when due. No sum depends on the threads:
// the same bits on any number.
#include "qrdqn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../rl/adam.h"
#include "../../util/streams.h"

// The quantile Huber loss of Dabney et al. (Dopamine's quantile_agent): with u_ij = tgt_j -
// qa_i, tau_i = (2i + 1) / 2N,
//   loss = sum_i mean_j |tau_i - 1{u_ij < 0}| huber(u_ij) / kappa,
//   huber(u) = u^2 / 2 (|u| <= kappa), else kappa (|u| - kappa / 2);
// the targets are constants (no gradient flows into the target network).
double qr_quantile_loss(const double *qa, const double *tgt, int N, double *dq) {
    double loss = 0.0;
    for (int i = 0; i < N; i++) {
        const double tau = (2.0 * i + 1.0) / (2.0 * N);
        double li = 0.0, gi = 0.0;
        for (int j = 0; j < N; j++) {
            const double u = tgt[j] - qa[i], au = fabs(u);
            const double wgt = fabs(tau - (u < 0.0 ? 1.0 : 0.0));
            const double hub = au <= QR_KAPPA ? 0.5 * u * u : QR_KAPPA * (au - 0.5 * QR_KAPPA);
            const double dhub = au <= QR_KAPPA ? u : (u > 0.0 ? QR_KAPPA : -QR_KAPPA); // d huber / du
            li += wgt * hub / QR_KAPPA;
            gi -= wgt * dhub / QR_KAPPA; // du / dqa_i = -1
        }
        loss += li / N;
        dq[i] = gi / N;
    }
    return loss;
}

// The input of slot k's state (its frame, and the previous slot of its env unless it starts
// an episode; cur and prev: room for two frames) into idx/sign; returns its count.
static int state_input(const Qr *q, int64_t k, uint8_t *cur, uint8_t *prev, uint16_t *idx, int8_t *sign) {
    qr_replay_frame(&q->mem, k, cur);
    if (q->mem.flags[(size_t)(k % q->mem.cap)] & QR_START)
        memset(prev, 0, POLICY_D);
    else
        qr_replay_frame(&q->mem, k - q->cfg.envs, prev);
    return sparse_input(cur, prev, true, idx, sign);
}

// A thread's scratch for one transition (the frames and the next state's input on its stack).
typedef struct {
    uint8_t cur[POLICY_D], prev[POLICY_D];
    uint16_t idx[SPARSE_INPUT_MAX];
    int8_t sign[SPARSE_INPUT_MAX];
    double *h, *q; // (H), (A N): the pool's thread's
} Scratch;

// The n-step target of slot k into tgt (N): R = sum_m gamma^m r_{k + m N} up to the episode's
// end or n steps, plus gamma^n q'(s_{k + n N}, a*) where it did not end.
static void target_of(const Qr *q, int64_t k, double *tgt, Scratch *t) {
    const int N = q->sh.N, E = q->cfg.envs;
    double R = 0.0, disc = 1.0;
    bool ended = false;
    for (int m = 0; m < q->cfg.nstep && !ended; m++) {
        const size_t s = (size_t)((k + (int64_t)m * E) % q->mem.cap);
        R += disc * q->mem.reward[s];
        disc *= q->cfg.gamma;
        ended = q->mem.flags[s] & QR_DONE;
    }
    if (ended) {
        for (int j = 0; j < N; j++) tgt[j] = R;
        return;
    }
    const int nnz = state_input(q, k + (int64_t)q->cfg.nstep * E, t->cur, t->prev, t->idx, t->sign);
    qr_forward(&q->sh, q->target, (SparseX){ nnz, t->idx, t->sign }, t->h, t->q);
    const int a = qr_greedy(&q->sh, t->q, NULL);
    for (int j = 0; j < N; j++) tgt[j] = R + disc * t->q[a * N + j];
}

// Transition b of the minibatch: its input (q->xs), hidden layer (q->hs), the loss's gradient
// wrt its action's quantiles (q->dqs), its loss and its action's mean quantile (q->terms).
static void sample_pass(Qr *q, int b, Scratch *t) {
    const int H = q->sh.H, N = q->sh.N, stride = SPARSE_INPUT_MAX;
    const int64_t k = q->batch[b];
    double *tgt = q->tgts + (size_t)b * N, *h = q->hs + (size_t)b * H;
    target_of(q, k, tgt, t);
    uint16_t *idx = q->xs_idx + (size_t)b * stride;
    int8_t *sign = q->xs_sign + (size_t)b * stride;
    q->xs_nnz[b] = state_input(q, k, t->cur, t->prev, idx, sign);
    qr_forward(&q->sh, q->w, (SparseX){ q->xs_nnz[b], idx, sign }, h, t->q);
    const int a = q->mem.action[(size_t)(k % q->mem.cap)];
    q->terms[2 * b] = qr_quantile_loss(t->q + a * N, tgt, N, q->dqs + (size_t)b * N);
    double qa = 0.0;
    for (int i = 0; i < N; i++) qa += t->q[a * N + i];
    q->terms[2 * b + 1] = qa / N;
}

static void samples_part(void *ctx, int part, int parts) {
    Qr *q = ctx;
    const int B = q->cfg.minibatch;
    Scratch *t = malloc(sizeof(Scratch));
    if (!t) {
        q->bad = 1;
        return;
    }
    t->h = q->th_h + (size_t)part * q->th_hs;
    t->q = q->th_q + (size_t)part * q->th_qs;
    int b0, b1;
    part_range(B, part, parts, &b0, &b1);
    for (int b = b0; b < b1; b++) sample_pass(q, b, t);
    free(t);
}

// The rows the minibatch's inputs touch, in the order they first come (transition b's t-th
// entry's row is rows[xs_slot[b][t]]): one serial pass over the ~2,000 entries, before the
// threads share the columns.
static void batch_rows(Qr *q) {
    for (int b = 0; b < q->cfg.minibatch; b++) {
        const uint16_t *idx = q->xs_idx + (size_t)b * SPARSE_INPUT_MAX;
        uint16_t *slot = q->xs_slot + (size_t)b * SPARSE_INPUT_MAX;
        for (int t = 0; t < q->xs_nnz[b]; t++) {
            const int r = idx[t];
            if (q->row_slot[r] < 0) {
                q->row_slot[r] = q->n_rows;
                q->rows[q->n_rows++] = (uint16_t)r;
            }
            slot[t] = (uint16_t)q->row_slot[r];
        }
    }
}

typedef struct {
    Qr *q;
    AdamStep st;
} StepJob;

// A part's columns [j0, j1) of every touched row, of b1 and of W2's rows (b2 on the last part):
// the gradient, each transition's added in sample order, then Adam's step on them. Every entry
// is summed and stepped by one thread alone, in the same order whatever the thread count: the
// same bits on any number. The columns go by QR_COL_BLOCK, so no two threads write one line.
#define QR_COL_BLOCK 8
static void grad_step_part(void *ctx, int part, int parts) {
    StepJob *job = ctx;
    Qr *q = job->q;
    const int H = q->sh.H, N = q->sh.N, O = q->sh.A * N, B = q->cfg.minibatch;
    int c0, c1;
    part_range((H + QR_COL_BLOCK - 1) / QR_COL_BLOCK, part, parts, &c0, &c1);
    const int j0 = c0 * QR_COL_BLOCK < H ? c0 * QR_COL_BLOCK : H, j1 = c1 * QR_COL_BLOCK < H ? c1 * QR_COL_BLOCK : H;
    const size_t w = (size_t)(j1 - j0), tail = q->sh.tail;
    const bool last = part == parts - 1;
    const double scale = 1.0 / B;
    const double *W2 = q->w + tail + H;
    double *gb1 = q->g + tail, *gW2 = gb1 + H, *gb2 = gW2 + (size_t)O * H;
    double *dh = q->th_h + (size_t)part * q->th_hs;
    for (int k = 0; k < q->n_rows; k++) memset(q->g + (size_t)k * H + j0, 0, sizeof(double) * w);
    memset(gb1 + j0, 0, sizeof(double) * w);
    for (int o = 0; o < O; o++) memset(gW2 + (size_t)o * H + j0, 0, sizeof(double) * w);
    if (last) memset(gb2, 0, sizeof(double) * (size_t)O);
    for (int b = 0; b < B; b++) {
        const int64_t k = q->batch[b];
        const int a = q->mem.action[(size_t)(k % q->mem.cap)], nnz = q->xs_nnz[b];
        const double *h = q->hs + (size_t)b * H, *dq = q->dqs + (size_t)b * N;
        const uint16_t *slot = q->xs_slot + (size_t)b * SPARSE_INPUT_MAX;
        const int8_t *sign = q->xs_sign + (size_t)b * SPARSE_INPUT_MAX;
        memset(dh + j0, 0, sizeof(double) * w);
        for (int i = 0; i < N; i++) {
            const double d = dq[i] * scale;
            const int o = a * N + i;
            double *gr = gW2 + (size_t)o * H;
            const double *wr = W2 + (size_t)o * H;
            for (int j = j0; j < j1; j++) {
                gr[j] += d * h[j];
                dh[j] += d * wr[j];
            }
            if (last) gb2[o] += d;
        }
        for (int j = j0; j < j1; j++) {
            if (h[j] <= 0.0) dh[j] = 0.0;
            gb1[j] += dh[j];
        }
        for (int t = 0; t < nnz; t++) {
            double *gr = q->g + (size_t)slot[t] * H;
            if (sign[t] > 0)
                for (int j = j0; j < j1; j++) gr[j] += dh[j];
            else
                for (int j = j0; j < j1; j++) gr[j] -= dh[j];
        }
    }
    double *wt = q->w + tail, *mt = q->adam_m + tail, *vt = q->adam_v + tail;
    if (w) {
        adam_rows(
            q->w, q->adam_m, q->adam_v, q->g, q->rows, q->n_rows, (size_t)H, (size_t)j0, (size_t)j1, 1.0, &job->st);
        adam_update(wt + j0, mt + j0, vt + j0, gb1 + j0, w, 1.0, &job->st);
        for (int o = 0; o < O; o++) {
            const size_t off = H + (size_t)o * H + j0;
            adam_update(wt + off, mt + off, vt + off, gb1 + off, w, 1.0, &job->st);
        }
    }
    if (last) {
        const size_t off = H + (size_t)O * H;
        adam_update(wt + off, mt + off, vt + off, gb1 + off, (size_t)O, 1.0, &job->st);
    }
}

bool qr_draw(const Qr *q, int64_t u, int64_t *slots) {
    const int64_t E = q->cfg.envs, lo = q->mem.oldest + E, hi = q->mem.total - 1 - q->cfg.nstep * E;
    if (hi < lo) return false;
    Rng rng;
    rng_seed(&rng, stream_qr_batch(q->cfg.seed, (uint64_t)u));
    for (int b = 0; b < q->cfg.minibatch; b++) slots[b] = lo + (int64_t)rng_below(&rng, (uint64_t)(hi - lo + 1));
    return true;
}

int qr_update(Qr *q, int64_t u) {
    if (!qr_draw(q, u, q->batch)) return 0;
    const int B = q->cfg.minibatch;
    q->bad = 0;
    pool_for(q->pool, samples_part, q);
    if (q->bad) return -1;
    double loss = 0.0;
    for (int b = 0; b < B; b++) {
        loss += q->terms[2 * b];
        q->stats.mean_q += q->terms[2 * b + 1];
    }
    q->stats.loss += loss / B;
    q->stats.updates++;
    batch_rows(q);
    StepJob job = { q, adam_step(q->cfg.lr, QR_ADAM_BETA1, QR_ADAM_BETA2, q->cfg.adam_eps, u) };
    pool_for(q->pool, grad_step_part, &job);
    for (int k = 0; k < q->n_rows; k++) q->row_slot[q->rows[k]] = -1;
    q->n_rows = 0;
    if (u % q->cfg.target_every == 0) memcpy(q->target, q->w, sizeof(double) * q->sh.n);
    return 1;
}
