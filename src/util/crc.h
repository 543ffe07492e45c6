// crc.h: zlib's CRC-32 of a buffer of any size (zlib takes uInt lengths: fed in pieces, so a
// buffer past 4 GiB is not cut short). The checkpoint's checksum and the weights crc32 that
// `pongrl train` prints (and the docs and tests quote) are this.
#ifndef PONGRL_CRC_H
#define PONGRL_CRC_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

static inline uint32_t crc32_of(const void *buf, size_t len) {
    const unsigned char *b = buf;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < len; off += 1u << 30) {
        size_t chunk = len - off < (1u << 30) ? len - off : (1u << 30);
        crc = crc32(crc, b + off, (uInt)chunk);
    }
    return (uint32_t)crc;
}

#endif
