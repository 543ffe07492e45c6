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

#include "../algo/algo.h"
#include "../cluster/cluster.h"
#include "../cluster/launch.h"
#include "../train/checkpoint.h"
#include "../train/train.h"
#include "../util/crc.h"
#include "args.h"
#include "commands.h"
#include "metrics.h"
#include "rundir.h"
#include "train_progress.h"

static void print_help(const TrainConfig *d) {
    char algos[1024] = "";
    size_t used = 0;
    for (const Learner *const *l = ALGO_LEARNERS; *l && used < sizeof(algos); l++)
        used += (size_t)snprintf(algos + used, sizeof(algos) - used, "                          %-6s %s\n", (*l)->name, (*l)->summary);
    printf("usage: pongrl train [options]\n"
           "\n"
           "Learn Pong from pixels. Prints one line per batch; Ctrl-C stops after the current batch.\n"
           "\n"
           "  --algo NAME           the learner                              (default %s)\n"
           "%s"
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
           "  --checkpoint-every N  checkpoint every N iterations, 0: never  (default %lld)\n"
           "  --checkpoint-secs S   and every S seconds, 0: never            (default %g)\n"
           "  --keep K              checkpoints kept                         (default %d)\n"
           "  --resume DIR          continue the run in DIR from its newest checkpoint, with its own\n"
           "                        configuration; only --iterations (the run's total),\n"
           "                        --target-reward, --workers, --checkpoint-*, --keep, --quiet may be given\n"
           "  --quiet               no per-batch line\n"
           "  --help                this text\n"
           "\n"
           "A checkpoint is also written at the start of a run and when it stops (end, Ctrl-C, SIGTERM).\n",
           d->algo, algos, d->batch_size, d->workers, (unsigned long long)d->seed, d->env_id,
           d->lr, d->gamma, d->decay, d->hidden, (long long)d->checkpoint_every, d->checkpoint_secs, d->keep);
}

static void on_signal(int sig) {
    (void)sig;
    // a second signal to this process: leave at once (a stop asked by another rank, or by a
    // closed stdout, is not one)
    static volatile sig_atomic_t signals;
    if (signals++) _exit(130);
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

enum { OPT_BATCH = 256, OPT_ALGO, OPT_ITERS, OPT_TARGET, OPT_WORKERS, OPT_SEED, OPT_ENV, OPT_LR, OPT_GAMMA,
       OPT_DECAY, OPT_HIDDEN, OPT_RUNDIR, OPT_QUIET, OPT_HELP, OPT_CKPT_EVERY, OPT_CKPT_SECS, OPT_KEEP,
       OPT_RESUME, OPT_END };

// More worker threads than this only share the same cores (one per core is the design) while
// each costs memory for its own gradient: refused before anything is allocated.
#define WORKERS_PER_CORE_MAX 4
static int workers_max(void) { return WORKERS_PER_CORE_MAX * train_cores_available(); }

// Flags that define the run: a resumed run keeps its own, so these may not be given again.
static const int RUN_DEFINING[] = { OPT_BATCH, OPT_ALGO, OPT_SEED, OPT_ENV, OPT_LR, OPT_GAMMA, OPT_DECAY, OPT_HIDDEN, OPT_RUNDIR };

// given[o - OPT_BATCH]: whether flag o was on the command line
static void parse(int argc, char **argv, TrainConfig *c, bool *given, const char **resume) {
    static const struct option opts[] = {
        {"batch-size", 1, 0, OPT_BATCH}, {"algo", 1, 0, OPT_ALGO}, {"iterations", 1, 0, OPT_ITERS}, {"target-reward", 1, 0, OPT_TARGET},
        {"workers", 1, 0, OPT_WORKERS}, {"seed", 1, 0, OPT_SEED}, {"env", 1, 0, OPT_ENV}, {"lr", 1, 0, OPT_LR},
        {"gamma", 1, 0, OPT_GAMMA}, {"decay", 1, 0, OPT_DECAY}, {"hidden", 1, 0, OPT_HIDDEN},
        {"run-dir", 1, 0, OPT_RUNDIR}, {"quiet", 0, 0, OPT_QUIET}, {"help", 0, 0, OPT_HELP},
        {"checkpoint-every", 1, 0, OPT_CKPT_EVERY}, {"checkpoint-secs", 1, 0, OPT_CKPT_SECS}, {"keep", 1, 0, OPT_KEEP},
        {"resume", 1, 0, OPT_RESUME}, {0, 0, 0, 0}};
    TrainConfig d = *c;
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (o >= OPT_BATCH && o < OPT_END) given[o - OPT_BATCH] = true;
        switch (o) {
        case OPT_BATCH:   c->batch_size = (int)arg_int("--batch-size", optarg, 1, TRAIN_BATCH_MAX); break;
        case OPT_ALGO:
            if (!algo_find(optarg)) {
                char names[256] = "";
                size_t used = 0;
                for (const Learner *const *l = ALGO_LEARNERS; *l && used < sizeof(names); l++)
                    used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "", (*l)->name);
                die_usage("--algo %s: this build has no such learner (it has: %s)", optarg, names);
            }
            snprintf(c->algo, sizeof(c->algo), "%s", optarg);
            break;
        case OPT_ITERS:   c->iterations = arg_int("--iterations", optarg, 0, INT64_MAX); break;
        case OPT_TARGET:  c->target_reward = arg_double("--target-reward", optarg, -TRAIN_REWARD_MAX, TRAIN_REWARD_MAX); c->has_target = true; break;
        case OPT_WORKERS:
            c->workers = (int)arg_int("--workers", optarg, 1, INT32_MAX);
            if (c->workers > workers_max())
                die_usage("--workers %d: at most %d here (%d per core this process may use: more threads only share"
                          " the same cores)", c->workers, workers_max(), WORKERS_PER_CORE_MAX);
            break;
        case OPT_SEED:    c->seed = arg_u64("--seed", optarg); break;
        case OPT_ENV:     snprintf(c->env_id, sizeof(c->env_id), "%s", arg_env("--env", optarg)); break;
        case OPT_LR:      c->lr = arg_double("--lr", optarg, 0, 1); break;
        case OPT_GAMMA:   c->gamma = arg_double("--gamma", optarg, 0, 1); break;
        case OPT_DECAY:   c->decay = arg_double("--decay", optarg, 0, 1); break;
        case OPT_HIDDEN:  c->hidden = (int)arg_int("--hidden", optarg, 1, TRAIN_H_MAX); break;
        case OPT_RUNDIR:
            if (!optarg[0]) die_usage("--run-dir needs a directory, got ''");
            if (strlen(optarg) >= RUN_DIR_MAX - 64) die_usage("--run-dir: path too long");
            snprintf(c->run_dir, sizeof(c->run_dir), "%s", optarg);
            break;
        case OPT_QUIET:   c->quiet = true; break;
        case OPT_CKPT_EVERY: c->checkpoint_every = arg_int("--checkpoint-every", optarg, 0, INT64_MAX); break;
        case OPT_CKPT_SECS:  c->checkpoint_secs = arg_double("--checkpoint-secs", optarg, 0, 1e9); break;
        case OPT_KEEP:       c->keep = (int)arg_int("--keep", optarg, 1, 1000000); break;
        case OPT_RESUME:
            if (!optarg[0]) die_usage("--resume needs a run directory, got ''");
            if (strlen(optarg) >= RUN_DIR_MAX - 64) die_usage("--resume: path too long");
            *resume = optarg;
            break;
        case OPT_HELP:    print_help(&d); exit(0);
        case ':':         die_usage("%s needs a value", argv[optind - 1]);
        default:          die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) die_usage("unexpected argument '%s'", argv[optind]);
}

// Refuses a configuration this machine cannot hold (say, --hidden 100000), before allocating
// it: what its learner says it needs.
static int check_memory(const TrainConfig *c) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;                             // not Linux: the allocations will tell
    char line[256];
    double avail_kb = -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lf kB", &avail_kb) == 1) break;
    fclose(f);
    double need = algo_find(c->algo)->memory_bytes(c);
    if (avail_kb < 0 || need <= avail_kb * 1024) return 0;
    fprintf(stderr, "pongrl: H=%d with %d worker thread%s needs about %.1f GB of memory; this machine has %.1f GB "
            "available (fewer --workers or a smaller --hidden)\n", c->hidden, c->workers, c->workers == 1 ? "" : "s",
            need / 1e9, avail_kb * 1024 / 1e9);
    return -1;
}

static bool path_exists(const char *dir, const char *name) {
    char p[RUN_DIR_MAX + 32];
    struct stat st;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

// Loads the run to continue from its newest usable checkpoint and lays the flags given again
// over its configuration. Only rank 0 speaks and touches the directory.
static int resume_load(TrainState *st, const char *dir, const TrainConfig *flags, const bool *given, bool root) {
    char err[1024], path[RUN_DIR_MAX + 64];
    if (checkpoint_load_latest(dir, st, path, sizeof(path), root ? stderr : NULL, err, sizeof(err))) {
        int ckpts, tmps;
        checkpoint_scan(dir, &ckpts, &tmps);
        if (root && !ckpts && tmps)
            fprintf(stderr, "pongrl: cannot resume: %s holds no checkpoint, only the unfinished first one of a run killed"
                    " as it started: start that run again (its flags and --run-dir %s)\n", dir, dir);
        else if (root) fprintf(stderr, "pongrl: cannot resume: %s\n", err);
        return -1;
    }
    const Learner *learner = algo_find(st->cfg.algo);
    if (!learner || train_state_attach(st, learner, err, sizeof(err))) {
        if (root) fprintf(stderr, "pongrl: cannot resume: %s\n", learner ? err : "the run's learner is not in this build");
        train_state_free(st);
        return -1;
    }
    TrainConfig *c = &st->cfg;
    if (given[OPT_ITERS - OPT_BATCH]) c->iterations = flags->iterations;
    if (given[OPT_TARGET - OPT_BATCH]) { c->target_reward = flags->target_reward; c->has_target = true; }
    if (given[OPT_CKPT_EVERY - OPT_BATCH]) c->checkpoint_every = flags->checkpoint_every;
    if (given[OPT_CKPT_SECS - OPT_BATCH]) c->checkpoint_secs = flags->checkpoint_secs;
    if (given[OPT_KEEP - OPT_BATCH]) c->keep = flags->keep;
    c->workers = flags->workers;                  // this machine's cores, not the saved run's
    c->quiet = flags->quiet;
    snprintf(c->run_dir, sizeof(c->run_dir), "%s", root ? dir : "");
    if (!root) return 0;
    // rows a killed run wrote after its last checkpoint would be written again; missing or
    // damaged rows are said
    if (metrics_sync(dir, st, err, sizeof(err))) {
        fprintf(stderr, "pongrl: cannot resume: %s\n", err);
        train_state_free(st);
        return -1;
    }
    printf("pongrl train: resuming %s at iteration %lld, %lld episodes, running mean %.4f\n", path,
           (long long)st->iteration, (long long)st->episodes, st->running_reward);
    return 0;
}

int cmd_train(int argc, char **argv) {
    TrainConfig cfg;
    train_config_default(&cfg);
    bool given[OPT_END - OPT_BATCH] = {0};
    const char *resume = NULL;
    parse(argc, argv, &cfg, given, &resume);
    for (size_t i = 0; resume && i < sizeof(RUN_DEFINING) / sizeof(RUN_DEFINING[0]); i++)
        if (given[RUN_DEFINING[i] - OPT_BATCH])
            die_usage("--resume continues the run with its own configuration; only --iterations, --target-reward,"
                      " --workers, --checkpoint-every, --checkpoint-secs, --keep and --quiet may be given");
    if (resume) snprintf(cfg.run_dir, sizeof(cfg.run_dir), "%s", resume);
    if (!cfg.run_dir[0]) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(cfg.run_dir, sizeof(cfg.run_dir), "runs/%Y%m%d-%H%M%S", &tm);
    }
    // under mpirun only rank 0 writes the run directory; the others only play
    bool mpi = cluster_launched(), root = !mpi || cluster_launch_rank() == 0;
    if (!root) { cfg.run_dir[0] = 0; cfg.quiet = true; }
    // Several unbound ranks on one machine share its cores: one thread per core in all, never more
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (mpi && !given[OPT_WORKERS - OPT_BATCH] && cfg.workers == online) {
        cfg.workers /= cluster_launch_local_size();
        if (cfg.workers < 1) cfg.workers = 1;
    }
    // From here a stop request is kept: one that comes while the run is loaded or MPI starts
    // (on any rank) stops it at the first chance.
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (!resume && check_memory(&cfg)) return 1;            // before anything is written
    // an orphaned rank must not go on writing the run (nor hold its lock)
    if (mpi) cluster_die_with_launcher();
    if (root && !resume && mkdir_p(cfg.run_dir)) {
        fprintf(stderr, "pongrl: cannot create run directory %s: %s\n", cfg.run_dir, strerror(errno));
        return 1;
    }
    if (root && resume) {
        struct stat sb;
        if (stat(resume, &sb)) { fprintf(stderr, "pongrl: cannot resume: %s: %s\n", resume, strerror(errno)); return 1; }
        if (!S_ISDIR(sb.st_mode)) { fprintf(stderr, "pongrl: cannot resume: %s is not a run directory\n", resume); return 1; }
    }
    // one owner at a time: rank 0 holds the lock for the whole run (released when it exits)
    char lerr[RUN_DIR_MAX + 256];
    if (root && rundir_lock(cfg.run_dir, lerr, sizeof(lerr))) { fprintf(stderr, "pongrl: %s\n", lerr); return 1; }
    if (root && !resume) {
        int ckpts, tmps;
        checkpoint_scan(cfg.run_dir, &ckpts, &tmps);
        if (ckpts || path_exists(cfg.run_dir, "metrics.csv")) {
            fprintf(stderr, "pongrl: %s already holds a run: continue it with --resume %s, or choose another --run-dir\n",
                    cfg.run_dir, cfg.run_dir);
            return 1;
        }
        if (tmps)       // the first checkpoint's write was killed: there is nothing to resume
            fprintf(stderr, "pongrl: note: %s held only the unfinished first checkpoint of a run killed as it started;"
                    " starting afresh\n", cfg.run_dir);
    }
    // Resuming under mpirun, only rank 0 reads the run: the others take its configuration and,
    // at the first iteration, its weights and cache (they need not see the run directory).
    bool adopt = mpi && resume && !root;
    TrainState st;
    if (resume && !adopt) {
        if (resume_load(&st, resume, &cfg, given, root)) return 1;
        cfg = st.cfg;
        if (check_memory(&cfg)) { train_state_free(&st); return 1; }
    } else if (train_state_init(&st, &cfg, algo_find(cfg.algo))) { fprintf(stderr, "pongrl: out of memory\n"); return 1; }
    // From here every way out goes through `out` (what is not made yet is NULL), and a failure
    // to start through `fail`: said on stderr first, then, under mpirun, the job ended, as the
    // other ranks would wait for this one.
    int rc = 1;
    Comm *local = NULL, *comm = NULL;
    Pool *pool = NULL;
    char err[1024] = "";
    // the ranks check each other before anything is written: a refused launch leaves no run
    if (!mpi && !(comm = local = comm_local_create())) { fprintf(stderr, "pongrl: out of memory\n"); goto fail; }
    if (mpi && !(comm = comm_mpi_create(&st, cfg.workers, adopt, err, sizeof(err)))) {
        if (root) fprintf(stderr, "pongrl: %s\n", err);
        goto out;                               // MPI is finalized already
    }
    if (adopt) cfg = st.cfg;                    // rank 0's run, this rank's threads
    // iteration 0 too: a run killed before its first scheduled checkpoint can still resume
    if (root && ((!resume && checkpoint_save(cfg.run_dir, &st, cfg.keep, NULL, 0, err, sizeof(err))) ||
                 rundir_write_config(&st, err, sizeof(err)))) {
        fprintf(stderr, "pongrl: %s\n", err);
        goto fail;
    }
    if (!(pool = pool_create(cfg.workers, cfg.env_id, &st.policy))) {
        fprintf(stderr, "pongrl: cannot start %d worker threads\n", cfg.workers);
        goto fail;
    }
    if (root) {
        printf("pongrl train: %s, batch %d, %d worker%s, seed %llu, run dir %s", cfg.env_id, cfg.batch_size,
               cfg.workers, cfg.workers == 1 ? "" : "s", (unsigned long long)cfg.seed, cfg.run_dir);
        if (mpi) printf(", %d MPI ranks (rank 0's worker threads above; each rank has its own)", comm->size);
        printf("\n");
        fflush(stdout);
    }
    // rank 0 logs, writes metrics.csv and checkpoints after every iteration
    TrainProgress tp;
    train_progress_init(&tp, &st);
    const TrainHooks hooks = { train_progress_on_iteration, &tp };
    rc = train_run(&st, pool, comm, root ? &hooks : NULL, err, sizeof(err)) ? 1 : 0;
    if (rc && mpi) {
        fprintf(stderr, "pongrl: rank %d: %s\n", comm->rank, err);
        comm_mpi_abort(comm);                   // the others are waiting for this rank
    }
    if (rc) fprintf(stderr, "pongrl: %s\n", err);
    char last[CKPT_PATH_MAX];
    checkpoint_path(cfg.run_dir, tp.last_iteration, last, sizeof(last));
    const bool stdout_lost = root && tp.stdout_errno;
    if (stdout_lost) {                          // `pongrl train | head`: stopped, said on stderr
        if (tp.saves)
            fprintf(stderr, "pongrl: cannot write to stdout (%s): stopped after iteration %lld, checkpoint "
                    "%s; --resume %s continues the run\n", strerror(tp.stdout_errno), (long long)st.iteration,
                    last, cfg.run_dir);
        else fprintf(stderr, "pongrl: cannot write to stdout (%s): stopped after iteration %lld\n",
                     strerror(tp.stdout_errno), (long long)st.iteration);
    }
    if (root && tp.saves)
        printf("checkpoint %s (%d saved, %.0f ms each)\n", last, tp.saves, 1000 * tp.save_s_total / tp.saves);
    if (!rc && root) printf("stopped after %lld iterations, %lld episodes, running mean %.4f, weights crc32 %08lx\n",
                (long long)st.iteration, (long long)st.episodes, st.running_reward,
                (unsigned long)crc32_of(st.policy.w, st.policy.n * sizeof(double)));
    if (mpi && !rc && comm_mpi_report(comm, stdout)) rc = 1;     // collective: stdout_lost does not skip it
    if (stdout_lost) rc = 1;
    goto out;
fail:
    if (mpi) comm_mpi_abort(comm);
out:
    if (mpi && comm) comm_mpi_destroy(comm);
    comm_local_destroy(local);
    pool_destroy(pool);
    train_state_free(&st);
    return rc;
}
