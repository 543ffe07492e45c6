// test_hooks.h: fault injection for the MPI tests. Only the test build reads these variables
// (build/pongrl-testhooks, compiled with -DPONGRL_TEST_HOOKS: tests/sh/test_mpi_identical.sh,
// test_mpi_mismatch.sh); the product binary build/pongrl has none of it:
//   PONGRL_WIRE_HIGH=2|8        entries' high parts of at least that many bytes (wire_size.h)
//   PONGRL_TEST_WIRE_RETRY=K    iteration K's first all-reduce is done again, wider
//   PONGRL_TEST_DIVERGE=R       rank R's third update is made wrong (the digest check must see it)
#ifndef PONGRL_TEST_HOOKS_H
#define PONGRL_TEST_HOOKS_H

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    int wire_high;           // 1 (the narrowest), 2 or 8
    int64_t retry_iteration; // -1: none
    int diverge_rank;        // -1: none
} TestHooks;

static inline TestHooks test_hooks_read(void) {
    TestHooks h = { 1, -1, -1 };
#ifdef PONGRL_TEST_HOOKS
    const char *high = getenv("PONGRL_WIRE_HIGH"), *retry = getenv("PONGRL_TEST_WIRE_RETRY"),
               *diverge = getenv("PONGRL_TEST_DIVERGE");
    if (high && (atoi(high) == 2 || atoi(high) == 8)) h.wire_high = atoi(high);
    if (retry) h.retry_iteration = atoll(retry);
    if (diverge) h.diverge_rank = atoi(diverge);
#endif
    return h;
}

#endif
