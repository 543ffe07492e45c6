// test_mem.c: util/mem.h's mem_free_all frees every pointer it is given, NULL among them. The
// unit tests run under ASan, whose allocator counts the bytes still allocated.
#include <criterion/criterion.h>
#include <stdlib.h>

#include "util/mem.h"

// ASan's (<sanitizer/allocator_interface.h>, which gcc does not install): the bytes the program
// has allocated and not yet freed.
size_t __sanitizer_get_current_allocated_bytes(void);

Test(mem, free_all_frees_every_pointer) {
    const size_t before = __sanitizer_get_current_allocated_bytes();
    char *a = malloc(1000);
    double *b = calloc(300, sizeof(double));
    int *none = NULL;
    void *c = big_calloc(HUGE_PAGE_BYTES / 8, 8); // the huge-page path: posix_memalign
    cr_assert(a && b && c);
    cr_assert_geq(__sanitizer_get_current_allocated_bytes(), before + 1000 + 2400 + HUGE_PAGE_BYTES);
    mem_free_all(a, b, none, c);
    cr_expect_eq(__sanitizer_get_current_allocated_bytes(), before, "%zu bytes left allocated",
        __sanitizer_get_current_allocated_bytes() - before);
}

Test(mem, free_all_of_one_pointer) {
    const size_t before = __sanitizer_get_current_allocated_bytes();
    mem_free_all(malloc(64));
    cr_expect_eq(__sanitizer_get_current_allocated_bytes(), before);
}
