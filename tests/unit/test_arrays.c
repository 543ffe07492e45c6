// test_arrays.c: arrays_make (util/arrays.h) gives every array of a table, zeroed, on a line of its
// own (MEM_PAD), one of HUGE_PAGE_BYTES or more on a huge page, no two overlapping, each block one
// mapping; a length past size_t is refused with nothing made.
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "util/arrays.h"
#include "util/mem.h"

Test(arrays, placed_zeroed_apart) {
    ArraySpec spec[] = {
        { sizeof(double), 5, 0, NULL },
        { 1, 3, 1, NULL },
        { sizeof(float), HUGE_PAGE_BYTES / 2 + 1, 0, NULL }, // past a huge page: on one
        { sizeof(int), 0, 0, NULL },                         // none
        { sizeof(uint16_t), 77, 0, NULL },
    };
    const int n = sizeof(spec) / sizeof(spec[0]);
    ArrayBlocks b;
    cr_assert_eq(arrays_make(spec, n, &b), 0);
    cr_assert_null(spec[3].at);
    cr_assert_eq((uintptr_t)spec[2].at % HUGE_PAGE_BYTES, 0);
    for (int i = 0; i < n; i++) {
        if (!spec[i].at) continue;
        const size_t bytes = spec[i].elem * spec[i].count;
        const char *a = spec[i].at, *base = b.base[spec[i].block];
        cr_assert_eq((uintptr_t)a % MEM_PAD, 0, "array %d", i);
        cr_assert(a >= base && a + bytes <= base + b.bytes[spec[i].block], "array %d inside its block", i);
        for (size_t k = 0; k < bytes; k++) cr_assert_eq(a[k], 0, "array %d byte %zu", i, k);
        for (int j = 0; j < n; j++) {
            if (j == i || !spec[j].at) continue;
            const char *o = spec[j].at;
            const size_t ob = spec[j].elem * spec[j].count;
            cr_assert(a + bytes <= o || o + ob <= a, "arrays %d and %d overlap", i, j);
            // no line shared: the next array starts on a later line than this one's last
            if (o > a) cr_assert((uintptr_t)(a + bytes - 1) / MEM_PAD < (uintptr_t)o / MEM_PAD);
        }
        memset(spec[i].at, 0xff, bytes); // writable, whole
    }
    cr_assert_eq(spec[1].at, b.base[1]);
    arrays_free(&b);
    cr_assert_null(b.base[0]);
    arrays_free(&b); // twice: nothing left to free
}

Test(arrays, too_long_refused) {
    ArraySpec spec[] = { { 8, 4, 0, NULL }, { 8, SIZE_MAX / 4, 1, NULL } };
    ArrayBlocks b;
    cr_assert_eq(arrays_make(spec, 2, &b), -1);
    cr_assert_null(b.base[0]);
    cr_assert_null(b.base[1]);
    ArraySpec bad[] = { { 8, 4, ARRAYS_BLOCKS, NULL } };
    cr_assert_eq(arrays_make(bad, 1, &b), -1);
}
