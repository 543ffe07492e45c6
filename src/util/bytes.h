// bytes.h: fixed-layout little-endian byte streams, for blobs that must read the same on
// every platform (the env's cloned state, checkpoints). A Writer never checks room: the caller sizes the
// buffer from the layout it writes. A Reader counts what it was asked for past the end
// (short) instead of reading it.
#ifndef PONGRL_BYTES_H
#define PONGRL_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint8_t *p;
    size_t pos;
} ByteWriter;
typedef struct {
    const uint8_t *p;
    size_t len, pos;
    bool short_read;
} ByteReader;

static inline void bytes_put(ByteWriter *w, const void *b, size_t n) {
    memcpy(w->p + w->pos, b, n);
    w->pos += n;
}
static inline void bytes_put_u8(ByteWriter *w, uint8_t v) { w->p[w->pos++] = v; }
static inline void bytes_put_u32(ByteWriter *w, uint32_t v) {
    for (int i = 0; i < 4; i++) w->p[w->pos++] = (uint8_t)(v >> (8 * i));
}
static inline void bytes_put_u64(ByteWriter *w, uint64_t v) {
    for (int i = 0; i < 8; i++) w->p[w->pos++] = (uint8_t)(v >> (8 * i));
}

static inline void bytes_put_f64(ByteWriter *w, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    bytes_put_u64(w, u);
}

static inline bool bytes_take(ByteReader *r, size_t n) {
    if (r->short_read || r->len - r->pos < n) {
        r->short_read = true;
        return false;
    }
    return true;
}
static inline void bytes_get(ByteReader *r, void *out, size_t n) {
    if (!bytes_take(r, n)) {
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->p + r->pos, n);
    r->pos += n;
}
static inline uint8_t bytes_get_u8(ByteReader *r) {
    if (!bytes_take(r, 1)) return 0;
    return r->p[r->pos++];
}
static inline uint32_t bytes_get_u32(ByteReader *r) {
    if (!bytes_take(r, 4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)r->p[r->pos++] << (8 * i);
    return v;
}
static inline uint64_t bytes_get_u64(ByteReader *r) {
    if (!bytes_take(r, 8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)r->p[r->pos++] << (8 * i);
    return v;
}
static inline double bytes_get_f64(ByteReader *r) {
    uint64_t u = bytes_get_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

#endif
