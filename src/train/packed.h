// packed.h: one float64 array as a checkpoint stores it (checkpoint.h), small where a run is:
// its bits XOR a reference's (a fresh run's array of the same settings: zero wherever training
// has not moved an entry, and Adam's moments and an RMSProp cache are zero on rows never
// touched), then a bitmap of the entries that are not zero followed by those entries' eight
// little-endian bytes as eight planes (all the lowest bytes, ..., all the highest: signs and
// exponents sit together and compress). The bitmap and the top three planes are deflated by zlib
// (one stream); the five low planes (near random where training moved an entry) follow it as
// they are. Lossless: decoding gives the same bits back.
#ifndef PONGRL_TRAIN_PACKED_H
#define PONGRL_TRAIN_PACKED_H

#include <stddef.h>
#include <stdint.h>

// x (n,) against ref (n,; NULL: zeros) into *out (malloc'd, free() it), *outlen bytes. 0, or -1
// (out of memory).
int packed_encode(const double *x, const double *ref, size_t n, uint8_t **out, size_t *outlen);

// The stream in (len bytes) back into *out (malloc'd (n,), free() it): the bits x ^ ref that
// packed_encode was given. Every length is checked before it is used and nothing is allocated
// beyond what len bytes of deflated data can hold. NULL, or what is wrong (*out NULL).
const char *packed_decode(const uint8_t *in, size_t len, size_t n, double **out);

// CRC-32 (zlib) of x's little-endian bytes: what the checkpoint keeps of each array, to know
// that an array came back as it was written.
uint32_t packed_crc(const double *x, size_t n);

// x ^= y bit for bit (n entries): an array back from its difference with the reference.
void packed_xor(double *x, const double *y, size_t n);

#endif
