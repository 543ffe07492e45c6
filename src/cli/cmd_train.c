// cmd_train.c: `pongrl train`, Ray's driver.py: flags, run directory, signals, the loop.
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
#include "../train/checkpoint.h"
#include "../train/model.h"
#include "../train/train.h"
#include "../util/crc.h"
#include "args.h"
#include "commands.h"
#include "metrics.h"
#include "rundir.h"
#include "train_progress.h"
#include "../util/say.h"

// The flag column of --help: "--batch-size N" (a value's letter from its kind).
static const char *flag_usage(const TrainSetting *row, char *out, size_t n) {
    static const char *const VALUE[] = { [SETTING_STR] = "ID",
        [SETTING_INT] = "N",
        [SETTING_I64] = "N",
        [SETTING_U64] = "N",
        [SETTING_F64] = "X",
        [SETTING_OPT] = "X",
        [SETTING_BOOL] = "" };
    snprintf(out, n, "--%s %s", row->flag, VALUE[row->kind]);
    return out;
}

// The rows of one part of --help: the run's (learner "") or a learner's, with the defaults of d.
static void print_rows(const TrainConfig *d, const char *learner) {
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        if (!train_setting_of(row, learner)) continue;
        char f[64], v[TRAIN_STR_MAX + 32] = "";
        // a default the help text does not state already
        if (row->kind != SETTING_BOOL && row->kind != SETTING_OPT && !strstr(row->help, "(default"))
            snprintf(v, sizeof(v), " (default %s)", train_setting_text(row, d, f, sizeof(f)));
        printf("  %-21s %s%s\n", flag_usage(row, f, sizeof(f)), row->help, v);
        if (row->offset == offsetof(TrainConfig, algo))
            for (const Learner *const *l = ALGO_LEARNERS; *l; l++)
                printf("%26s%-5s %s\n", "", (*l)->name, (*l)->summary);
    }
}

// Whether a learner's network is shaped by the row (Learner.network): a run started from a
// model's weights (--init) takes such rows from the model.
static bool shapes_network(const Learner *l, const TrainSetting *row) {
    for (const char *const *n = l->network; n && *n; n++)
        if (!strcmp(*n, row->name)) return true;
    return false;
}

// Three parts, from the table: the run's options (every learner's), then each learner's own
// and the run's that it starts otherwise.
static void print_help(void) {
    TrainConfig d;
    train_config_fresh(&d, ALGO_DEFAULT);
    printf("usage: pongrl train [options]\n"
           "\n"
           "Learn Pong from pixels. Prints one line per batch; Ctrl-C stops after the current batch.\n"
           "\n"
           "The run, with any learner:\n");
    print_rows(&d, "");
    printf("  --run-dir DIR         where metrics and checkpoints go (default runs/<date-time>)\n"
           "  --resume DIR          continue the run in DIR from its newest checkpoint, with its own\n"
           "                        configuration; only ");
    for (int i = 0, k = 0; i < TRAIN_SETTING_COUNT; i++)
        if (TRAIN_SETTING_ROWS[i].role != SETTING_RUN) printf("%s--%s", k++ ? ", " : "", TRAIN_SETTING_ROWS[i].flag);
    printf(" may be given\n"
           "  --init MODEL          start from MODEL's weights (a checkpoint, a run directory or a folder\n"
           "                        that export wrote) instead of drawn ones: its learner (unless --algo\n"
           "                        is given) and network (");
    for (int i = 0, k = 0; i < TRAIN_SETTING_COUNT; i++)
        for (const Learner *const *l = ALGO_LEARNERS; *l; l++)
            if (shapes_network(*l, &TRAIN_SETTING_ROWS[i])) {
                printf("%s--%s", k++ ? ", " : "", TRAIN_SETTING_ROWS[i].flag);
                break;
            }
    printf(") are MODEL's;\n"
           "                        the optimiser, the envs and the counters start afresh\n"
           "  --help                this text\n");
    for (const Learner *const *l = ALGO_LEARNERS; *l; l++) {
        TrainConfig ld;
        train_config_fresh(&ld, (*l)->name);
        printf("\n--algo %s:\n", (*l)->name);
        print_rows(&ld, (*l)->name);
        for (int i = 0; i < TRAIN_SETTING_COUNT; i++) { // the run's settings it starts otherwise
            const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
            char f[64], a[TRAIN_STR_MAX + 32], b[TRAIN_STR_MAX + 32];
            if (!row->learner[0] && row->offset != offsetof(TrainConfig, algo) &&
                strcmp(train_setting_text(row, &d, a, sizeof(a)), train_setting_text(row, &ld, b, sizeof(b))))
                printf("  %-21s %s (default %s)\n", flag_usage(row, f, sizeof(f)), row->help, b);
        }
    }
    printf("\nA checkpoint is also written at the start of a run and when it stops (end, Ctrl-C, SIGTERM).\n");
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

// More worker threads than this only share the same cores (one per core is the design) while
// each costs memory for its own gradient: refused before anything is allocated.
#define WORKERS_PER_CORE_MAX 4
static int workers_max(void) { return WORKERS_PER_CORE_MAX * train_cores_available(); }

// The flags are the settings table's rows (their index + OPT_ROW), then these.
enum { OPT_ROW = 256, OPT_RUNDIR = 1024, OPT_RESUME, OPT_INIT, OPT_HELP };

// The settings of a new run: its learner's defaults (the table's), the flags given over them,
// each flag one of the learner's, checked together. NULL, or what is wrong (in why).
static const char *configure(TrainConfig *c, const TrainConfig *flags, const bool *given, char *why, size_t n) {
    const Learner *learner = algo_find(flags->algo);
    if (!learner) {
        char names[256] = "";
        size_t used = 0;
        for (const Learner *const *l = ALGO_LEARNERS; *l && used < sizeof(names); l++)
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "", (*l)->name);
        snprintf(why, n, "--algo %s: this build has no such learner (it has: %s)", flags->algo, names);
        return why;
    }
    train_config_fresh(c, learner->name);
    train_config_copy(c, flags, SETTING_RUN | SETTING_GOAL | SETTING_HOST, given);
    snprintf(c->run_dir, sizeof(c->run_dir), "%s", flags->run_dir);
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++)
        if (given[i] && !train_setting_applies(&TRAIN_SETTING_ROWS[i], c)) {
            char of[64]; // "A or --algo B"
            snprintf(why, n, "--%s is a setting of --algo %s; this run's learner is %s", TRAIN_SETTING_ROWS[i].flag,
                train_setting_learners(&TRAIN_SETTING_ROWS[i], " or --algo ", of, sizeof(of)), c->algo);
            return why;
        }
    const char *bad = learner->check ? learner->check(c) : NULL;
    if (bad) {
        snprintf(why, n, "%s", bad);
        return why;
    }
    if (c->workers > workers_max()) {
        snprintf(why, n,
            "--workers %d: at most %d here (%d per core this process may use: more threads only share"
            " the same cores)",
            c->workers, workers_max(), WORKERS_PER_CORE_MAX);
        return why;
    }
    return NULL;
}

static int algo_row(void) { return (int)(train_setting_find("algo") - TRAIN_SETTING_ROWS); }

// The flags into `flags` (over what it holds) and given[i]: whether row i's flag was on the
// command line.
static void parse(int argc, char **argv, TrainConfig *flags, bool *given, const char **resume, const char **init) {
    struct option opts[TRAIN_SETTING_COUNT + 5];
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++)
        opts[i] =
            (struct option){ TRAIN_SETTING_ROWS[i].flag, TRAIN_SETTING_ROWS[i].kind != SETTING_BOOL, 0, OPT_ROW + i };
    opts[TRAIN_SETTING_COUNT] = (struct option){ "run-dir", 1, 0, OPT_RUNDIR };
    opts[TRAIN_SETTING_COUNT + 1] = (struct option){ "resume", 1, 0, OPT_RESUME };
    opts[TRAIN_SETTING_COUNT + 2] = (struct option){ "init", 1, 0, OPT_INIT };
    opts[TRAIN_SETTING_COUNT + 3] = (struct option){ "help", 0, 0, OPT_HELP };
    opts[TRAIN_SETTING_COUNT + 4] = (struct option){ 0, 0, 0, 0 };
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (o >= OPT_ROW && o < OPT_ROW + TRAIN_SETTING_COUNT) {
            const TrainSetting *row = &TRAIN_SETTING_ROWS[o - OPT_ROW];
            char why[128];
            const char *v = row->kind == SETTING_BOOL ? "true" : optarg, *bad;
            if (row->offset == offsetof(TrainConfig, env_id)) v = arg_env("--env", v); // pongrl/ names too
            if ((bad = train_setting_set(row, flags, v, why, sizeof(why)))) die_usage("--%s %s", row->flag, bad);
            given[o - OPT_ROW] = true;
            continue;
        }
        switch (o) {
            case OPT_RUNDIR:
                if (!optarg[0]) die_usage("--run-dir needs a directory, got ''");
                if (strlen(optarg) >= RUN_DIR_MAX - 64) die_usage("--run-dir: path too long");
                snprintf(flags->run_dir, sizeof(flags->run_dir), "%s", optarg);
                break;
            case OPT_RESUME:
                if (!optarg[0]) die_usage("--resume needs a run directory, got ''");
                if (strlen(optarg) >= RUN_DIR_MAX - 64) die_usage("--resume: path too long");
                *resume = optarg;
                break;
            case OPT_INIT:
                if (!optarg[0]) die_usage("--init needs a model, got ''");
                *init = optarg;
                break;
            case 'h':
            case OPT_HELP: print_help(); exit(0);
            case ':': die_usage("%s needs a value", argv[optind - 1]);
            default: die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) die_usage("unexpected argument '%s'", argv[optind]);
}

// Refuses a configuration this machine cannot hold (say, --hidden 100000), before allocating
// it: what its learner says it needs.
static int check_memory(const TrainConfig *c, char *err, size_t errlen) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0; // not Linux: the allocations will tell
    char line[256];
    double avail_kb = -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lf kB", &avail_kb) == 1) break;
    fclose(f);
    double need = algo_find(c->algo)->memory_bytes(c);
    if (avail_kb < 0 || need <= avail_kb * 1024) return 0;
    snprintf(err, errlen,
        "H=%d with %d worker thread%s needs about %.1f GB of memory; this machine has %.1f GB "
        "available (fewer --workers or a smaller --hidden)",
        c->hidden, c->workers, c->workers == 1 ? "" : "s", need / 1e9, avail_kb * 1024 / 1e9);
    return -1;
}

static bool path_exists(const char *dir, const char *name) {
    char p[RUN_DIR_MAX + 32];
    struct stat st;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

// Loads the run to continue from its newest usable checkpoint (rank 0 alone) and lays the
// flags given again over its configuration. 0, or -1 with one line in err.
static int resume_load(
    TrainState *st, const char *dir, const TrainConfig *flags, const bool *given, char *err, size_t errlen) {
    char why[1024], path[RUN_DIR_MAX + 64];
    struct stat sb;
    if (stat(dir, &sb)) {
        snprintf(err, errlen, "cannot resume: %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "cannot resume: %s is not a run directory", dir);
        return -1;
    }
    if (checkpoint_load_latest(dir, st, path, sizeof(path), stderr, why, sizeof(why))) {
        int ckpts, tmps;
        checkpoint_scan(dir, &ckpts, &tmps);
        if (!ckpts && tmps)
            snprintf(err, errlen,
                "cannot resume: %s holds no checkpoint, only the unfinished first one of a run killed"
                " as it started: start that run again (its flags and --run-dir %s)",
                dir, dir);
        else
            snprintf(err, errlen, "cannot resume: %s", why);
        return -1;
    }
    const Learner *learner = algo_find(st->cfg.algo);
    if (!learner || train_state_attach(st, learner, why, sizeof(why))) {
        snprintf(err, errlen, "cannot resume: %s", learner ? why : "the run's learner is not in this build");
        return -1;
    }
    // the flags given again: when to stop and how to keep the run; this process's own always
    train_config_copy(&st->cfg, flags, SETTING_GOAL, given);
    train_config_copy(&st->cfg, flags, SETTING_HOST, NULL);
    snprintf(st->cfg.run_dir, sizeof(st->cfg.run_dir), "%s", dir);
    // rows a killed run wrote after its last checkpoint would be written again; missing or
    // damaged rows are said
    if (metrics_sync(dir, st, why, sizeof(why))) {
        snprintf(err, errlen, "cannot resume: %s", why);
        return -1;
    }
    char mean[32], shown[512];
    printf("pongrl train: resuming %s at iteration %lld, %lld episodes, running mean %s\n",
        say_escape(path, shown, sizeof(shown)), (long long)st->iteration, (long long)st->episodes,
        train_progress_running_mean(st, mean, sizeof(mean)));
    return 0;
}

// --init: loads MODEL (rank 0 alone; the other ranks adopt its settings, and its weights come
// to them with the first iteration), takes its learner unless --algo was given (the run's
// settings are then that learner's defaults and the flags), and lays its network's settings
// over the run's: a flag given for one of them must agree. 0, or -1 with one line in err.
static int init_load(TrainState *model, const char *src, TrainConfig *c, const TrainConfig *flags, const bool *given,
    char *desc, size_t desclen, char *err, size_t errlen) {
    char why[2048];
    if (model_load(src, ALGO_LEARNERS, model, desc, desclen, why, sizeof(why))) {
        snprintf(err, errlen, "--init %s: %s", src, why);
        return -1;
    }
    const Learner *l = algo_find(model_algo(model));
    if (l && !given[algo_row()]) { // this process's own settings and run directory stay
        TrainConfig f = *flags, host = *c;
        snprintf(f.algo, sizeof(f.algo), "%s", l->name);
        if (configure(c, &f, given, why, sizeof(why))) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        train_config_copy(c, &host, SETTING_HOST, NULL);
        snprintf(c->run_dir, sizeof(c->run_dir), "%s", host.run_dir);
    }
    if (!l || strcmp(l->name, c->algo)) {
        snprintf(err, errlen,
            "--init %s: a model of --algo %s; this run's learner is %s (leave --algo out to take "
            "the model's)",
            src, model_algo(model), c->algo);
        return -1;
    }
    if (train_state_attach(model, l, why, sizeof(why))) {
        snprintf(err, errlen, "--init %s: %s", src, why);
        return -1;
    }
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        char a[TRAIN_STR_MAX + 32], b[TRAIN_STR_MAX + 32];
        if (!shapes_network(l, row) || !train_setting_applies(row, c) ||
            !strcmp(train_setting_text(row, &model->cfg, a, sizeof(a)), train_setting_text(row, c, b, sizeof(b))))
            continue;
        if (given[row - TRAIN_SETTING_ROWS]) {
            snprintf(err, errlen,
                "--%s %s: the network of --init %s has %s=%s (a run started from a model keeps its "
                "network)",
                row->flag, b, src, row->name, a);
            return -1;
        }
        train_setting_set(row, c, a, why, sizeof(why));
    }
    return 0;
}

// The run's directory (rank 0): not inside another run, made (a fresh run's), locked, and not
// already a run's (a fresh run's). 0, or -1 with one line in err.
static int rundir_claim(const char *dir, bool resume, char *err, size_t errlen) {
    if (rundir_outside_runs(dir, resume, err, errlen)) return -1; // before anything is made
    if (!resume && mkdir_p(dir)) {
        snprintf(err, errlen, "cannot create run directory %s: %s", dir, strerror(errno));
        return -1;
    }
    // one owner at a time: rank 0 holds the lock for the whole run (released when it exits)
    if (rundir_lock(dir, err, errlen)) return -1;
    if (resume) return 0;
    int ckpts, tmps;
    checkpoint_scan(dir, &ckpts, &tmps);
    if (ckpts || path_exists(dir, "metrics.csv")) {
        snprintf(
            err, errlen, "%s already holds a run: continue it with --resume %s, or choose another --run-dir", dir, dir);
        return -1;
    }
    if (tmps) // the first checkpoint's write was killed: there is nothing to resume
        say_error("note: %s held only the unfinished first checkpoint of a run killed as it started;"
                  " starting afresh",
            dir);
    return 0;
}

int cmd_train(int argc, char **argv) {
    TrainConfig cfg, flags;
    train_config_fresh(&flags, ALGO_DEFAULT);
    bool given[TRAIN_SETTING_COUNT];
    memset(given, 0, sizeof(given));
    const char *resume = NULL, *init = NULL;
    parse(argc, argv, &flags, given, &resume, &init);
    char why[512];
    // before configure: with --resume the learner is the run's, not yet read, and a flag of it is
    // refused for being given at all, not for belonging to another learner
    if (resume && init) die_usage("--resume continues a run with its own weights: --init may not be given");
    for (int i = 0; resume && i < TRAIN_SETTING_COUNT; i++)
        if (given[i] && TRAIN_SETTING_ROWS[i].role == SETTING_RUN)
            die_usage("--resume continues the run with its own configuration: --%s may not be given",
                TRAIN_SETTING_ROWS[i].flag);
    if (init && !given[algo_row()]) {
        // the learner is MODEL's, known once rank 0 has read it (init_load); until then the flags
        // over the default learner's settings (the other ranks take rank 0's)
        train_config_fresh(&cfg, flags.algo);
        train_config_copy(&cfg, &flags, SETTING_RUN | SETTING_GOAL | SETTING_HOST, given);
        snprintf(cfg.run_dir, sizeof(cfg.run_dir), "%s", flags.run_dir);
    } else if (configure(&cfg, &flags, given, why, sizeof(why)))
        die_usage("%s", why);
    if (resume && cfg.run_dir[0])
        die_usage("--resume continues the run in its own directory: --run-dir may not be given");
    char owner[RUN_DIR_MAX];
    if (resume) snprintf(cfg.run_dir, sizeof(cfg.run_dir), "%s", resume = rundir_owner(resume, owner, sizeof(owner)));
    if (!cfg.run_dir[0]) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(cfg.run_dir, sizeof(cfg.run_dir), "runs/%Y%m%d-%H%M%S", &tm);
    }
    // From here a stop request is kept: one that comes while the run is loaded or the
    // transport starts (on any rank) stops it at the first chance.
    struct sigaction sa = { 0 };
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    // The transport this process was started for, before anything is written. From here every
    // way out goes through `out` (what is not made yet is NULL or zero), and a failure on this
    // process through comm->fail (which, when other processes wait for this one, ends the job).
    int rc = 1;
    Pool *pool = NULL;
    TrainState st, model;
    memset(&st, 0, sizeof(st));
    memset(&model, 0, sizeof(model));
    char model_desc[CKPT_PATH_MAX + 128] = "";
    char err[3 * RUN_DIR_MAX] = ""; // room for a message naming the run directory twice
    Comm *comm = cluster_comm_create(err, sizeof(err));
    if (!comm) {
        say_error("%s", err);
        return 1;
    }
    // only rank 0 writes the run directory and speaks; the others only play
    const bool root = comm->rank == 0;
    if (!root) {
        cfg.run_dir[0] = 0;
        cfg.quiet = true;
    }
    // processes that share a machine share its cores: one thread per core in all, never more
    const int workers_row = (int)(train_setting_find("workers") - TRAIN_SETTING_ROWS);
    if (!given[workers_row] && cfg.workers == sysconf(_SC_NPROCESSORS_ONLN) && comm->local_size > 1)
        cfg.workers = cfg.workers / comm->local_size > 0 ? cfg.workers / comm->local_size : 1;
    if (root && init && init_load(&model, init, &cfg, &flags, given, model_desc, sizeof(model_desc), err, sizeof(err)))
        goto fail;
    if (!resume && check_memory(&cfg, err, sizeof(err))) goto fail; // before anything is written
    if (root && rundir_claim(cfg.run_dir, resume != NULL, err, sizeof(err))) goto fail;
    // Resuming, only rank 0 reads the run: the others take its settings (comm->agree) and, at the
    // first iteration, its standing, weights and learner state (they need not see the run directory).
    if (root && resume) {
        if (resume_load(&st, resume, &cfg, given, err, sizeof(err))) goto fail;
        cfg = st.cfg;
        if (check_memory(&cfg, err, sizeof(err))) goto fail;
    }
    // what kills left of checkpoint writes, once what they say has been heard (rundir_claim,
    // resume_load: a run killed in its first write); the lock's holder writes none now
    if (root) checkpoint_sweep_tmps(cfg.run_dir);
    // the ranks agree before anything is written: a refused launch leaves no run
    if (comm->agree(comm, &cfg, (resume || init) && !root, err, sizeof(err))) {
        if (root) say_error("%s", err);
        goto out; // every rank knows: each ends on its own
    }
    if (!(root && resume) && train_state_init(&st, &cfg, algo_find(cfg.algo))) {
        snprintf(err, sizeof(err), "out of memory");
        goto fail;
    }
    if (root && init) {
        if (train_state_take_weights(&st, &model, err, sizeof(err))) goto fail;
        train_state_free(&model);
        char shown[512];
        printf("pongrl train: starting from the weights of %s\n", say_escape(model_desc, shown, sizeof(shown)));
    }
    // iteration 0 too: a run killed before its first scheduled checkpoint can still resume
    if (root &&
        ((!resume && checkpoint_save(cfg.run_dir, &st, cfg.keep, NULL, 0, err, sizeof(err))) ||
            rundir_write_config(&st, err, sizeof(err))))
        goto fail;
    if (!(pool = pool_create(cfg.workers))) {
        snprintf(err, sizeof(err), "cannot start %d worker threads", cfg.workers);
        goto fail;
    }
    if (root) {
        char ranks[256], shown[512];
        comm->describe(comm, ranks, sizeof(ranks));
        printf("pongrl train: %s", cfg.env_id);
        if (cfg.mode || cfg.difficulty) printf(" mode %d difficulty %d", cfg.mode, cfg.difficulty);
        printf(", algo %s", cfg.algo);
        if (train_setting_applies(train_setting_find("batch_size"), &cfg)) printf(", batch %d", cfg.batch_size);
        printf(", %d worker%s, seed %llu, run dir %s%s\n", cfg.workers, cfg.workers == 1 ? "" : "s",
            (unsigned long long)cfg.seed, say_escape(cfg.run_dir, shown, sizeof(shown)), ranks);
        train_progress_print_goal(&st);
        fflush(stdout);
    }
    // rank 0 logs, writes metrics.csv and checkpoints after every iteration
    TrainProgress tp;
    train_progress_init(&tp, &st);
    const TrainHooks hooks = { train_progress_on_iteration, &tp };
    if (train_run(&st, pool, comm, root ? &hooks : NULL, err, sizeof(err))) goto fail;
    rc = 0;
    if (root && st.iteration >= TRAIN_COUNTER_MAX && (st.cfg.iterations < 0 || st.cfg.iterations > st.iteration))
        say_warning("iteration %lld is the most a run may have (2^%d): the run ends there", (long long)st.iteration,
            TRAIN_COUNTER_BITS);
    char last[CKPT_PATH_MAX];
    checkpoint_path(cfg.run_dir, tp.last_iteration, last, sizeof(last));
    const bool stdout_lost = root && tp.stdout_errno;
    if (stdout_lost) { // `pongrl train | head`: stopped, said on stderr
        if (tp.saves)
            say_error("cannot write to stdout (%s): stopped after iteration %lld, checkpoint "
                      "%s; --resume %s continues the run",
                strerror(tp.stdout_errno), (long long)st.iteration, last, cfg.run_dir);
        else
            say_error("cannot write to stdout (%s): stopped after iteration %lld", strerror(tp.stdout_errno),
                (long long)st.iteration);
    }
    char shown[512];
    if (root && tp.saves)
        printf("checkpoint %s (%d saved, %.0f ms each)\n", say_escape(last, shown, sizeof(shown)), tp.saves,
            1000 * tp.save_s_total / tp.saves);
    size_t wn;
    const double *w = train_state_weights(&st, &wn);
    char mean[32];
    if (root)
        printf("stopped after %lld iterations, %lld episodes, running mean %s, weights crc32 %08lx\n",
            (long long)st.iteration, (long long)st.episodes, train_progress_running_mean(&st, mean, sizeof(mean)),
            (unsigned long)crc32_of(w, wn * sizeof(double)));
    if (comm->report(comm, &st, stdout)) rc = 1; // collective: stdout_lost does not skip it
    if (stdout_lost) rc = 1;
    goto out;
fail:
    comm->fail(comm, err);
out:
    comm->destroy(comm);
    pool_destroy(pool);
    train_state_free(&st);
    train_state_free(&model);
    return rc;
}
