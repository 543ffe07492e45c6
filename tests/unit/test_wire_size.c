// The size of the all-reduce's high parts over iterations (src/cluster/wire_size.h).
#include <criterion/criterion.h>

#include "cluster/wire_size.h"

// n iterations in which every all-reduce at fewer than `need` bytes fails; returns the retries.
static int run(WireSize *w, int need, int n) {
    int retries = 0;
    for (int i = 0; i < n; i++) {
        while (w->hs < need) {
            cr_assert(wire_size_failed(w));
            retries++;
        }
        wire_size_done(w);
    }
    return retries;
}

Test(wire_size, starts_narrow_widens_on_demand_and_backs_off) {
    WireSize w;
    wire_size_init(&w, 1);
    cr_expect_eq(run(&w, 1, 1000), 0, "small sums never retry");
    cr_expect_eq(w.hs, 1);
    cr_expect_eq(run(&w, 2, 1), 1, "a sum past 1 byte: one retry");
    cr_expect_eq(w.hs, 2);
    // the wider size holds for WIRE_KEEP iterations, then 1 byte is tried again
    cr_expect_eq(run(&w, 2, WIRE_KEEP - 2), 0);
    cr_expect_eq(w.hs, 2);
    cr_expect_eq(run(&w, 2, 1), 0);
    cr_expect_eq(w.hs, 1, "no probe after %d iterations", WIRE_KEEP);
    // sums that need 2 bytes for good: probes fail ever more rarely (after 64, 128, ... then
    // every WIRE_KEEP_MAX iterations): 7 while backing off, then one a WIRE_KEEP_MAX
    int retries = run(&w, 2, 100000);
    cr_expect_leq(retries, 7 + 100000 / WIRE_KEEP_MAX, "%d retries in 100000 iterations", retries);
    cr_expect_geq(retries, 100000 / WIRE_KEEP_MAX - 1, "%d retries: the probes stopped", retries);
    cr_expect_eq(w.keep, WIRE_KEEP_MAX);
    // sums small again: the next probe works, and the base interval is back
    while (w.hs != 1) run(&w, 1, 1);
    cr_expect_eq(run(&w, 1, 1), 0);
    cr_expect_eq(w.keep, WIRE_KEEP);
    // past 2 bytes: straight to 8, and 8 cannot widen
    cr_expect_eq(run(&w, 8, 1), 2);
    cr_expect_eq(w.hs, 8);
    cr_expect(!wire_size_failed(&w));
}

Test(wire_size, never_below_the_minimum) {
    WireSize w;
    wire_size_init(&w, 2);
    cr_expect_eq(run(&w, 1, 10000), 0);
    cr_expect_eq(w.hs, 2);
    cr_expect_eq(run(&w, 8, 1), 1);
    run(&w, 1, 10 * WIRE_KEEP);
    cr_expect_eq(w.hs, 2, "narrowed below PONGRL_WIRE_HIGH's 2 bytes");
}
