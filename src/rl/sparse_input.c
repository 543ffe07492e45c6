// sparse_input.c: the sparse input of a state (sparse_input.h).
#include "sparse_input.h"

#include <string.h>

#if defined(__AVX512BW__)
#include <immintrin.h>
#endif

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sparse_input.c reads the bytes of a word in little-endian order"
#endif


// The input of a state (sparse_input.h): the frame's pixels (+1), then at 6400 + k the difference
// cur - prev; with coarse views, then the coarse view of the frame (+1) and its difference from
// the previous frame's. The scans skip 64 zero (or unchanged) bytes at a time, then 8: ~99% of
// the 80x80 grid is zeros, and a scan of words alone was a tenth of a training run's time.
#define SPAN 64 // POLICY_D is a multiple
// Whether SPAN bytes of a equal those of b (b NULL: are zero).
__attribute__((always_inline)) static inline bool span_same(const uint8_t *a, const uint8_t *b) {
    uint64_t u[SPAN / 8], v[SPAN / 8] = { 0 }, o = 0;
    memcpy(u, a, SPAN);
    if (b) memcpy(v, b, SPAN);
    for (int k = 0; k < SPAN / 8; k++) o |= u[k] ^ v[k];
    return !o;
}

// Pixel k's three coarse cells: its 4x4 cell, its row in its band of columns, its column in its
// band of rows.
static inline void coarse_cells(int k, int cell[3]) {
    const int y = k / 80, x = k % 80;
    cell[0] = (y / SPARSE_POOL) * (80 / SPARSE_POOL) + x / SPARSE_POOL;
    cell[1] = SPARSE_COARSE_ROWS + (x / SPARSE_BAND) * 80 + y;
    cell[2] = SPARSE_COARSE_COLS + (y / SPARSE_BAND) * 80 + x;
}

// Pixel k's cells lit in c.
static inline void coarse_mark(int k, uint8_t *c) {
    int cell[3];
    coarse_cells(k, cell);
    for (int i = 0; i < 3; i++) c[cell[i]] = 1;
}

// 0x80 in each byte of x that is not zero, 0 in the others (no carry crosses a byte: each
// byte's low seven bits plus 0x7f is at most 0xfe).
static inline uint64_t nonzero_bytes(uint64_t x) {
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    return (((x & low7) + low7) | x) & ~low7;
}

// Appends to idx/sign (from entry n; sign may be NULL) base + k and cur[k] - prev[k] for every k
// < len where they differ (prev NULL: where cur[k] is not zero); returns the new count. The
// differing bytes of a stretch come as the set bits of a mask, taken in order: a branch on each
// byte's test was most of a scan's time (the tests follow no pattern). With AVX-512 a stretch is
// 64 bytes, one compare; else 8 bytes, nonzero_bytes of a word, after SPAN bytes found the
// same were skipped whole.
__attribute__((always_inline)) static inline int take_bits(uint64_t m, int b, int step, const uint8_t *cur,
    const uint8_t *prev, int base, uint16_t *idx, int8_t *sign, int n) {
    for (; m; m &= m - 1) {
        const int k = b + __builtin_ctzll(m) / step;
        if (sign) sign[n] = (int8_t)(prev ? cur[k] - prev[k] : 1);
        idx[n++] = (uint16_t)(base + k);
    }
    return n;
}

__attribute__((always_inline)) static inline int scan(
    const uint8_t *cur, const uint8_t *prev, int len, int base, uint16_t *idx, int8_t *sign, int n) {
    int b = 0;
#if defined(__AVX512BW__)
    for (; b + 64 <= len; b += 64) {
        const __m512i c = _mm512_loadu_si512(cur + b);
        const uint64_t m =
            prev ? _mm512_cmpneq_epi8_mask(c, _mm512_loadu_si512(prev + b)) : _mm512_test_epi8_mask(c, c);
        n = take_bits(m, b, 1, cur, prev, base, idx, sign, n);
    }
#endif
    for (; b < len; b += 8) {
        if (b % SPAN == 0 && b + SPAN <= len && span_same(cur + b, prev ? prev + b : NULL)) {
            b += SPAN - 8;
            continue;
        }
        uint64_t c, q = 0;
        memcpy(&c, cur + b, 8);
        if (prev) memcpy(&q, prev + b, 8);
        // byte j of the word at bits 8j: little-endian
        n = take_bits(nonzero_bytes(c ^ q), b, 8, cur, prev, base, idx, sign, n);
    }
    return n;
}

// The coarse view (SPARSE_COARSE bytes, 1 where a cell is lit) of the n lit pixels of a frame.
static void coarse_of_lit(const uint16_t *lit, int n, uint8_t *c) {
    memset(c, 0, SPARSE_COARSE);
    for (int t = 0; t < n; t++) coarse_mark(lit[t], c);
}

// The coarse entries after entry n: the view cc's cells (+1), then its difference from pc.
static int coarse_entries(const uint8_t *cc, const uint8_t *pc, uint16_t *idx, int8_t *sign, int n) {
    n = scan(cc, NULL, SPARSE_COARSE, 2 * POLICY_D, idx, sign, n);
    return scan(cc, pc, SPARSE_COARSE, 2 * POLICY_D + SPARSE_COARSE, idx, sign, n);
}

int sparse_input(const uint8_t *cur, const uint8_t *prev, bool coarse, uint16_t *idx, int8_t *sign) {
    int n = scan(cur, NULL, POLICY_D, 0, idx, sign, 0);
    n = scan(cur, prev, POLICY_D, POLICY_D, idx, sign, n);
    if (!coarse) return n;
    uint8_t cc[SPARSE_COARSE], pc[SPARSE_COARSE];
    uint16_t lit[POLICY_D];
    coarse_of_lit(lit, scan(cur, NULL, POLICY_D, 0, lit, NULL, 0), cc);
    coarse_of_lit(lit, scan(prev, NULL, POLICY_D, 0, lit, NULL, 0), pc);
    return coarse_entries(cc, pc, idx, sign, n);
}

int sparse_lit(const uint8_t *f, uint16_t *lit) { return scan(f, NULL, POLICY_D, 0, lit, NULL, 0); }

int sparse_input_lit(
    const uint16_t *cur, int nc, const uint16_t *prev, int np, bool coarse, uint16_t *idx, int8_t *sign) {
    int n = 0;
    for (int i = 0; i < nc; i++) {
        idx[n] = cur[i];
        sign[n++] = 1;
    }
    // the difference: the pixels lit in one frame alone, merged in ascending order
    for (int i = 0, j = 0; i < nc || j < np;) {
        if (j == np || (i < nc && cur[i] < prev[j])) {
            idx[n] = (uint16_t)(POLICY_D + cur[i++]);
            sign[n++] = 1;
        } else if (i == nc || prev[j] < cur[i]) {
            idx[n] = (uint16_t)(POLICY_D + prev[j++]);
            sign[n++] = -1;
        } else {
            i++;
            j++;
        }
    }
    if (!coarse) return n;
    // the coarse views as bytes, scanned as the frames are (7 to 9% faster a call than setting
    // the cells' bits in bitmaps and taking the set bits, in a microbenchmark on a game's frames)
    uint8_t cc[SPARSE_COARSE], pc[SPARSE_COARSE];
    coarse_of_lit(cur, nc, cc);
    coarse_of_lit(prev, np, pc);
    return coarse_entries(cc, pc, idx, sign, n);
}
