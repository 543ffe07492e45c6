// npy.c: the .npy writer: magic, version 1.0, a header dict padded to 64 bytes, raw data.
#include "npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static size_t descr_size(const char *descr) {
    if (!strcmp(descr, "<f8")) return 8;
    if (!strcmp(descr, "<i4")) return 4;
    if (!strcmp(descr, "|i1") || !strcmp(descr, "|u1")) return 1;
    return 0;
}

int npy_write(const char *path, const char *descr, int ndim, const size_t *shape, const void *data) {
    size_t esz = descr_size(descr);
    if (!esz || ndim < 0 || ndim > 4) { errno = EINVAL; return -1; }
    char dims[128] = "";
    size_t count = 1;
    for (int i = 0; i < ndim; i++) {
        char d[32];
        snprintf(d, sizeof(d), ndim == 1 ? "%zu," : (i ? " %zu" : "%zu"), shape[i]);
        if (ndim > 1 && i < ndim - 1) strcat(d, ",");
        strcat(dims, d);
        count *= shape[i];
    }
    char hdr[256];
    int n = snprintf(hdr, sizeof(hdr), "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
    size_t total = 10 + (size_t)n + 1;                 // magic(6) version(2) len(2) dict '\n'
    size_t pad = (64 - total % 64) % 64;
    memset(hdr + n, ' ', pad);
    hdr[n + pad] = '\n';
    uint16_t hlen = (uint16_t)(n + pad + 1);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, hlen, f) == hlen &&
             (count == 0 || fwrite(data, esz, count, f) == count);
    if (fclose(f) != 0) ok = 0;
    return ok ? 0 : -1;
}
