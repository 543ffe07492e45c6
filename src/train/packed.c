// packed.c: an array's stored form (packed.h): the difference, the bitmap and the byte planes,
// deflated; and back.
#include "packed.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// zlib's fastest: the planes of moved entries are near random, a higher level gains about 1% and
// costs a second a checkpoint
#define PACKED_LEVEL     1
#define PACKED_RATIO_MAX 1032u      // deflate never expands more than this (258-byte matches)
#define PACKED_CHUNK     (1u << 30) // zlib counts in uInt: fed in pieces

static uint64_t bits_of(double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    return u;
}

// Where plane b (byte b of every moved entry, k of them) sits after the bitmap's nb bytes: the
// top PACKED_ZPLANES planes (sign, exponent, the first bits of the fraction: they repeat) first,
// deflated with the bitmap, then the others as they are.
#define PACKED_ZPLANES 3
static size_t plane_at(size_t nb, size_t k, int b) {
    return b >= 8 - PACKED_ZPLANES ? nb + (size_t)(b - (8 - PACKED_ZPLANES)) * k
                                   : nb + PACKED_ZPLANES * k + (size_t)b * k;
}

static uint64_t diff_at(const double *x, const double *ref, size_t i) {
    return bits_of(x[i]) ^ (ref ? bits_of(ref[i]) : 0);
}

int packed_encode(const double *x, const double *ref, size_t n, uint8_t **out, size_t *outlen) {
    *out = NULL;
    *outlen = 0;
    const size_t nb = (n + 7) / 8;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += diff_at(x, ref, i) != 0;
    // raw: bitmap (nb) | planes 5, 6, 7 (k each: deflated with the bitmap) | planes 0 .. 4 (k each,
    // stored as they are: a moved entry's low bytes are near random, and deflating them took
    // most of a checkpoint's time for a few per cent)
    const size_t zlen = nb + PACKED_ZPLANES * k, rawlen = nb + 8 * k;
    uint8_t *raw = calloc(rawlen ? rawlen : 1, 1);
    if (!raw) return -1;
    for (size_t i = 0, j = 0; i < n; i++) {
        const uint64_t d = diff_at(x, ref, i);
        if (!d) continue;
        raw[i >> 3] |= (uint8_t)(1u << (i & 7));
        for (int b = 0; b < 8; b++) raw[plane_at(nb, k, b) + j] = (uint8_t)(d >> (8 * b));
        j++;
    }
    uLong cap = compressBound((uLong)zlen);
    uint8_t *z = malloc(cap + (rawlen - zlen));
    if (!z || compress2(z, &cap, raw, (uLong)zlen, PACKED_LEVEL) != Z_OK) {
        free(z);
        free(raw);
        return -1;
    }
    memcpy(z + cap, raw + zlen, rawlen - zlen);
    free(raw);
    *out = z;
    *outlen = cap + (rawlen - zlen);
    return 0;
}

// Exactly `want` bytes of the stream into dst (input fed from in[*pos ..)). 0, or -1 (the stream
// is broken or ends first).
static int inflate_exact(z_stream *z, const uint8_t *in, size_t len, size_t *pos, uint8_t *dst, size_t want) {
    size_t got = 0;
    while (got < want) {
        if (z->avail_in == 0 && *pos < len) {
            size_t c = len - *pos < PACKED_CHUNK ? len - *pos : PACKED_CHUNK;
            z->next_in = (Bytef *)(in + *pos);
            z->avail_in = (uInt)c;
            *pos += c;
        }
        size_t c = want - got < PACKED_CHUNK ? want - got : PACKED_CHUNK;
        z->next_out = dst + got;
        z->avail_out = (uInt)c;
        int rc = inflate(z, Z_NO_FLUSH);
        got += c - z->avail_out;
        if (rc == Z_STREAM_END) break;
        if (rc != Z_OK) return -1;
    }
    return got == want ? 0 : -1;
}

// The stream ends here, and exactly `rest` bytes of input follow it.
static int inflate_ends(z_stream *z, const uint8_t *in, size_t len, size_t *pos, size_t rest) {
    uint8_t extra;
    for (;;) {
        if (z->avail_in == 0 && *pos < len) {
            size_t c = len - *pos < PACKED_CHUNK ? len - *pos : PACKED_CHUNK;
            z->next_in = (Bytef *)(in + *pos);
            z->avail_in = (uInt)c;
            *pos += c;
        }
        z->next_out = &extra;
        z->avail_out = 1;
        int rc = inflate(z, Z_NO_FLUSH);
        if (z->avail_out == 0) return -1; // more data than the array holds
        if (rc == Z_STREAM_END) return (size_t)z->avail_in + (len - *pos) == rest ? 0 : -1;
        if (rc != Z_OK) return -1;
    }
}

const char *packed_decode(const uint8_t *in, size_t len, size_t n, double **out) {
    *out = NULL;
    const size_t nb = (n + 7) / 8;
    const double room = ((double)len + 64) * PACKED_RATIO_MAX; // what len bytes can inflate to, at most
    if ((double)nb > room) return "more entries than its data can hold";
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit(&z) != Z_OK) return "out of memory";
    const char *why = NULL;
    uint8_t *bitmap = malloc(nb ? nb : 1), *planes = NULL;
    size_t pos = 0, k = 0;
    if (!bitmap) {
        why = "out of memory";
        goto out;
    }
    if (inflate_exact(&z, in, len, &pos, bitmap, nb)) {
        why = "its data is not a whole zlib stream of its size";
        goto out;
    }
    for (size_t i = 0; i < nb; i++) k += (size_t)__builtin_popcount(bitmap[i]);
    if ((n & 7) && (bitmap[nb - 1] >> (n & 7))) {
        why = "its bitmap marks entries past its length";
        goto out;
    }
    const size_t stored = (8 - PACKED_ZPLANES) * k; // the planes after the stream
    if ((double)nb + PACKED_ZPLANES * (double)k > room || stored > len) {
        why = "more entries than its data can hold";
        goto out;
    }
    if (!(planes = malloc(k ? 8 * k : 1))) {
        why = "out of memory";
        goto out;
    }
    if (inflate_exact(&z, in, len, &pos, planes, PACKED_ZPLANES * k) || inflate_ends(&z, in, len, &pos, stored)) {
        why = "its data is not a whole zlib stream of its size";
        goto out;
    }
    memcpy(planes + PACKED_ZPLANES * k, in + len - stored, stored);
    double *x = calloc(n ? n : 1, sizeof(double));
    if (!x) {
        why = "out of memory";
        goto out;
    }
    for (size_t i = 0, j = 0; i < n; i++) {
        if (!(bitmap[i >> 3] >> (i & 7) & 1)) continue;
        uint64_t d = 0;
        for (int b = 0; b < 8; b++) d |= (uint64_t)planes[plane_at(0, k, b) + j] << (8 * b);
        memcpy(&x[i], &d, 8);
        j++;
    }
    *out = x;
out:
    inflateEnd(&z);
    free(bitmap);
    free(planes);
    return why;
}

uint32_t packed_crc(const double *x, size_t n) {
    uint8_t buf[8 * 512];
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t i = 0; i < n; i += 512) {
        const size_t m = n - i < 512 ? n - i : 512;
        for (size_t j = 0; j < m; j++) {
            const uint64_t u = bits_of(x[i + j]);
            for (int b = 0; b < 8; b++) buf[8 * j + (size_t)b] = (uint8_t)(u >> (8 * b));
        }
        crc = crc32(crc, buf, (uInt)(8 * m));
    }
    return (uint32_t)crc;
}

void packed_xor(double *x, const double *y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = bits_of(x[i]) ^ bits_of(y[i]);
        memcpy(&x[i], &u, 8);
    }
}
