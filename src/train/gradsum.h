// gradsum.h: an order-independent sum of episode gradients.
//
// Floating-point addition is not associative, so a float sum of a batch depends on which
// episode arrived first. Each episode's float64 gradient is instead converted to 128-bit
// fixed point (2^-64 resolution, |g| < 2^31 per episode), held as two int64 words
// hi*2^-32 + lo*2^-64, and summed as integers, which is exact and associative. The batch sum
// is therefore the same bits whatever the number of threads or MPI ranks and whatever the
// order of arrival, and it is converted back to float64 once, with one rounding.
// A sum must stay below 2^31 in magnitude too (hi's range): an add or merge that would carry
// it past that fails instead of wrapping (only a diverged run gets there). lo takes up to 2^32
// an episode and holds the sum of 2^31 episodes.
#ifndef PONGRL_GRADSUM_H
#define PONGRL_GRADSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GRADSUM_MAX_ABS 2147483648.0 // 2^31: one episode's gradient entries must stay below

typedef struct {
    size_t n;
    int64_t *hi, *lo; // (n,) each: value = hi * 2^-32 + lo * 2^-64
} GradSum;

int gradsum_alloc(GradSum *s, size_t n); // 0 or -1; zeroed
void gradsum_free(GradSum *s);
void gradsum_zero(GradSum *s);
void gradsum_zero_range(GradSum *s, size_t off, size_t len);
// Add g[off .. off+len) into the sum at the same positions. Returns -1 if an entry is not
// finite or too large to represent (adding nothing), or if a sum passed 2^31 (the range then
// holds garbage).
int gradsum_add(GradSum *s, const double *g, size_t off, size_t len);
// The same, storing instead of adding: the words gradsum_add gives on a zero range (so that a
// range need not be zeroed before its first add).
int gradsum_set(GradSum *s, const double *g, size_t off, size_t len);
int gradsum_merge(GradSum *dst, const GradSum *src); // dst += src, exactly; 0, or -1 as below
// dst[off .. off+len) += src's, exactly. 0, or -1 if a sum passed 2^31 (the range then holds
// garbage).
int gradsum_merge_range(GradSum *dst, const GradSum *src, size_t off, size_t len);
void gradsum_copy_range(GradSum *dst, const GradSum *src, size_t off, size_t len);
// hi * 2^32 + lo (lo >= 0) as a 128-bit two's complement integer: the low word *l (that is
// (hi mod 2^32) * 2^32 + lo) and the high word *h (hi / 2^32 plus the low word's carry). In
// 64-bit operations only, so that loops over entries vectorise.
static inline void gradsum_split(int64_t hi, int64_t lo, int64_t *h, uint64_t *l) {
    uint64_t u = (uint64_t)hi << 32;
    *l = u + (uint64_t)lo;
    *h = (hi >> 32) + (*l < u);
}

// (double)x for any int64 x: the same double as the hardware's conversion (round to nearest
// even), in 64-bit integer and double operations alone, so that loops of it vectorise where the
// vector unit has no int64 conversion (AVX2: only AVX-512 has one). x + 2^63 in two 32-bit
// words, each placed exactly in a double's significand (2^84 + high * 2^32, 2^52 + low); the
// offsets taken off the first exactly (the difference is a multiple of 2^32 of 33 bits), then
// one addition: one rounding of the exact value.
static inline double gradsum_i64_to_double(int64_t x) {
    const uint64_t u = (uint64_t)x ^ 0x8000000000000000ull;
    const uint64_t hb = (u >> 32) | 0x4530000000000000ull, lb = (u & 0xffffffffull) | 0x4330000000000000ull;
    double hd, ld;
    memcpy(&hd, &hb, 8);
    memcpy(&ld, &lb, 8);
    return (hd - (0x1p84 + 0x1p63 + 0x1p52)) + ld;
}

// (int64_t)f for an integral f with |f| < 2^51, likewise without a conversion instruction: f +
// 1.5 * 2^52 is exact (its binade's unit is 1), and its significand's bits are 2^51 + f.
#define GRADSUM_SMALL 0x1p51
static inline int64_t gradsum_small_to_i64(double f) {
    const double t = f + 0x1.8p52;
    uint64_t b;
    memcpy(&b, &t, 8);
    return (int64_t)(b - 0x4338000000000000ull);
}

// The 128-bit value h * 2^64 + l (units of 2^-64) rounded to the nearest double, in 64-bit
// operations that vectorise, where |value| < 2^7 (h in [-128, 128)): a conversion
// (gradsum_i64_to_double, the hardware's result) of l where the value fits int64; else of its
// top 64 bits (h's low byte and l's high 56 bits)
// with l's low byte ORed into the last bit. That is rounding to odd, to at least 55
// significant bits, and a rounding to odd at p >= 53 + 2 bits followed by one to nearest at 53
// is the correct rounding to nearest (Boldo and Melquiond). *far gets non-zero bits where h is
// out of that range; those need the exact conversion (gradsum_value128). No branch and no
// bool, so that loops of it vectorise.
static inline double gradsum_round(int64_t h, uint64_t l, uint64_t *far) {
    const int64_t low = (int64_t)l;
    const int64_t top = (int64_t)(((uint64_t)h << 56) | (l >> 8) | (((l & 0xff) + 0xff) >> 8));
    const double a = gradsum_i64_to_double(low) * 0x1p-64, b = gradsum_i64_to_double(top) * 0x1p-56;
    *far |= (uint64_t)(h + 128) >> 8;
    int64_t ua, ub, r;
    memcpy(&ua, &a, 8);
    memcpy(&ub, &b, 8);
    const int64_t m = -(int64_t)(h == (low >> 63));
    r = (ua & m) | (ub & ~m);
    double d;
    memcpy(&d, &r, 8);
    return d;
}
static inline int gradsum_far(int64_t h) { return h < -128 || h > 127; }
static inline double gradsum_value128(int64_t h, uint64_t l) {
    return (double)((__int128)h * ((__int128)1 << 64) + (__int128)l) * 0x1p-64;
}

// The value hi * 2^-32 + lo * 2^-64 rounded to the nearest double (one rounding).
static inline double gradsum_value(int64_t hi, int64_t lo) {
    __int128 v = (__int128)hi * ((__int128)1 << 32) + lo;
    int64_t v64 = (int64_t)v; // most values fit: a hardware conversion
    return (v64 == v ? (double)v64 : (double)v) * 0x1p-64;
}
void gradsum_to_double(const GradSum *s, double *out);
void gradsum_to_double_range(const GradSum *s, double *restrict out, size_t off, size_t len); // out[0..len)

#endif
