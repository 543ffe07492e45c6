// qr_update.c: one update of QR-DQN (qrdqn.h): a minibatch drawn uniformly from the replay
// memory, each transition's quantile Huber loss against its n-step target, the loss's gradient
// and one step of Adam (lazy on W1: only the rows the minibatch's inputs touched), then the
// target network's copy when due. Five passes of the pool's threads:
//   1. by transitions: each one's input and its n-th next state's (from the replay's lit
//      pixels), and its n-step return;
//   2. the rows the inputs touch, ascending, each with its (transition, sign) list: the online
//      network's states' on one thread, the target's on another;
//   3. the hidden layers of every state, one pass over each network's union of rows (a row
//      shared by several states is read once), the target's on half the threads and the
//      online one's on the rest, each by columns; each state still adds its rows in ascending
//      order, as qr_forward does: the same bits;
//   4. by transitions: the outputs (a few states at once), the targets, the loss and its
//      gradient wrt the quantiles;
//   5. by columns: the gradient, each transition's added in sample order, and Adam's step on
//      the same columns of every touched row, of b1 and of W2 (b2 on the last part).
// Every sum is one thread's, in an order that no thread count changes: the same bits on any.
#include "qrdqn.h"

#include <math.h>
#include <string.h>

#include "../../rl/adam.h"
#include "../../util/mem.h"
#include "qr_streams.h"

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

// The input of slot k's state (its frame, and the previous slot of its env unless it starts an
// episode) into idx/sign, from their lit pixels (cur, prev: room for POLICY_D each); returns
// its count.
static int state_input(const Qr *q, int64_t k, uint16_t *cur, uint16_t *prev, uint16_t *idx, int8_t *sign) {
    return replay_state_input(&q->mem, k, q->cfg.envs, true, cur, prev, idx, sign);
}

// ----------------------------------------------------------------------------
// 1. the inputs

// Transition b: the input of its state (q->xs_*) and, unless its episode ends within n steps,
// of the state n steps on (q->xt_*; else xt_nnz -1); its n-step return R = sum_m gamma^m
// r_{k + m N} and gamma^n (q->ret).
static void inputs_of(Qr *q, int b, uint16_t *cur, uint16_t *prev) {
    const int E = q->cfg.envs;
    const int64_t k = q->batch[b];
    double R, disc;
    const bool ended = replay_nstep(&q->mem, k, E, q->cfg.nstep, q->cfg.gamma, &R, &disc);
    q->ret[2 * b] = R;
    q->ret[2 * b + 1] = disc;
    q->act[b] = q->mem.action[replay_slot(&q->mem, k)];
    const size_t at = (size_t)b * SPARSE_INPUT_MAX;
    q->xt_nnz[b] =
        ended ? -1 : state_input(q, k + (int64_t)q->cfg.nstep * E, cur, prev, q->xt_idx + at, q->xt_sign + at);
    q->xs_nnz[b] = state_input(q, k, cur, prev, q->xs_idx + at, q->xs_sign + at);
}

static void inputs_part(void *ctx, int part, int parts) {
    Qr *q = ctx;
    uint16_t *lit = q->th_lit + (size_t)part * q->th_ls;
    int b0, b1;
    part_range(q->cfg.minibatch, part, parts, &b0, &b1);
    for (int b = b0; b < b1; b++) inputs_of(q, b, lit, lit + POLICY_D);
}

// The rows of the B inputs idx/sign/nnz (nnz -1: none), ascending, each with the list of the
// (transition, sign) that hold it, in transition order: a bitmap of the rows (L->bits, left
// zeroed), then counts and places (L->slot).
static void row_lists(const Qr *q, const uint16_t *idx, const int8_t *sign, const int *nnz, QrRows *L) {
    const int B = q->cfg.minibatch, words = (q->sh.D + 63) / 64;
    uint64_t *bits = L->bits;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < nnz[b]; t++) {
            const int r = idx[(size_t)b * SPARSE_INPUT_MAX + t];
            bits[r >> 6] |= 1ull << (r & 63);
        }
    L->n = 0;
    for (int w = 0; w < words; w++)
        for (uint64_t x = bits[w]; x; x &= x - 1) {
            const int r = w * 64 + __builtin_ctzll(x);
            L->slot[r] = L->n;
            L->rows[L->n++] = (uint16_t)r;
        }
    memset(bits, 0, sizeof(uint64_t) * (size_t)words);
    memset(L->start, 0, sizeof(int32_t) * ((size_t)L->n + 1));
    for (int b = 0; b < B; b++)
        for (int t = 0; t < nnz[b]; t++) L->start[L->slot[idx[(size_t)b * SPARSE_INPUT_MAX + t]] + 1]++;
    for (int k = 0; k < L->n; k++) L->start[k + 1] += L->start[k];
    // each entry at its row's next free place (start[k] moves up to row k + 1's start), then back
    for (int b = 0; b < B; b++)
        for (int t = 0; t < nnz[b]; t++) {
            const size_t e = (size_t)b * SPARSE_INPUT_MAX + t;
            const int32_t at = L->start[L->slot[idx[e]]]++;
            L->b[at] = (uint16_t)b;
            L->sign[at] = sign[e];
        }
    for (int k = L->n; k > 0; k--) L->start[k] = L->start[k - 1];
    L->start[0] = 0;
}

// The online network's lists on part 0, the target's on part 1 (one part: both).
static void lists_part(void *ctx, int part, int parts) {
    Qr *q = ctx;
    if (part == 0) row_lists(q, q->xs_idx, q->xs_sign, q->xs_nnz, &q->on);
    if (part == (parts > 1 ? 1 : 0)) row_lists(q, q->xt_idx, q->xt_sign, q->xt_nnz, &q->tg);
}

// ----------------------------------------------------------------------------
// 3. the hidden layers, and the columns of a part

// Part `part`'s columns [*j0, *j1), QR_COL_BLOCK at a time: no two threads write one line.
#define QR_COL_BLOCK 8
static void part_columns(int H, int part, int parts, int *j0, int *j1) {
    int c0, c1;
    part_range((H + QR_COL_BLOCK - 1) / QR_COL_BLOCK, part, parts, &c0, &c1);
    *j0 = c0 * QR_COL_BLOCK < H ? c0 * QR_COL_BLOCK : H;
    *j1 = c1 * QR_COL_BLOCK < H ? c1 * QR_COL_BLOCK : H;
}

// Columns [j0, j1) of the B states' hidden layers before the ReLU (hs, a row of q->hp each):
// b1, then the rows of L in ascending order, each added to (or taken from) the states that
// hold it.
static void hidden_columns(const Qr *q, const double *w, const QrRows *L, double *hs, int j0, int j1) {
    const int H = q->sh.H;
    const size_t len = (size_t)(j1 - j0), bytes = sizeof(double) * len;
    for (int b = 0; b < q->cfg.minibatch; b++) memcpy(hs + (size_t)b * q->hp + j0, w + q->sh.tail + j0, bytes);
    for (int k = 0; k < L->n; k++) {
        if (k + MEM_AHEAD_ROWS < L->n) mem_prefetch(w + (size_t)L->rows[k + MEM_AHEAD_ROWS] * H + j0, bytes);
        const double *row = w + (size_t)L->rows[k] * H;
        for (int32_t e = L->start[k]; e < L->start[k + 1]; e++) {
            double *h = hs + (size_t)L->b[e] * q->hp;
            if (L->sign[e] > 0)
                for (int j = j0; j < j1; j++) h[j] += row[j];
            else
                for (int j = j0; j < j1; j++) h[j] -= row[j];
        }
    }
}

static void hidden_part(void *ctx, int part, int parts) {
    Qr *q = ctx;
    int j0, j1;
    if (parts == 1) {
        hidden_columns(q, q->target, &q->tg, q->ht, 0, q->sh.H);
        hidden_columns(q, q->w, &q->on, q->hs, 0, q->sh.H);
        return;
    }
    const int half = parts / 2;
    if (part < half) {
        part_columns(q->sh.H, part, half, &j0, &j1);
        if (j0 < j1) hidden_columns(q, q->target, &q->tg, q->ht, j0, j1);
    } else {
        part_columns(q->sh.H, part - half, parts - half, &j0, &j1);
        if (j0 < j1) hidden_columns(q, q->w, &q->on, q->hs, j0, j1);
    }
}

// ----------------------------------------------------------------------------
// 4. the outputs and the loss

// Transition b, its outputs in q->qs and q->qt: its targets (R + gamma^n q'(s_{k + n N}, a*), a*
// the target network's greedy action; R alone where the episode ended), the loss's gradient wrt
// its action's quantiles (q->dqs), its loss and its action's mean quantile (q->terms).
static void loss_of(Qr *q, int b) {
    const int N = q->sh.N;
    double *tgt = q->tgts + (size_t)b * N;
    const double R = q->ret[2 * b], disc = q->ret[2 * b + 1];
    if (q->xt_nnz[b] < 0)
        for (int j = 0; j < N; j++) tgt[j] = R;
    else {
        const double *qv = q->qt + (size_t)b * q->qp;
        const int a = qr_greedy(&q->sh, qv, NULL);
        for (int j = 0; j < N; j++) tgt[j] = R + disc * qv[a * N + j];
    }
    const double *qv = q->qs + (size_t)b * q->qp;
    const int a = q->act[b];
    q->terms[2 * b] = qr_quantile_loss(qv + a * N, tgt, N, q->dqs + (size_t)b * N);
    double qa = 0.0;
    for (int i = 0; i < N; i++) qa += qv[a * N + i];
    q->terms[2 * b + 1] = qa / N;
}

// The part's transitions a few at a time: their outputs (the online network's, and the target's
// where the episode goes on), computed together (qr_outputs), then their losses.
#define QR_OUT_GROUP 8
static void loss_part(void *ctx, int part, int parts) {
    Qr *q = ctx;
    int b0, b1;
    part_range(q->cfg.minibatch, part, parts, &b0, &b1);
    for (int g = b0; g < b1; g += QR_OUT_GROUP) {
        const int g1 = g + QR_OUT_GROUP < b1 ? g + QR_OUT_GROUP : b1;
        double *h[QR_OUT_GROUP], *out[QR_OUT_GROUP];
        int n = 0;
        for (int b = g; b < g1; b++, n++) {
            h[n] = q->hs + (size_t)b * q->hp;
            out[n] = q->qs + (size_t)b * q->qp;
        }
        qr_outputs(&q->sh, q->w, n, h, out);
        n = 0;
        for (int b = g; b < g1; b++)
            if (q->xt_nnz[b] >= 0) {
                h[n] = q->ht + (size_t)b * q->hp;
                out[n++] = q->qt + (size_t)b * q->qp;
            }
        qr_outputs(&q->sh, q->target, n, h, out);
        for (int b = g; b < g1; b++) loss_of(q, b);
    }
}

// ----------------------------------------------------------------------------
// 5. the gradient and Adam's step

typedef struct {
    Qr *q;
    AdamStep st;
} StepJob;

// A vector's lanes are separate IEEE operations: sums kept in them have the bits of the same
// sums one entry at a time, in registers.
// (No function takes or returns one: without AVX-512 that would change the ABI.)
typedef double Lanes __attribute__((vector_size(QR_LANES * sizeof(double))));

// A part's columns of the gradient, then of Adam's step: of the tail (b1, W2's rows: each
// transition's added in sample order), of dL/dh (q->dhs) for every transition, then of each
// touched row (its transitions' dL/dh, in sample order) and its step.
static void step_part(void *ctx, int part, int parts) {
    StepJob *job = ctx;
    Qr *q = job->q;
    const int H = q->sh.H, N = q->sh.N, O = q->sh.A * N, B = q->cfg.minibatch;
    int j0, j1;
    part_columns(H, part, parts, &j0, &j1);
    const size_t w = (size_t)(j1 - j0), tail = q->sh.tail;
    const bool last = part == parts - 1;
    const double scale = 1.0 / B;
    const double *W2 = q->w + tail + H;
    double *gb1 = q->g, *gW2 = gb1 + H, *gb2 = gW2 + (size_t)O * H;
    double *chunk = q->th_g + (size_t)part * QR_ROW_CHUNK * q->th_hs;
    memset(gb1 + j0, 0, sizeof(double) * w);
    if (last) memset(gb2, 0, sizeof(double) * (size_t)O);
    // dL/dh of each transition and b1's gradient: every entry's sum over the quantiles (then
    // over the transitions) in that order, a vector's lanes at a time
    for (int b = 0; b < B; b++) {
        const int a = q->act[b];
        const double *h = q->hs + (size_t)b * q->hp, *dq = q->dqs + (size_t)b * N, *W2a = W2 + (size_t)a * N * H;
        double *dh = q->dhs + (size_t)b * q->hp;
        int j = j0;
        for (; j + QR_LANES <= j1; j += QR_LANES) {
            Lanes acc = { 0 };
            for (int i = 0; i < N; i++) {
                Lanes x;
                memcpy(&x, W2a + (size_t)i * H + j, sizeof(x));
                acc += x * (dq[i] * scale);
            }
            memcpy(dh + j, &acc, sizeof(acc));
        }
        for (; j < j1; j++) {
            double acc = 0.0;
            for (int i = 0; i < N; i++) acc += W2a[(size_t)i * H + j] * (dq[i] * scale);
            dh[j] = acc;
        }
        for (j = j0; j < j1; j++) {
            if (h[j] <= 0.0) dh[j] = 0.0;
            gb1[j] += dh[j];
        }
        if (last)
            for (int i = 0; i < N; i++) gb2[a * N + i] += dq[i] * scale;
    }
    // W2's gradient: row o's entries sum the transitions whose action is o's, in sample order
    for (int o = 0; o < O; o++) {
        const int a = o / N, i = o % N;
        const int *bs = q->by_act + q->act_start[a], nb = q->act_start[a + 1] - q->act_start[a];
        double *gr = gW2 + (size_t)o * H;
        int j = j0;
        for (; j + QR_LANES <= j1; j += QR_LANES) {
            Lanes acc = { 0 };
            for (int t = 0; t < nb; t++) {
                Lanes x;
                memcpy(&x, q->hs + (size_t)bs[t] * q->hp + j, sizeof(x));
                acc += x * (q->dqs[(size_t)bs[t] * N + i] * scale);
            }
            memcpy(gr + j, &acc, sizeof(acc));
        }
        for (; j < j1; j++) {
            double acc = 0.0;
            for (int t = 0; t < nb; t++)
                acc += q->hs[(size_t)bs[t] * q->hp + j] * (q->dqs[(size_t)bs[t] * N + i] * scale);
            gr[j] = acc;
        }
    }
    const QrRows *L = &q->on;
    for (int k0 = 0; k0 < L->n && w; k0 += QR_ROW_CHUNK) {
        const int n = L->n - k0 < QR_ROW_CHUNK ? L->n - k0 : QR_ROW_CHUNK;
        for (int k = 0; k < n; k++) {
            double *gr = chunk + (size_t)k * H;
            memset(gr + j0, 0, sizeof(double) * w);
            for (int32_t e = L->start[k0 + k]; e < L->start[k0 + k + 1]; e++) {
                const double *dh = q->dhs + (size_t)L->b[e] * q->hp;
                if (L->sign[e] > 0)
                    for (int j = j0; j < j1; j++) gr[j] += dh[j];
                else
                    for (int j = j0; j < j1; j++) gr[j] -= dh[j];
            }
        }
        adam_rows(q->w, q->adam_m, q->adam_v, chunk, L->rows + k0, n, (size_t)H, (size_t)j0, (size_t)j1, 1.0, &job->st);
    }
    double *wt = q->w + tail, *mt = q->adam_m + tail, *vt = q->adam_v + tail;
    if (w) {
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
    const int64_t E = q->cfg.envs;
    return replay_draw(
        &q->mem, E, q->cfg.nstep * E, stream_qr_batch(q->cfg.seed, (uint64_t)u), q->cfg.minibatch, slots);
}

int qr_update(Qr *q, int64_t u) {
    if (!qr_draw(q, u, q->batch)) return 0;
    const int B = q->cfg.minibatch;
    pool_for(q->pool, inputs_part, q);
    pool_for(q->pool, lists_part, q);
    pool_for(q->pool, hidden_part, q);
    pool_for(q->pool, loss_part, q);
    double loss = 0.0;
    for (int b = 0; b < B; b++) {
        loss += q->terms[2 * b];
        q->stats.mean_q += q->terms[2 * b + 1];
    }
    q->stats.loss += loss / B;
    q->stats.updates++;
    // the transitions of each action, in sample order
    q->act_start[0] = 0;
    for (int a = 0; a < QR_ACTIONS; a++) {
        q->act_start[a + 1] = q->act_start[a];
        for (int b = 0; b < B; b++)
            if (q->act[b] == a) q->by_act[q->act_start[a + 1]++] = b;
    }
    StepJob job = { q, adam_step(q->cfg.lr, QR_ADAM_BETA1, QR_ADAM_BETA2, q->cfg.adam_eps, u) };
    pool_for(q->pool, step_part, &job);
    if (u % q->cfg.target_every == 0) memcpy(q->target, q->w, sizeof(double) * q->sh.n);
    return 1;
}
