// npy.c: .npy files: magic, version, a header dict padded to 64 bytes, raw little-endian data.
// (The writer and reader assume a little-endian host, as every target of pongrl is.)
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file.h"

static size_t descr_size(const char *descr) {
    if (!strcmp(descr, "<f8")) return 8;
    if (!strcmp(descr, "<i4")) return 4;
    if (!strcmp(descr, "|i1") || !strcmp(descr, "|u1")) return 1;
    return 0;
}

int npy_write_to(FILE *f, const char *descr, int ndim, const size_t *shape, const void *data) {
    size_t esz = descr_size(descr);
    if (!esz || ndim < 0 || ndim > 4) {
        errno = EINVAL;
        return -1;
    }
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
    size_t total = 10 + (size_t)n + 1; // magic(6) version(2) len(2) dict '\n'
    size_t pad = (64 - total % 64) % 64;
    memset(hdr + n, ' ', pad);
    hdr[n + pad] = '\n';
    uint16_t hlen = (uint16_t)(n + pad + 1);
    unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
        (unsigned char)(hlen >> 8) };
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, hlen, f) == hlen &&
        (count == 0 || fwrite(data, esz, count, f) == count);
    return ok && fflush(f) == 0 ? 0 : -1;
}

int npy_write(const char *path, const char *descr, int ndim, const size_t *shape, const void *data) {
    // never through a symlink planted under the name
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
    if (!f) {
        if (fd >= 0) close(fd);
        return -1;
    }
    int rc = npy_write_to(f, descr, ndim, shape, data);
    if (fclose(f) != 0) rc = -1;
    return rc;
}

// ----------------------------------------------------------------------------
// reader: a strict parser of the header dict numpy.save writes, e.g.
//   {'descr': '<f8', 'fortran_order': False, 'shape': (200, 6400), }

typedef struct {
    const char *p, *end;
} Cursor;

static void skip_ws(Cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t')) c->p++;
}

static bool eat(Cursor *c, char ch) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

// A quoted Python string of at most cap-1 characters, no escapes.
static bool parse_str(Cursor *c, char *out, size_t cap) {
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= cap) return false;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) return false;
    c->p++;
    out[n] = 0;
    return true;
}

static bool parse_word(Cursor *c, const char *w) {
    skip_ws(c);
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n)) return false;
    c->p += n;
    return true;
}

// (a, b, ...) with an optional trailing comma; () is a scalar.
static bool parse_shape(Cursor *c, int *ndim, size_t shape[4]) {
    if (!eat(c, '(')) return false;
    *ndim = 0;
    for (;;) {
        if (eat(c, ')')) return true;
        skip_ws(c);
        if (c->p >= c->end || *c->p < '0' || *c->p > '9' || *ndim == 4) return false;
        uint64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (v > (UINT64_MAX - 9) / 10) return false;
            v = v * 10 + (uint64_t)(*c->p++ - '0');
        }
        if (v > SIZE_MAX) return false;
        shape[(*ndim)++] = (size_t)v;
        if (eat(c, ',')) continue;
        if (eat(c, ')')) return true;
        return false;
    }
}

static int parse_header(const char *h, size_t n, char *descr, size_t dcap, bool *fortran, int *ndim, size_t shape[4]) {
    Cursor c = { h, h + n };
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    if (!eat(&c, '{')) return -1;
    for (;;) {
        if (eat(&c, '}')) break;
        char key[32];
        if (!parse_str(&c, key, sizeof(key)) || !eat(&c, ':')) return -1;
        if (!strcmp(key, "descr") && !seen_descr) {
            if (!parse_str(&c, descr, dcap)) return -1;
            seen_descr = true;
        } else if (!strcmp(key, "fortran_order") && !seen_fortran) {
            if (parse_word(&c, "False"))
                *fortran = false;
            else if (parse_word(&c, "True"))
                *fortran = true;
            else
                return -1;
            seen_fortran = true;
        } else if (!strcmp(key, "shape") && !seen_shape) {
            if (!parse_shape(&c, ndim, shape)) return -1;
            seen_shape = true;
        } else
            return -1; // unknown or repeated key
        if (eat(&c, ',')) continue;
        if (eat(&c, '}')) break;
        return -1;
    }
    // numpy pads with spaces to the alignment and ends with a newline
    while (c.p < c.end && (*c.p == ' ' || *c.p == '\n')) c.p++;
    if (c.p != c.end || !seen_descr || !seen_fortran || !seen_shape) return -1;
    return 0;
}

int npy_read(const char *path, const char *descr, int *ndim, size_t shape[4], void **data, char *err, size_t errlen) {
    *data = NULL;
    size_t esz = descr_size(descr);
    if (!esz) {
        snprintf(err, errlen, "unsupported dtype %s", descr);
        return -1;
    }
    char why[FILE_PATH_MAX + 128];
    FILE *f = file_fopen_read(path, why, sizeof(why)); // a FIFO or a device is refused, never waited on
    if (!f) {
        size_t pl = strlen(path); // the caller names the path: the reason alone
        snprintf(err, errlen, "cannot open: %s", !strncmp(why, path, pl) && why[pl] == ':' ? why + pl + 2 : why);
        return -1;
    }
    int rc = -1;
    char *hdr = NULL;
    unsigned char pre[12];
    if (fseeko(f, 0, SEEK_END) != 0) {
        snprintf(err, errlen, "cannot read: %s", strerror(errno));
        goto out;
    }
    off_t fsize = ftello(f);
    rewind(f);
    if (fsize < 10 || fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
        snprintf(err, errlen, "not a .npy file (bad magic)");
        goto out;
    }
    // 1.0: u16 header length; 2.0 and 3.0 (utf-8 header): u32
    size_t hlen, pre_len;
    if (pre[6] == 1 && pre[7] == 0) {
        hlen = pre[8] | (size_t)pre[9] << 8;
        pre_len = 10;
    } else if ((pre[6] == 2 || pre[6] == 3) && pre[7] == 0) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            snprintf(err, errlen, "truncated header");
            goto out;
        }
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
        pre_len = 12;
    } else {
        snprintf(err, errlen, "unsupported .npy format version %d.%d", pre[6], pre[7]);
        goto out;
    }
    if (hlen > 65536 || (off_t)(pre_len + hlen) > fsize) {
        snprintf(err, errlen, "truncated or oversized header");
        goto out;
    }
    hdr = malloc(hlen + 1);
    if (!hdr) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (fread(hdr, 1, hlen, f) != hlen) {
        snprintf(err, errlen, "truncated header");
        goto out;
    }
    hdr[hlen] = 0;
    char got[16];
    bool fortran = false;
    if (memchr(hdr, 0, hlen) || parse_header(hdr, hlen, got, sizeof(got), &fortran, ndim, shape)) {
        snprintf(err, errlen, "malformed header");
        goto out;
    }
    if (strcmp(got, descr)) {
        for (char *c = got; *c; c++)
            if (*c < 0x20 || *c > 0x7e) *c = '?'; // the file's bytes: one line, printable
        snprintf(err, errlen, "dtype %s, expected %s", got, descr);
        goto out;
    }
    if (fortran && *ndim > 1) {
        snprintf(err, errlen, "Fortran order, expected C order");
        goto out;
    }
    size_t count = 1;
    for (int i = 0; i < *ndim; i++) {
        if (shape[i] && count > SIZE_MAX / esz / shape[i]) {
            snprintf(err, errlen, "shape too large");
            goto out;
        }
        count *= shape[i];
    }
    uint64_t expect = (uint64_t)(pre_len + hlen) + (uint64_t)count * esz;
    if ((uint64_t)fsize != expect) {
        snprintf(err, errlen, "%s: data is %lld bytes, the shape needs %llu",
            (uint64_t)fsize < expect ? "truncated" : "trailing bytes", (long long)(fsize - (off_t)(pre_len + hlen)),
            (unsigned long long)(count * esz));
        goto out;
    }
    *data = malloc(count ? count * esz : 1);
    if (!*data) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (count && fread(*data, esz, count, f) != count) {
        snprintf(err, errlen, "cannot read data: %s", ferror(f) ? strerror(errno) : "short file");
        free(*data);
        *data = NULL;
        goto out;
    }
    rc = 0;
out:
    free(hdr);
    fclose(f);
    return rc;
}
