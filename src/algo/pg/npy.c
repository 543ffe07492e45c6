// npy.c: pg's network as Karpathy's .npy files (npy.h): DIR/W1.npy (H, 6400) and DIR/W2.npy
// (H,), float64, Karpathy's model['W1'] and model['W2']. No model.txt: H is W1's first
// dimension, and every other setting is Karpathy's. Imported (pg.c), they are pg's weights
// array with the rest of pg's state as made (train_state_attach).
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../train/config.h"
#include "../../train/state.h"
#include "../../train/weights_npy.h"
#include "../../util/transpose.h"

int pg_npy_write(const Policy *p, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen) {
    const char *bad = weights_unusable(p->w, p->n);
    if (bad) {
        snprintf(err, errlen, "cannot export: %s", bad);
        return -1;
    }
    const int D = p->D, H = p->H;
    double *w1 = malloc(sizeof(double) * (size_t)D * H);
    if (!w1) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    transpose_f64(policy_w1t(p), (size_t)D, (size_t)H, w1); // ours is (D, H); Karpathy's W1 is (H, D)
    const NpyArray a[2] = { { "W1.npy", 2, { (size_t)H, (size_t)D }, w1 },
        { "W2.npy", 1, { (size_t)H, 0 }, policy_w2(p) } };
    int rc = npy_arrays_export(dir, a, 2, NULL, err, errlen);
    free(w1);
    if (!rc) snprintf(wrote, wlen, "%s/W1.npy (%d, %d) and %s/W2.npy (%d,), float64", dir, H, D, dir, H);
    return rc;
}

int pg_npy_read(const char *dir, Policy *p, char *err, size_t errlen) {
    memset(p, 0, sizeof(*p));
    int nd1, nd2;
    size_t s1[4], s2[4];
    double *w1 = NULL, *w2 = NULL;
    int rc = -1;
    if (npy_array_read(dir, "W1.npy", &nd1, s1, &w1, err, errlen) ||
        npy_array_read(dir, "W2.npy", &nd2, s2, &w2, err, errlen))
        goto out;
    if (nd1 != 2 || s1[1] != POLICY_D || s1[0] < 1 || s1[0] > TRAIN_H_MAX) {
        snprintf(err, errlen, "%s/W1.npy: shape must be (H, %d) with 1 <= H <= %d", dir, POLICY_D, TRAIN_H_MAX);
        goto out;
    }
    if (nd2 != 1 || s2[0] != s1[0]) {
        snprintf(err, errlen, "%s/W2.npy: shape must be (%zu,) to match W1", dir, s1[0]);
        goto out;
    }
    const int H = (int)s1[0], D = POLICY_D;
    const char *bad = weights_unusable(w1, (size_t)D * H) ? "W1.npy"
        : weights_unusable(w2, (size_t)H)                 ? "W2.npy"
                                                          : NULL;
    if (bad) {
        snprintf(err, errlen, "%s/%s: weights contain NaN or infinity", dir, bad);
        goto out;
    }
    if (policy_alloc(p, D, H)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    transpose_f64(w1, (size_t)H, (size_t)D, policy_w1t(p));
    memcpy(policy_w2(p), w2, sizeof(double) * H);
    rc = 0;
out:
    free(w1);
    free(w2);
    return rc;
}

const char *pg_bare_npy(const char *dir) {
    char path[RUN_DIR_MAX + 512];
    struct stat st;
    snprintf(path, sizeof(path), "%s/W1.npy", dir);
    return stat(path, &st) == 0 ? "W1.npy/W2.npy" : NULL;
}
