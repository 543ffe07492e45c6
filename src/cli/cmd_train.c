// cmd_train.c: `pongrl train`, the seed's driver.py: flags, run directory, signals, the loop.
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../train/train.h"
#include "args.h"
#include "commands.h"

static void print_help(const TrainConfig *d) {
    printf("usage: pongrl train [options]\n"
           "\n"
           "Learn Pong from pixels with the seed's policy gradient (Karpathy's 6400-%d-1 network,\n"
           "REINFORCE, RMSProp). Prints one line per batch; Ctrl-C stops after the current batch.\n"
           "\n"
           "  --batch-size N        episodes per update                      (default %d)\n"
           "  --iterations N        stop after N updates in total            (default: no limit)\n"
           "  --target-reward R     stop when the running mean reaches R     (default: none)\n"
           "  --workers N           worker threads in this process           (default %d, one per core)\n"
           "  --seed N              run seed: same seed, same bits           (default %llu)\n"
           "  --env ID              ALE/Pong-v5, Pong-v0, Pong-v4, PongDeterministic-v0/-v4,\n"
           "                        PongNoFrameskip-v0/-v4                   (default %s)\n"
           "  --lr X                RMSProp learning rate                    (default %g)\n"
           "  --gamma X             reward discount                          (default %g)\n"
           "  --decay X             RMSProp decay                            (default %g)\n"
           "  --hidden N            hidden units H                           (default %d)\n"
           "  --run-dir DIR         where metrics and checkpoints go         (default runs/<date-time>)\n"
           "  --quiet               no per-batch line\n"
           "  --help                this text\n",
           d->hidden, d->batch_size, d->workers, (unsigned long long)d->seed, d->env_id,
           d->lr, d->gamma, d->decay, d->hidden);
}

static void on_signal(int sig) {
    (void)sig;
    if (train_stop_requested()) _exit(130);       // a second Ctrl-C: leave at once
    static const char msg[] = "\npongrl: stopping after this batch (Ctrl-C again to abort)\n";
    ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void)r;
    train_request_stop();
}

static int mkdir_p(const char *path) {
    char buf[RUN_DIR_MAX];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    return 0;
}

enum { OPT_BATCH = 256, OPT_ITERS, OPT_TARGET, OPT_WORKERS, OPT_SEED, OPT_ENV, OPT_LR, OPT_GAMMA,
       OPT_DECAY, OPT_HIDDEN, OPT_RUNDIR, OPT_QUIET, OPT_HELP };

static void parse(int argc, char **argv, TrainConfig *c) {
    static const struct option opts[] = {
        {"batch-size", 1, 0, OPT_BATCH}, {"iterations", 1, 0, OPT_ITERS}, {"target-reward", 1, 0, OPT_TARGET},
        {"workers", 1, 0, OPT_WORKERS}, {"seed", 1, 0, OPT_SEED}, {"env", 1, 0, OPT_ENV}, {"lr", 1, 0, OPT_LR},
        {"gamma", 1, 0, OPT_GAMMA}, {"decay", 1, 0, OPT_DECAY}, {"hidden", 1, 0, OPT_HIDDEN},
        {"run-dir", 1, 0, OPT_RUNDIR}, {"quiet", 0, 0, OPT_QUIET}, {"help", 0, 0, OPT_HELP}, {0, 0, 0, 0}};
    TrainConfig d = *c;
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case OPT_BATCH:   c->batch_size = (int)arg_int("--batch-size", optarg, 1, 1000000); break;
        case OPT_ITERS:   c->iterations = arg_int("--iterations", optarg, 0, INT64_MAX); break;
        case OPT_TARGET:  c->target_reward = arg_double("--target-reward", optarg, -21, 21); c->has_target = true; break;
        case OPT_WORKERS: c->workers = (int)arg_int("--workers", optarg, 1, 1024); break;
        case OPT_SEED:    c->seed = arg_u64("--seed", optarg); break;
        case OPT_ENV:     snprintf(c->env_id, sizeof(c->env_id), "%s", arg_env("--env", optarg)); break;
        case OPT_LR:      c->lr = arg_double("--lr", optarg, 0, 1); break;
        case OPT_GAMMA:   c->gamma = arg_double("--gamma", optarg, 0, 1); break;
        case OPT_DECAY:   c->decay = arg_double("--decay", optarg, 0, 1); break;
        case OPT_HIDDEN:  c->hidden = (int)arg_int("--hidden", optarg, 1, 100000); break;
        case OPT_RUNDIR:
            if (strlen(optarg) >= RUN_DIR_MAX - 64) die_usage("--run-dir: path too long");
            snprintf(c->run_dir, sizeof(c->run_dir), "%s", optarg);
            break;
        case OPT_QUIET:   c->quiet = true; break;
        case OPT_HELP:    print_help(&d); exit(0);
        case ':':         die_usage("%s needs a value", argv[optind - 1]);
        default:          die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) die_usage("unexpected argument '%s'", argv[optind]);
}

int cmd_train(int argc, char **argv) {
    TrainConfig cfg;
    train_config_default(&cfg);
    parse(argc, argv, &cfg);
    if (!cfg.run_dir[0]) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(cfg.run_dir, sizeof(cfg.run_dir), "runs/%Y%m%d-%H%M%S", &tm);
    }
    if (mkdir_p(cfg.run_dir)) {
        fprintf(stderr, "pongrl: cannot create run directory %s: %s\n", cfg.run_dir, strerror(errno));
        return 1;
    }
    TrainState st;
    if (train_state_init(&st, &cfg)) { fprintf(stderr, "pongrl: out of memory\n"); return 1; }
    Pool *pool = pool_create(cfg.workers, cfg.env_id, &st.policy);
    if (!pool) { fprintf(stderr, "pongrl: cannot start %d worker threads\n", cfg.workers); train_state_free(&st); return 1; }
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("pongrl train: %s, batch %d, %d workers, seed %llu, run dir %s\n", cfg.env_id, cfg.batch_size,
           cfg.workers, (unsigned long long)cfg.seed, cfg.run_dir);
    fflush(stdout);
    char err[512] = "";
    int rc = train_run(&st, pool, comm_local(), err, sizeof(err));
    if (rc) fprintf(stderr, "pongrl: %s\n", err);
    else printf("stopped after %lld iterations, %lld episodes, running mean %.4f, weights crc32 %08lx\n",
                (long long)st.iteration, (long long)st.episodes, st.running_reward,
                crc32(0L, (const Bytef *)st.policy.w, (uInt)(st.policy.n * sizeof(double))));
    pool_destroy(pool);
    train_state_free(&st);
    return rc ? 1 : 0;
}
