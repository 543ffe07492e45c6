// digest.h: an order-free digest of weights as they are written, which the ranks of an MPI run
// compare (train/comm.h, Comm.reduce): each learner adds the digest of every range its update
// writes, in any order and on any thread.
#ifndef PONGRL_DIGEST_H
#define PONGRL_DIGEST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

// A sum of hashes of (position, bits) over w[off .. off + len): the same whatever the order the
// ranges come in.
static inline uint64_t digest_range(const double *w, size_t off, size_t len) {
    uint64_t d = 0;
    for (size_t k = 0; k < len; k++) {
        uint64_t x;
        memcpy(&x, &w[off + k], sizeof(x));
        x ^= (off + k) * 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        d += x ^ (x >> 31);
    }
    return d;
}

#endif
