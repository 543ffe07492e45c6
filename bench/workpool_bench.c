// workpool_bench.c: the round trip of util/workpool.h: jobs of 16 parts on one thread and the
// caller, parts empty or busy for 2 us (a vector env's step of a few envs per part). It is the
// figure the pool's waiting strategy decides; bench/README.md has it with the spin turned off.
//     build/workpool_bench        (make bench runs it)
#include <stdio.h>
#include <time.h>

#include "util/workpool.h"

#define PARTS       16
#define WARMUP_JOBS 100

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void busy_part(void *ctx, int part, int worker) {
    const double ns = *(const double *)ctx, t0 = now_s();
    while ((now_s() - t0) * 1e9 < ns) {}
}

int main(void) {
    WorkPool *wp = workpool_create(1);
    if (!wp) {
        fprintf(stderr, "workpool_bench: cannot start a thread\n");
        return 1;
    }
    const double work_ns[2] = { 0, 2000 };
    const int jobs[2] = { 20000, 5000 };
    for (int k = 0; k < 2; k++) {
        double ns = work_ns[k];
        for (int i = 0; i < WARMUP_JOBS; i++) workpool_run(wp, PARTS, busy_part, &ns);
        double t0 = now_s();
        for (int i = 0; i < jobs[k]; i++) workpool_run(wp, PARTS, busy_part, &ns);
        printf("workpool_us_per_job_parts_%s: %.2f\n", k ? "2us" : "empty", (now_s() - t0) / jobs[k] * 1e6);
    }
    workpool_destroy(wp);
    return 0;
}
