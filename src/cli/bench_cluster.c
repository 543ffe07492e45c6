// bench_cluster.c: `pongrl bench cluster`: how much of an iteration the MPI transport costs.
//
// Started plainly, it launches itself under mpirun for 1, 2 and 4 ranks, over shared memory
// (Open MPI's vader) and over TCP on loopback, and prints every result prefixed with the
// setup (cluster_tcp_np2_comm_share: ...). Started under mpirun (any hostfile, any network),
// it measures that one setup. Each rank plays --batch-per-rank episodes per iteration with
// --workers threads and an untrained policy; after one warm-up iteration (it sends the whole
// weight vector and cache) it times --iterations more:
//   iteration_ms   wall time of an iteration on rank 0 (counters out to update done)
//   play_ms        the slowest rank's time playing its episodes
//   bcast_ms       the stop flag out of rank 0 (slowest rank)
//   reduce_ms      gradient sum to every rank: the all-reduce, the sums' rounding to float64
//                  included (slowest rank); the ranks' records (rows touched, digests) and
//                  the episode stats go with the end-of-play barrier, counted as waiting
//   reduce_pack_ms, reduce_exchange1_ms, reduce_finish_ms, reduce_exchange2_ms
//                  its phases (allreduce.h), each the slowest rank's: this rank's values of
//                  rows others own put in wire form; the first exchange (MPI_Alltoallv); its
//                  own rows finished and rounded; the second exchange (MPI_Allgatherv)
//   rows_per_iteration     W1 rows some rank touched: the rows the all-reduce carries
//   sent_bytes_per_entry   what a rank sends for each entry summed, the mean over ranks: its
//                  values of rows it touched but does not own (9 bytes each), and its share
//                  of the gather ((N-1)/N x 8 bytes)
//   sent_bytes_per_iteration   and in all, an iteration
//   wire_retries   all-reduces done again with wider entries because a value did not fit
//   comm_share     (bcast + reduce) / iteration: the cost of going distributed
//   comm_share_median  the same iteration by iteration (the slowest rank's bcast + reduce over
//                  rank 0's iteration), the median: what a typical iteration costs, where
//                  the mean also carries the odd iteration a noisy machine stretches
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../algo/algo.h"
#include "../cluster/cluster.h"
#include "../cluster/launch.h"
#include "../train/train.h"
#include "../util/clock.h"
#include "../util/file.h"
#include "../util/spawn.h"
#include "args.h"
#include "commands.h"
#include "../util/say.h"

#define BENCH_LAUNCH_LIMIT_S 300 // a launch's mpirun is killed after it (the defaults take seconds)

typedef struct {
    int batch_per_rank, iterations, workers;
    char ranks[64], transports[64];
} BenchArgs;

// --ranks and --transports: a list of one or more items, none empty, each known (a rank
// count in [1, 1024], vader or tcp); anything else is a usage error, never a run of nothing.
static void bench_list_check(const char *flag, const char *list) {
    const char *p = list;
    do {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= 16)
            die_usage("bench cluster: %s '%s': want a comma-separated list such as %s", flag, list,
                flag[2] == 'r' ? "1,2,4" : "vader,tcp");
        char item[16];
        memcpy(item, p, n);
        item[n] = 0;
        if (flag[2] == 'r')
            arg_int(flag, item, 1, 1024);
        else if (strcmp(item, "vader") && strcmp(item, "tcp"))
            die_usage("bench cluster: unknown transport '%s' (vader, tcp)", item);
        p += n;
    } while (*p++ == ',');
}

static void bench_args(int argc, char **argv, BenchArgs *a) {
    *a = (BenchArgs){ 10, 10, 1, "1,2,4", "vader,tcp" };
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (arg_is_help(f)) {
            printf("usage: pongrl bench cluster [--batch-per-rank N (10)] [--iterations N (10)] [--workers N (1)]\n"
                   "                            [--ranks 1,2,4] [--transports vader,tcp]\n"
                   "Without mpirun: launches mpirun for each rank count and transport (Open MPI);\n"
                   "each launch that has not ended after %d s is killed.\n"
                   "Under mpirun: measures that launch (e.g. across a hostfile's machines).\n",
                BENCH_LAUNCH_LIMIT_S);
            exit(0);
        }
        static const char *const known[] = { "--batch-per-rank", "--iterations", "--workers", "--ranks", "--transports",
            NULL };
        const char *const *k = known;
        while (*k && strcmp(*k, f)) k++;
        if (!*k) die_usage("bench cluster: unknown option '%s'", f);
        if (!v) die_usage("bench cluster: %s needs a value", f);
        if (!strcmp(f, "--batch-per-rank"))
            a->batch_per_rank = (int)arg_int(f, v, 1, 100000);
        else if (!strcmp(f, "--iterations"))
            a->iterations = (int)arg_int(f, v, 1, 100000);
        else if (!strcmp(f, "--workers"))
            a->workers = (int)arg_int(f, v, 1, 1024);
        else if (!strcmp(f, "--ranks") && strlen(v) < sizeof(a->ranks))
            snprintf(a->ranks, sizeof(a->ranks), "%s", v);
        else if (!strcmp(f, "--transports") && strlen(v) < sizeof(a->transports))
            snprintf(a->transports, sizeof(a->transports), "%s", v);
        else
            die_usage("bench cluster: %s: too long (%zu bytes)", f, strlen(v));
        i++;
    }
    bench_list_check("--ranks", a->ranks);
    bench_list_check("--transports", a->transports);
}

#ifndef HAVE_MPI

int bench_cluster(int argc, char **argv) {
    BenchArgs a;
    bench_args(argc, argv, &a);
    say_error("bench cluster needs MPI, and this pongrl was built without it "
              "(install libopenmpi-dev, then make)");
    return 1;
}

#else

#include <mpi.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// ----------------------------------------------------------------------------
// one launch: every rank runs this

static int bench_rank(const BenchArgs *a) {
    char err[1024] = "";
    Comm *comm = cluster_comm_create(err, sizeof(err));
    if (!comm) {
        say_error("%s", err);
        return 1;
    }
    const int rank = comm->rank, size = comm->size;
    TrainConfig cfg;
    train_config_default(&cfg);
    cfg.batch_size = a->batch_per_rank * size;
    cfg.workers = a->workers;
    cfg.iterations = 1;
    cfg.quiet = true;
    TrainState st;
    Pool *pool = NULL;
    if (comm->agree(comm, &cfg, false, err, sizeof(err))) {
        if (rank == 0) say_error("%s", err);
        comm->destroy(comm);
        return 1;
    }
    if (train_state_init(&st, &cfg, algo_find(cfg.algo))) comm->fail(comm, "out of memory");
    if (!(pool = pool_create(cfg.workers))) comm->fail(comm, "cannot start the worker threads");
    // warm-up: the first iteration sends the weights and cache and touches every page
    if (train_run(&st, pool, comm, NULL, err, sizeof(err))) comm->fail(comm, err);
    comm_mpi_reset_times(comm);
    st.cfg.iterations = 1 + a->iterations;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = clock_now_s();
    if (train_run(&st, pool, comm, NULL, err, sizeof(err))) comm->fail(comm, err);
    double wall = clock_now_s() - t0;
    CommTimes t;
    comm_mpi_times(comm, &t);
    double mine[8] = { t.play_s, t.bcast_s, t.reduce_s, t.wait_s, t.reduce_phase_s[0], t.reduce_phase_s[1],
        t.reduce_phase_s[2], t.reduce_phase_s[3] },
           worst[8];
    MPI_Reduce(mine, worst, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int64_t bytes = 0; // the ranks send different amounts: the mean
    MPI_Reduce(&t.wire_bytes, &bytes, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    const double sent = (double)bytes / size;
    static double iter_s[COMM_SAMPLES], comm_s[COMM_SAMPLES], comm_worst[COMM_SAMPLES];
    int ns = comm_mpi_samples(comm, iter_s, comm_s, COMM_SAMPLES); // the same count on every rank
    MPI_Reduce(comm_s, comm_worst, ns, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double k = (double)t.iterations;
        double rows = t.rows / k;
        printf("ranks: %d\n", size);
        printf("workers_per_rank: %d\n", a->workers);
        printf("batch: %d\n", cfg.batch_size);
        printf("iterations_timed: %lld\n", (long long)t.iterations);
        printf("iteration_ms: %.2f\n", 1e3 * wall / k);
        printf("play_ms: %.2f\n", 1e3 * worst[0] / k);
        printf("bcast_ms: %.3f\n", 1e3 * worst[1] / k);
        printf("reduce_ms: %.3f\n", 1e3 * worst[2] / k);
        static const char *phase[4] = { "pack", "exchange1", "finish", "exchange2" };
        for (int p = 0; p < 4; p++) printf("reduce_%s_ms: %.3f\n", phase[p], 1e3 * worst[4 + p] / k);
        printf("rows_per_iteration: %.0f\n", rows);
        printf("sent_bytes_per_entry: %.2f\n", t.entries ? sent / (double)t.entries : 0.0);
        printf("sent_bytes_per_iteration: %.0f\n", sent / k);
        printf("wire_retries: %lld\n", (long long)t.retries);
        printf("comm_share: %.2f%%\n", 100.0 * (worst[1] + worst[2]) / wall);
        for (int i = 0; i < ns; i++) comm_worst[i] /= iter_s[i];
        qsort(comm_worst, (size_t)ns, sizeof(double), cmp_double);
        if (ns)
            printf("comm_share_median: %.2f%%\n",
                100.0 * (ns % 2 ? comm_worst[ns / 2] : 0.5 * (comm_worst[ns / 2 - 1] + comm_worst[ns / 2])));
        fflush(stdout);
    }
    comm->destroy(comm);
    pool_destroy(pool);
    train_state_free(&st);
    return 0;
}

// ----------------------------------------------------------------------------
// no launcher: start mpirun for each setup and prefix its lines

// mpirun's flags for a transport (bench_args let only these through)
static int transport_flags(const char *t, char **argv) {
    static char *const vader[] = { "--mca", "btl", "vader,self", NULL };
    static char *const tcp[] = { "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo",
        NULL };
    char *const *f = !strcmp(t, "tcp") ? tcp : vader;
    int n = 0;
    while (f[n]) argv[n] = f[n], n++;
    return n;
}

// mpirun's output, both streams, line by line: a result line gets its setup's prefix on stdout,
// anything else goes to stderr as it came
typedef struct {
    const char *transport;
    int np;
    char line[1024];
    size_t n;
} LineSink;

static void line_out(LineSink *s) {
    s->line[s->n] = 0;
    const char *l = s->line;
    if (strchr(l, ':') && l[0] != ' ' && !strstr(l, "pongrl:"))
        printf("cluster_%s_np%d_%s", s->transport, s->np, l);
    else
        fputs(l, stderr);
    s->n = 0;
}

static int line_sink(void *ctx, const uint8_t *b, size_t n, char *err, size_t errlen) {
    LineSink *s = ctx;
    for (size_t i = 0; i < n; i++) {
        s->line[s->n++] = (char)b[i];
        if (b[i] == '\n' || s->n == sizeof(s->line) - 1) line_out(s);
    }
    return 0;
}

// One launch: mpirun -np np [transport flags] exe bench cluster ..., its output read through a
// pipe. 0, or -1 with one line in err (-2: no mpirun).
static int bench_launch_one(
    const BenchArgs *a, const char *exe, const char *transport, int np, char *err, size_t errlen) {
    char nps[16], b[16], it[16], w[16];
    snprintf(nps, sizeof(nps), "%d", np);
    snprintf(b, sizeof(b), "%d", a->batch_per_rank);
    snprintf(it, sizeof(it), "%d", a->iterations);
    snprintf(w, sizeof(w), "%d", a->workers);
    char *argv[40];
    int k = 0;
    argv[k++] = "mpirun";
    argv[k++] = "-np";
    argv[k++] = nps;
    argv[k++] = "--oversubscribe";
    k += transport_flags(transport, argv + k);
    char *const rest[] = { (char *)exe, "bench", "cluster", "--batch-per-rank", b, "--iterations", it, "--workers", w,
        NULL };
    for (int i = 0; rest[i]; i++) argv[k++] = rest[i];
    argv[k] = NULL;
    int out[2];
    if (pipe2(out, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot start mpirun: %s", strerror(errno));
        return -1;
    }
    SpawnFd fds[] = { { out[1], 1 }, { out[1], 2 } };
    Child c;
    char why[1024];
    int rc = spawn_start(&c, argv, fds, 2, BENCH_LAUNCH_LIMIT_S, why, sizeof(why));
    int e = errno;
    close(out[1]);
    if (rc && e == ENOENT) {
        close(out[0]);
        snprintf(err, errlen, "bench cluster: mpirun not found on PATH (Debian: apt-get install openmpi-bin)");
        return -2;
    }
    if (!rc) {
        LineSink s = { transport, np, "", 0 };
        rc = spawn_read(&c, out[0], line_sink, &s, why, sizeof(why));
        if (s.n) line_out(&s);
        spawn_end(&c);
    }
    close(out[0]);
    fflush(stdout);
    if (rc) snprintf(err, errlen, "bench cluster: %s with %d ranks failed: %s", transport, np, why);
    return rc;
}

static int bench_launch(const BenchArgs *a) {
    char exe[FILE_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        say_error("cannot find my own binary (/proc/self/exe)");
        return 1;
    }
    exe[n] = 0;
    // benchmarking as root in a container is the common case; mpirun refuses it unless told
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    char transports[64], ranks[64], err[2048];
    snprintf(transports, sizeof(transports), "%s", a->transports);
    int failed = 0;
    char *st, *t;
    for (t = strtok_r(transports, ",", &st); t; t = strtok_r(NULL, ",", &st)) {
        snprintf(ranks, sizeof(ranks), "%s", a->ranks);
        char *sr;
        for (char *r = strtok_r(ranks, ",", &sr); r; r = strtok_r(NULL, ",", &sr)) {
            int rc = bench_launch_one(a, exe, t, (int)arg_int("--ranks", r, 1, 1024), err, sizeof(err));
            if (!rc) continue;
            say_error("%s", err);
            failed = 1;
            if (rc == -2) return 1; // no mpirun: the next setups would say the same
        }
    }
    return failed;
}

int bench_cluster(int argc, char **argv) {
    BenchArgs a;
    bench_args(argc, argv, &a);
    return cluster_launched() ? bench_rank(&a) : bench_launch(&a);
}

#endif
