// test_files.h: what several unit tests do with files (not a test itself).
#ifndef PONGRL_TEST_FILES_H
#define PONGRL_TEST_FILES_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// The whole file at path, malloc'd (the caller frees it); its size in *len.
static inline uint8_t *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*len);
    cr_assert_eq(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

#endif
