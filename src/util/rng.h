// rng.h: the project's random numbers. xoshiro256** seeded through splitmix64.
//
// Every random stream is derived from a key of small integers (run seed, iteration,
// episode index, purpose), never from a thread or rank, so that any episode can be
// replayed exactly and results do not depend on who played it.
#ifndef PONGRL_RNG_H
#define PONGRL_RNG_H

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus // a C++ program links the C names
extern "C" {
#endif

typedef struct {
    uint64_t s[4];
} Rng;

static inline uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Mix a key of up to four words into one 64-bit seed.
static inline uint64_t rng_key(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    uint64_t x = a;
    uint64_t h = splitmix64(&x);
    x = h ^ b;
    h = splitmix64(&x);
    x = h ^ c;
    h = splitmix64(&x);
    x = h ^ d;
    h = splitmix64(&x);
    return h;
}

static inline void rng_seed(Rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(Rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

// Uniform in [0, 1) with 53 random bits, like numpy's random_sample.
static inline double rng_uniform(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

// Uniform integer in [0, n) (n > 0), by rejection so it is exactly uniform.
static inline uint64_t rng_below(Rng *r, uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do { x = rng_next(r); } while (x >= limit);
    return x % n;
}

// Standard normal by the Marsaglia polar method (one value per call, the pair's second dropped
// so that the stream position depends only on the number of calls).
static inline double rng_normal(Rng *r) {
    double u, v, s;
    do {
        u = 2.0 * rng_uniform(r) - 1.0;
        v = 2.0 * rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

#ifdef __cplusplus
}
#endif

#endif
