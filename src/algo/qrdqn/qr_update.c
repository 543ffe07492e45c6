// qr_update.c: one update of QR-DQN (qrdqn.h): a minibatch drawn uniformly from the replay
// memory, each transition's quantile Huber loss against its n-step target, the gradient summed
// in sample order on one thread (the same bits whatever the threads), one step of Adam (lazy on
// W1: only the rows the minibatch's inputs touched), and the target network's copy when due.
#include "qrdqn.h"

#include <math.h>
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
// an episode) into q->idx/sign; returns its count.
static int state_input(Qr *q, int64_t k) {
    qr_replay_frame(&q->mem, k, q->cur);
    if (q->mem.flags[(size_t)(k % q->mem.cap)] & QR_START)
        memset(q->prev, 0, POLICY_D);
    else
        qr_replay_frame(&q->mem, k - q->cfg.envs, q->prev);
    return sparse_input(q->cur, q->prev, true, q->idx, q->sign);
}

// The n-step target of slot k into tgt (N): R = sum_m gamma^m r_{k + m N} up to the episode's
// end or n steps, plus gamma^n q'(s_{k + n N}, a*) where it did not end.
static void target_of(Qr *q, int64_t k, double *tgt) {
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
    const int nnz = state_input(q, k + (int64_t)q->cfg.nstep * E);
    qr_forward(&q->sh, q->target, (SparseX){ nnz, q->idx, q->sign }, q->h, q->qt);
    const int a = qr_greedy(&q->sh, q->qt, NULL);
    for (int j = 0; j < N; j++) tgt[j] = R + disc * q->qt[a * N + j];
}

// The gradient of one transition (slot k), added into q->g; returns its loss.
static double add_sample(Qr *q, int64_t k, double scale) {
    const int H = q->sh.H, N = q->sh.N, O = q->sh.A * N;
    double *tgt = q->tgt, *dh = q->dh;
    target_of(q, k, tgt);
    const int nnz = state_input(q, k);
    qr_forward(&q->sh, q->w, (SparseX){ nnz, q->idx, q->sign }, q->h, q->q);
    const int a = q->mem.action[(size_t)(k % q->mem.cap)];
    const double loss = qr_quantile_loss(q->q + a * N, tgt, N, q->dq);
    double qa = 0.0;
    for (int i = 0; i < N; i++) qa += q->q[a * N + i];
    q->stats.mean_q += qa / N;
    const double *W2 = q->w + q->sh.tail + H;
    double *gb1 = q->g + q->sh.tail, *gW2 = gb1 + H, *gb2 = gW2 + (size_t)O * H;
    memset(dh, 0, sizeof(double) * (size_t)H);
    for (int i = 0; i < N; i++) {
        const double d = q->dq[i] * scale;
        const int o = a * N + i;
        double *gr = gW2 + (size_t)o * H;
        const double *wr = W2 + (size_t)o * H;
        for (int j = 0; j < H; j++) {
            gr[j] += d * q->h[j];
            dh[j] += d * wr[j];
        }
        gb2[o] += d;
    }
    for (int j = 0; j < H; j++) {
        if (q->h[j] <= 0.0) dh[j] = 0.0;
        gb1[j] += dh[j];
    }
    for (int t = 0; t < nnz; t++) {
        const int r = q->idx[t];
        if (q->row_slot[r] < 0) {
            q->row_slot[r] = q->n_rows;
            q->rows[q->n_rows++] = r;
            memset(q->g + (size_t)q->row_slot[r] * H, 0, sizeof(double) * (size_t)H);
        }
        double *gr = q->g + (size_t)q->row_slot[r] * H;
        if (q->sign[t] > 0)
            for (int j = 0; j < H; j++) gr[j] += dh[j];
        else
            for (int j = 0; j < H; j++) gr[j] -= dh[j];
    }
    return loss;
}

bool qr_draw(const Qr *q, int64_t u, int64_t *slots) {
    const int64_t E = q->cfg.envs, lo = q->mem.oldest + E, hi = q->mem.total - 1 - q->cfg.nstep * E;
    if (hi < lo) return false;
    Rng rng;
    rng_seed(&rng, stream_qr_batch(q->cfg.seed, (uint64_t)u));
    for (int b = 0; b < q->cfg.minibatch; b++) slots[b] = lo + (int64_t)rng_below(&rng, (uint64_t)(hi - lo + 1));
    return true;
}

bool qr_update(Qr *q, int64_t u) {
    if (!qr_draw(q, u, q->batch)) return false;
    const int B = q->cfg.minibatch, H = q->sh.H;
    memset(q->g + q->sh.tail, 0, sizeof(double) * (q->sh.n - q->sh.tail));
    double loss = 0.0;
    for (int b = 0; b < B; b++) loss += add_sample(q, q->batch[b], 1.0 / B);
    q->stats.loss += loss / B;
    q->stats.updates++;
    const AdamStep st = adam_step(q->cfg.lr, QR_ADAM_BETA1, QR_ADAM_BETA2, q->cfg.adam_eps, u);
    for (int k = 0; k < q->n_rows; k++) {
        const size_t off = (size_t)q->rows[k] * H;
        adam_update(q->w + off, q->adam_m + off, q->adam_v + off, q->g + (size_t)k * H, (size_t)H, 1.0, &st);
        q->row_slot[q->rows[k]] = -1;
    }
    q->n_rows = 0;
    const size_t t = q->sh.tail;
    adam_update(q->w + t, q->adam_m + t, q->adam_v + t, q->g + t, q->sh.n - t, 1.0, &st);
    if (u % q->cfg.target_every == 0) memcpy(q->target, q->w, sizeof(double) * q->sh.n);
    return true;
}
