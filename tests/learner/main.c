// main.c: build/pongrl-testlearner, the pongrl command line with one learner more, the test
// tree's linear.c (tests/sh/test_own_learner.sh): registered before the arguments are parsed,
// as a program with a learner of its own does (algo.h's algo_register).
#include <stdio.h>

#include "algo/algo.h"
#include "cli/commands.h"
#include "linear.h"

int main(int argc, char **argv) {
    char err[256];
    if (algo_register(&LINEAR_LEARNER, err, sizeof(err))) {
        fprintf(stderr, "pongrl: %s\n", err);
        return 1;
    }
    return pongrl_main(argc, argv);
}
