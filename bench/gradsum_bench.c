// gradsum_bench.c: the exact sum's conversions (train/gradsum.h) on a range that stays in the
// caches: float64 to fixed point (set, add) and back (to_double), in ns an entry, the best of 7
// rounds. The figure that says whether they vectorise on this CPU; bench/README.md has it on a
// CPU without AVX-512 before and after 2e9d1fc.
//     build/gradsum_bench        (make bench runs it)
#include <stdio.h>

#include "train/gradsum.h"
#include "util/clock.h"

#define N      (64 * 128) // 64 rows of H = 128: 64 KB of float64, 128 KB of fixed point
#define REPS   2000
#define ROUNDS 7

int main(void) {
    static double g[N], out[N];
    GradSum s;
    if (gradsum_alloc(&s, N)) {
        fprintf(stderr, "gradsum_bench: out of memory\n");
        return 1;
    }
    for (int i = 0; i < N; i++) g[i] = (i % 97 - 48) * 1.37e-3; // a gradient's sizes
    double best[3] = { 1e9, 1e9, 1e9 };
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double t = clock_now_s();
        for (int k = 0; k < REPS; k++) bad |= gradsum_set(&s, g, 0, N);
        if ((t = clock_now_s() - t) < best[0]) best[0] = t;
        t = clock_now_s();
        for (int k = 0; k < REPS; k++) bad |= gradsum_add(&s, g, 0, N);
        if ((t = clock_now_s() - t) < best[1]) best[1] = t;
        t = clock_now_s();
        for (int k = 0; k < REPS; k++) gradsum_to_double_range(&s, out, 0, N);
        if ((t = clock_now_s() - t) < best[2]) best[2] = t;
    }
    if (bad) {
        fprintf(stderr, "gradsum_bench: a conversion failed\n");
        return 1;
    }
    const char *name[3] = { "set", "add", "to_double" };
    for (int k = 0; k < 3; k++) printf("gradsum_%s_ns_per_entry: %.2f\n", name[k], best[k] / REPS / N * 1e9);
    gradsum_free(&s);
    return 0;
}
