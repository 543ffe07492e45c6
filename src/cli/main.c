// main.c: build/pongrl, distributed policy-gradient Pong from pixels.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const char *USAGE =
    "usage: pongrl <command> [options]   (pongrl <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  train        learn Pong from pixels with the seed's policy gradient (threads; MPI under mpirun)\n"
    "  eval         play games with a trained model: mean score with its 95% interval\n"
    "  record       a game as an animated GIF (optionally with what the network sees)\n"
    "  plot         learning curves of a run as RUN_DIR/curve.png (gnuplot)\n"
    "  export       a model's weights as the seed's W1.npy/W2.npy\n"
    "  import       W1.npy/W2.npy from the seed's Python code as a pongrl weights file\n"
    "  bench env    environment speed (name: value lines)\n"
    "  bench train  network and training speed, against the seed's NumPy code\n"
    "  bench cluster  MPI transport cost: share of an iteration spent communicating\n";

void die_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("pongrl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see --help)\n", stderr);
    va_end(ap);
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "train")) return cmd_train(argc - 1, argv + 1);
    if (!strcmp(cmd, "dump")) return cmd_dump(argc - 1, argv + 1);
    if (!strcmp(cmd, "eval")) return cmd_eval(argc - 1, argv + 1);
    if (!strcmp(cmd, "record")) return cmd_record(argc - 1, argv + 1);
    if (!strcmp(cmd, "plot")) return cmd_plot(argc - 1, argv + 1);
    if (!strcmp(cmd, "export")) return cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "import")) return cmd_import(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) {
        if (argc < 3) die_usage("bench needs a target: env or train");
        if (!strcmp(argv[2], "env")) return bench_env(argc - 2, argv + 2);
        if (!strcmp(argv[2], "train")) return bench_train(argc - 2, argv + 2);
        if (!strcmp(argv[2], "cluster")) return bench_cluster(argc - 2, argv + 2);
        die_usage("unknown bench target '%s' (env, train, cluster)", argv[2]);
    }
    die_usage("unknown command '%s'", cmd);
}
