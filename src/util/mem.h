// mem.h: zeroed allocations for the big parameter-shaped arrays (10 MB each at H = 200), for one
// thread's scratch, and the one way to free a struct's many arrays.
//
// Forward and backward read and write whole 1.6 KB rows of W1 and of the gradient at
// scattered pixels. With 4 KB pages nearly every row is a TLB miss. Aligned to 2 MB and
// marked for transparent huge pages, the arrays cost a few TLB entries in all. Free the
// result with free().
#ifndef PONGRL_MEM_H
#define PONGRL_MEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES (2u << 20)

static inline void *big_calloc(size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    void *p = NULL;
    if (bytes >= HUGE_PAGE_BYTES) {
        if (posix_memalign(&p, HUGE_PAGE_BYTES, bytes)) return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, bytes, MADV_HUGEPAGE); // advice only: harmless where unsupported
#endif
        memset(p, 0, bytes);
        return p;
    }
    return calloc(n, size);
}

// Asks for the cache lines of [p, p + bytes) ahead of their use (write: they will be written).
// The training loops walk rows of H float64s at scattered places in arrays of 15 MB and more;
// on a machine whose caches do not hold them each row waits for memory, unless it was asked
// for a few rows before. A hint: it changes no value.
#define MEM_LINE       64
#define MEM_AHEAD_ROWS 4 // how many rows ahead the row loops ask (acnet.c, PPO's gradient, merge and Adam)
static inline void mem_prefetch(const void *p, size_t bytes) {
    for (size_t o = 0; o < bytes; o += MEM_LINE) __builtin_prefetch((const char *)p + o, 0);
}
static inline void mem_prefetch_w(void *p, size_t bytes) {
    for (size_t o = 0; o < bytes; o += MEM_LINE) __builtin_prefetch((char *)p + o, 1);
}

// Zeroed, for one thread's own scratch (a hidden layer written once per input row): aligned to
// and padded out to MEM_PAD bytes, so that no other allocation, another thread's scratch
// above all, shares a line with it. Two threads' 1 KB hidden layers that malloc had placed
// back to back shared a line: each row's writes bounced it between the cores, and
// acnet_forward's share of a PPO run's CPU time went from 9% to 14%. 128, not 64: the
// adjacent-line prefetcher moves lines in pairs. Free with free().
#define MEM_PAD 128
static inline void *pad_calloc(size_t n, size_t size) {
    if (size && n > (SIZE_MAX - MEM_PAD) / size) return NULL;
    size_t bytes = (n * size + MEM_PAD - 1) / MEM_PAD * MEM_PAD;
    void *p = NULL;
    if (posix_memalign(&p, MEM_PAD, bytes ? bytes : MEM_PAD)) return NULL;
    memset(p, 0, bytes);
    return p;
}

// Frees every pointer given (NULL ones too, as free() does): a struct's owned arrays in one
// line, which the struct then zeroes (`mem_free_all(r->a, r->b); *r = (T){ 0 };`), so that the
// list of what it owns is written once and no free is left out of a long run of them.
#define mem_free_all(...) mem_free_each((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
static inline void mem_free_each(void *const *p, size_t n) {
    for (size_t i = 0; i < n; i++) free(p[i]);
}

#endif
