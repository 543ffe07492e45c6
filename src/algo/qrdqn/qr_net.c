// qr_net.c: the network of QR-DQN (qrdqn.h): its shape, its initial weights, its forward pass.
#include "qrdqn.h"

#include <math.h>
#include <string.h>

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

double qr_dot(const double *restrict a, const double *restrict b, int n) {
    double acc[QR_LANES] = { 0 };
    int j = 0;
    for (; j + QR_LANES <= n; j += QR_LANES)
        for (int l = 0; l < QR_LANES; l++) acc[l] += a[j + l] * b[j + l];
    for (; j < n; j++) acc[j % QR_LANES] += a[j] * b[j];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

void qr_forward(const QrShape *sh, const double *w, SparseX x, double *h, double *q) {
    const int H = sh->H, O = sh->A * sh->N;
    const double *b1 = w + sh->tail, *W2 = b1 + H, *b2 = W2 + (size_t)O * H;
    memcpy(h, b1, sizeof(double) * (size_t)H);
    for (int k = 0; k < x.nnz; k++) {
        const double *row = w + (size_t)x.idx[k] * H;
        if (x.sign[k] > 0)
            for (int j = 0; j < H; j++) h[j] += row[j];
        else
            for (int j = 0; j < H; j++) h[j] -= row[j];
    }
    for (int j = 0; j < H; j++)
        if (h[j] < 0.0) h[j] = 0.0;
    for (int o = 0; o < O; o++) q[o] = b2[o] + qr_dot(W2 + (size_t)o * H, h, H);
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
