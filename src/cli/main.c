// main.c: build/pongrl, distributed policy-gradient Pong from pixels: its command line
// (pongrl_main; the process's main is pongrl.c).
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../train/config.h"
#include "../util/dir_replace.h"
#include "../util/file.h"
#include "args.h"
#include "commands.h"
#include "../util/say.h"

static const char *USAGE =
    "usage: pongrl <command> [options]   (pongrl <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  train        learn Pong from pixels with one of the learners (--algo; train --help lists them), on threads "
    "and MPI ranks\n"
    "  eval         play games with a trained model: mean score with its 95% interval\n"
    "  record       a game as an animated GIF or an MP4 (optionally with what the network sees)\n"
    "  watch        a model playing in a window, in real time (SDL2)\n"
    "  plot         learning curves of a run as RUN_DIR/curve.png (gnuplot)\n"
    "  export       a model's network as .npy files (Karpathy's W1.npy/W2.npy; the others' with model.txt)\n"
    "  import       such .npy files (Karpathy's Python code's, or an export) as a pongrl weights file\n"
    "  bench env    environment speed (name: value lines)\n"
    "  bench train  network and training speed (make bench adds Karpathy's NumPy code)\n"
    "  bench cluster  MPI transport cost: share of an iteration spent communicating\n"
    "  version      the version (also --version)\n";

// A word of the command line and what it runs (commands.h): argv from that word on.
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
} Command;

static const Command COMMANDS[] = { { "train", cmd_train }, { "eval", cmd_eval }, { "record", cmd_record },
    { "watch", cmd_watch }, { "plot", cmd_plot }, { "export", cmd_export }, { "import", cmd_import }, { NULL, NULL } };

// `pongrl bench TARGET`
static const Command BENCH_TARGETS[] = { { "env", bench_env }, { "train", bench_train }, { "cluster", bench_cluster },
    { NULL, NULL } };

static const Command *command_find(const Command *list, const char *name) {
    for (; list->name; list++)
        if (!strcmp(list->name, name)) return list;
    return NULL;
}

// Run by exit(), whoever calls it (a --help that exits at once, main's return): a command that
// succeeded but whose output did not all reach stdout (/dev/full, a closed pipe: `pongrl version
// | true`) has failed, and says so in one line with exit status 1, as `train | head` does. A
// command that failed has said why already and keeps its status.
static void check_stdout(int status, void *arg) {
    (void)arg;
    if (status != 0) return;
    int e = fflush(stdout) ? errno : 0;
    if (!e && !ferror(stdout)) return;
    // the failed write was an earlier one and its errno is gone: a pipe with no reader says so
    struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
    if (!e) e = poll(&p, 1, 0) == 1 && (p.revents & POLLERR) ? EPIPE : EIO;
    say_error("cannot write to stdout: %s", strerror(e));
    _exit(1);
}

int pongrl_main(int argc, char **argv) {
    // A closed stdout (`pongrl train | head`) is an error to report, not a silent death by
    // SIGPIPE: train stops after its batch with a checkpoint, the others say it on the way out.
    signal(SIGPIPE, SIG_IGN);
    // A file past `ulimit -f` is a write that fails (EFBIG: "File too large"), said in one line
    // with the temporary removed, not a death by SIGXFSZ that leaves it behind.
    signal(SIGXFSZ, SIG_IGN);
    on_exit(check_stdout, NULL);
    // pongrl's paths are at most a run directory's length: a longer argument would be cut on the
    // way to a file name or a message, and the message lose its reason
    for (int i = 1; i < argc; i++)
        if (strlen(argv[i]) >= RUN_DIR_MAX) {
            char cut[64];
            die_usage("an argument of %zu bytes, '%s': at most %d", strlen(argv[i]), file_path_short(argv[i], cut, 48),
                RUN_DIR_MAX - 1);
        }
    if (argc < 2 || arg_is_help(argv[1]) || !strcmp(argv[1], "help")) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("pongrl %s\n", PONGRL_VERSION);
        return 0;
    }
    const Command *c = command_find(COMMANDS, argv[1]);
    // the commands that write one file and end: a Ctrl-C or a kill leaves no temporary behind
    // (train stops at its next checkpoint instead, and sweeps its run directory when resumed)
    if (c && (c->run == cmd_record || c->run == cmd_export || c->run == cmd_import)) file_remove_tmps_on_signals();
    // export's temporary directory too (its handler then calls file.c's)
    if (c && c->run == cmd_export) dir_remove_tmps_on_signals();
    if (c) return c->run(argc - 1, argv + 1); // check_stdout: what reached stdout
    if (strcmp(argv[1], "bench")) die_usage("unknown command '%s'", argv[1]);
    if (argc < 3) die_usage("bench needs a target: env, train or cluster");
    if (arg_is_help(argv[2])) {
        fputs(USAGE, stdout);
        return 0;
    }
    c = command_find(BENCH_TARGETS, argv[2]);
    if (!c) die_usage("unknown bench target '%s' (env, train, cluster)", argv[2]);
    return c->run(argc - 2, argv + 2);
}
