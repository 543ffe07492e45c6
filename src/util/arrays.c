// arrays.c: a table's arrays pointed into one mapping per block (arrays.h).
#include "arrays.h"

#include <stdint.h>
#include <sys/mman.h>

#include "mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define ARRAYS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARRAYS_ASAN 1
#endif
#endif
#ifdef ARRAYS_ASAN
#include <sanitizer/asan_interface.h>
#define ARRAYS_GAP MEM_PAD // a poisoned line after each array
#else
#define ARRAYS_GAP 0
#endif

// Where an array of `bytes` starts at or after offset `at`: a line of its own, a huge page if it
// is that large. SIZE_MAX if past size_t.
static size_t place(size_t at, size_t bytes) {
    const size_t align = bytes >= HUGE_PAGE_BYTES ? HUGE_PAGE_BYTES : MEM_PAD;
    if (at > SIZE_MAX - align) return SIZE_MAX;
    return (at + align - 1) / align * align;
}

// bytes of zeroed memory, aligned to HUGE_PAGE_BYTES and marked for huge pages when that large
// (bytes then a multiple of it).
static void *map_zeroed(size_t bytes) {
    const size_t extra = bytes >= HUGE_PAGE_BYTES ? HUGE_PAGE_BYTES : 0;
    if (bytes > SIZE_MAX - extra) return NULL;
    char *m = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (!extra) return m;
    char *p = (char *)(((uintptr_t)m + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES);
    if (p > m) munmap(m, (size_t)(p - m)); // the mapping's ends past the aligned span
    if (m + extra > p) munmap(p + bytes, (size_t)(m + extra - p));
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE); // advice only: harmless where unsupported
#endif
    return p;
}

int arrays_make(ArraySpec *spec, int n, ArrayBlocks *out) {
    *out = (ArrayBlocks){ 0 };
    size_t end[ARRAYS_BLOCKS] = { 0 }, at[n > 0 ? n : 1];
    for (int i = 0; i < n; i++) {
        ArraySpec *a = &spec[i];
        if (a->block < 0 || a->block >= ARRAYS_BLOCKS || (a->elem && a->count > (SIZE_MAX / 2) / a->elem)) return -1;
        const size_t bytes = a->elem * a->count;
        at[i] = place(end[a->block], bytes);
        if (at[i] > SIZE_MAX / 2 - bytes - ARRAYS_GAP) return -1;
        end[a->block] = at[i] + bytes + (bytes ? ARRAYS_GAP : 0);
    }
    for (int k = 0; k < ARRAYS_BLOCKS; k++) {
        if (!end[k]) continue;
        // rounded to MEM_PAD (the last array's line is its own too), a huge block to huge pages
        size_t bytes = place(end[k], 0);
        if (bytes >= HUGE_PAGE_BYTES) bytes = place(bytes, bytes);
        if (!(out->base[k] = map_zeroed(bytes))) {
            arrays_free(out);
            return -1;
        }
        out->bytes[k] = bytes;
#ifdef ARRAYS_ASAN
        ASAN_POISON_MEMORY_REGION(out->base[k], bytes);
#endif
    }
    for (int i = 0; i < n; i++) {
        ArraySpec *a = &spec[i];
        const size_t bytes = a->elem * a->count;
        a->at = bytes ? (char *)out->base[a->block] + at[i] : NULL;
#ifdef ARRAYS_ASAN
        if (bytes) ASAN_UNPOISON_MEMORY_REGION(a->at, bytes);
#endif
    }
    return 0;
}

void arrays_free(ArrayBlocks *b) {
    for (int k = 0; k < ARRAYS_BLOCKS; k++)
        if (b->base[k]) {
#ifdef ARRAYS_ASAN
            ASAN_UNPOISON_MEMORY_REGION(b->base[k], b->bytes[k]); // the next mapping there starts clean
#endif
            munmap(b->base[k], b->bytes[k]);
        }
    *b = (ArrayBlocks){ 0 };
}
