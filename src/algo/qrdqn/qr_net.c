// qr_net.c: the network of QR-DQN (qrdqn.h): its shape, its initial weights, its forward pass.
#include "qrdqn.h"

#include <math.h>
#include <string.h>

#include "../../util/mem.h"

const int QR_ACTION_ID[QR_ACTIONS] = { ACTION_NOOP, ACTION_RIGHT, ACTION_LEFT };

QrShape qr_shape(const TrainConfig *c) {
    QrShape sh = { sparse_input_size(true), c->hidden, QR_ACTIONS, c->quantiles, 0, 0 };
    const size_t H = (size_t)sh.H, O = (size_t)sh.A * (size_t)sh.N;
    sh.tail = (size_t)sh.D * H;
    sh.n = sh.tail + H + O * H + O;
    return sh;
}

void qr_net_init(const QrShape *sh, double *w, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    const size_t H = (size_t)sh->H, O = (size_t)sh->A * (size_t)sh->N;
    const double s1 = 1.0 / sqrt(QR_INIT_NNZ), s2 = 1.0 / sqrt((double)H);
    memset(w, 0, sizeof(double) * sh->n);
    for (size_t k = 0; k < sh->tail; k++) w[k] = rng_normal(&rng) * s1;
    double *W2 = w + sh->tail + H;
    for (size_t k = 0; k < O * H; k++) W2[k] = rng_normal(&rng) * s2;
}

static inline double lanes_sum(const double *acc) {
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

double qr_dot(const double *restrict a, const double *restrict b, int n) {
    double acc[QR_LANES] = { 0 };
    int j = 0;
    for (; j + QR_LANES <= n; j += QR_LANES)
        for (int l = 0; l < QR_LANES; l++) acc[l] += a[j + l] * b[j + l];
    for (; j < n; j++) acc[j % QR_LANES] += a[j] * b[j];
    return lanes_sum(acc);
}

// q[o] = b2[o] + qr_dot(W2's row o, h), HEADS_AT_ONCE rows at a time: as many sums that do not
// wait on each other (one alone waits on its adder's latency at every step), each in qr_dot's
// order: lane l of a vector sums the entries j with j % 8 = l (a vector's lanes are separate
// IEEE sums: the same bits, held in registers where an array of them went to the stack).
#define HEADS_AT_ONCE 4
typedef double Lanes __attribute__((vector_size(QR_LANES * sizeof(double))));
static void qr_heads(
    const double *restrict W2, const double *restrict b2, const double *restrict h, int O, int H, double *restrict q) {
    int o = 0;
    const int J = H / QR_LANES * QR_LANES;
    for (; o + HEADS_AT_ONCE <= O; o += HEADS_AT_ONCE) {
        const double *w = W2 + (size_t)o * H;
        Lanes acc[HEADS_AT_ONCE] = { 0 };
        for (int j = 0; j < J; j += QR_LANES) {
            Lanes x;
            memcpy(&x, h + j, sizeof(x));
            for (int r = 0; r < HEADS_AT_ONCE; r++) {
                Lanes y;
                memcpy(&y, w + (size_t)r * H + j, sizeof(y));
                acc[r] += y * x;
            }
        }
        for (int r = 0; r < HEADS_AT_ONCE; r++) {
            double lanes[QR_LANES];
            memcpy(lanes, &acc[r], sizeof(lanes));
            for (int j = J; j < H; j++) lanes[j % QR_LANES] += w[(size_t)r * H + j] * h[j];
            q[o + r] = b2[o + r] + lanes_sum(lanes);
        }
    }
    for (; o < O; o++) q[o] = b2[o] + qr_dot(W2 + (size_t)o * H, h, H);
}

// The same for STATES_AT_ONCE states h[s] into q[s]: each block of W2 is loaded once for all of
// them (W2 is read from the core's second cache, once a state otherwise).
#define STATES_AT_ONCE 4
static void qr_heads_states(
    const double *restrict W2, const double *restrict b2, const double *const *h, int O, int H, double *const *q) {
    int o = 0;
    const int J = H / QR_LANES * QR_LANES;
    for (; o + HEADS_AT_ONCE <= O; o += HEADS_AT_ONCE) {
        const double *w = W2 + (size_t)o * H;
        Lanes acc[STATES_AT_ONCE][HEADS_AT_ONCE];
        memset(acc, 0, sizeof(acc)); // +0.0 in every lane, as qr_dot starts
        for (int j = 0; j < J; j += QR_LANES) {
            Lanes x[STATES_AT_ONCE], y[HEADS_AT_ONCE];
            for (int s = 0; s < STATES_AT_ONCE; s++) memcpy(&x[s], h[s] + j, sizeof(x[s]));
            for (int r = 0; r < HEADS_AT_ONCE; r++) memcpy(&y[r], w + (size_t)r * H + j, sizeof(y[r]));
            for (int s = 0; s < STATES_AT_ONCE; s++)
                for (int r = 0; r < HEADS_AT_ONCE; r++) acc[s][r] += y[r] * x[s];
        }
        for (int s = 0; s < STATES_AT_ONCE; s++)
            for (int r = 0; r < HEADS_AT_ONCE; r++) {
                double lanes[QR_LANES];
                memcpy(lanes, &acc[s][r], sizeof(lanes));
                for (int j = J; j < H; j++) lanes[j % QR_LANES] += w[(size_t)r * H + j] * h[s][j];
                q[s][o + r] = b2[o + r] + lanes_sum(lanes);
            }
    }
    for (; o < O; o++)
        for (int s = 0; s < STATES_AT_ONCE; s++) q[s][o] = b2[o] + qr_dot(W2 + (size_t)o * H, h[s], H);
}

// The input's rows lie scattered in W1 (tens of MB with the target's and Adam's): each is asked
// for MEM_AHEAD_ROWS rows before it is added.
void qr_forward(const QrShape *sh, const double *w, SparseX x, double *h, double *q) {
    const int H = sh->H;
    const double *b1 = w + sh->tail;
    const size_t row_bytes = sizeof(double) * (size_t)H;
    for (int k = 0; k < MEM_AHEAD_ROWS && k < x.nnz; k++) mem_prefetch(w + (size_t)x.idx[k] * H, row_bytes);
    memcpy(h, b1, row_bytes);
    for (int k = 0; k < x.nnz; k++) {
        if (k + MEM_AHEAD_ROWS < x.nnz) mem_prefetch(w + (size_t)x.idx[k + MEM_AHEAD_ROWS] * H, row_bytes);
        const double *row = w + (size_t)x.idx[k] * H;
        if (x.sign[k] > 0)
            for (int j = 0; j < H; j++) h[j] += row[j];
        else
            for (int j = 0; j < H; j++) h[j] -= row[j];
    }
    qr_output(sh, w, h, q);
}

void qr_output(const QrShape *sh, const double *w, double *h, double *q) { qr_outputs(sh, w, 1, &h, &q); }

void qr_outputs(const QrShape *sh, const double *w, int S, double *const *h, double *const *q) {
    const int H = sh->H, O = sh->A * sh->N;
    const double *W2 = w + sh->tail + H, *b2 = W2 + (size_t)O * H;
    for (int s = 0; s < S; s++)
        for (int j = 0; j < H; j++)
            if (h[s][j] < 0.0) h[s][j] = 0.0;
    int s = 0;
    for (; s + STATES_AT_ONCE <= S; s += STATES_AT_ONCE)
        qr_heads_states(W2, b2, (const double *const *)h + s, O, H, q + s);
    for (; s < S; s++) qr_heads(W2, b2, h[s], O, H, q[s]);
}

int qr_greedy(const QrShape *sh, const double *q, double *mean) {
    int best = 0;
    double top = 0.0;
    for (int a = 0; a < sh->A; a++) {
        double s = 0.0;
        for (int i = 0; i < sh->N; i++) s += q[a * sh->N + i];
        s /= sh->N;
        if (a == 0 || s > top) {
            top = s;
            best = a;
        }
    }
    if (mean) *mean = top;
    return best;
}
