// weights_npy.c: the weights in and out of the seed's NumPy layout (weights_npy.h).
#include "weights_npy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/file.h"
#include "../util/npy.h"
#include "../util/transpose.h"
#include "state.h"

#define NPY_PATH_MAX (RUN_DIR_MAX + 512)

// W1.npy and W2.npy are written whole beside their names, then both renamed (file_replace):
// a full disk or a kill leaves the previous pair (or none), never a partial file.
int weights_export_npy(const Policy *p, const char *dir, char *err, size_t errlen) {
    const char *bad = weights_unusable(p->w, p->n);
    if (bad) { snprintf(err, errlen, "cannot export: %s", bad); return -1; }
    const int D = p->D, H = p->H;
    double *w1 = malloc(sizeof(double) * (size_t)D * H);
    if (!w1) { snprintf(err, errlen, "out of memory"); return -1; }
    transpose_f64(policy_w1t(p), (size_t)D, (size_t)H, w1);          // ours is (D, H); the seed's W1 is (H, D)
    FileReplace f[2];
    bool pending[2] = { false, false };                               // a temporary file to remove on failure
    size_t s1[2] = { (size_t)H, (size_t)D }, s2[1] = { (size_t)H };
    char path[NPY_PATH_MAX];
    int rc = -1;
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof(path), "%s/W%d.npy", dir, k + 1);
        if (file_replace_begin(&f[k], path, err, errlen)) goto out;
        pending[k] = true;
    }
    for (int k = 0; k < 2; k++)
        if (k == 0 ? npy_write(f[0].tmp, "<f8", 2, s1, w1) : npy_write(f[1].tmp, "<f8", 1, s2, policy_w2(p))) {
            snprintf(err, errlen, "cannot write %s: %s", f[k].tmp, strerror(errno));
            goto out;
        }
    for (int k = 0; k < 2; k++) {
        pending[k] = false;                                           // commit removes it itself on failure
        if (file_replace_commit(&f[k], err, errlen)) goto out;
    }
    rc = 0;
out:
    for (int k = 0; k < 2; k++) if (pending[k]) file_replace_abort(&f[k]);
    free(w1);
    return rc;
}

int weights_import_npy(const char *dir, Policy *p, char *err, size_t errlen) {
    memset(p, 0, sizeof(*p));
    char p1[NPY_PATH_MAX], p2[NPY_PATH_MAX], why[256];
    snprintf(p1, sizeof(p1), "%s/W1.npy", dir);
    snprintf(p2, sizeof(p2), "%s/W2.npy", dir);
    int nd1, nd2;
    size_t s1[4], s2[4];
    double *w1 = NULL, *w2 = NULL;
    int rc = -1;
    if (npy_read(p1, "<f8", &nd1, s1, (void **)&w1, why, sizeof(why))) { snprintf(err, errlen, "%s: %s", p1, why); goto out; }
    if (npy_read(p2, "<f8", &nd2, s2, (void **)&w2, why, sizeof(why))) { snprintf(err, errlen, "%s: %s", p2, why); goto out; }
    if (nd1 != 2 || s1[1] != POLICY_D || s1[0] < 1 || s1[0] > TRAIN_H_MAX) {
        snprintf(err, errlen, "%s: shape must be (H, %d) with 1 <= H <= %d", p1, POLICY_D, TRAIN_H_MAX);
        goto out;
    }
    if (nd2 != 1 || s2[0] != s1[0]) { snprintf(err, errlen, "%s: shape must be (%zu,) to match W1", p2, s1[0]); goto out; }
    const int H = (int)s1[0], D = POLICY_D;
    if (policy_alloc(p, D, H)) { snprintf(err, errlen, "out of memory"); goto out; }
    transpose_f64(w1, (size_t)H, (size_t)D, policy_w1t(p));
    memcpy(policy_w2(p), w2, sizeof(double) * H);
    const char *bad = weights_unusable(policy_w1t(p), (size_t)D * H) ? p1
                      : weights_unusable(policy_w2(p), (size_t)H) ? p2 : NULL;
    if (bad) { snprintf(err, errlen, "%s: weights contain NaN or infinity", bad); policy_free(p); goto out; }
    rc = 0;
out:
    free(w1);
    free(w2);
    return rc;
}
