// bench_train.c: `pongrl bench train`: the network's speed per agent step on one episode,
// training throughput, and the wall time of one update. (Karpathy's NumPy code on the same
// episode is timed by bench/karpathy_bench.py, which `make bench` runs after this.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../algo/algo.h"
#include "../algo/pg/pg.h"
#include "../algo/pg/pg_streams.h"
#include "../algo/pg/rollout.h"
#include "../train/train.h"
#include "../util/clock.h"
#include "../util/num.h"
#include "args.h"
#include "commands.h"

// One update of `batch` episodes with an untrained policy, in steady state (threads started,
// buffers warm: Karpathy's figures do not count creating the actors either); wall seconds.
static double time_update(int batch, int workers, int64_t *steps) {
    TrainConfig cfg;
    train_config_default(&cfg);
    cfg.batch_size = batch;
    cfg.workers = workers;
    cfg.iterations = 1;
    cfg.quiet = true;
    TrainState st;
    if (train_state_init(&st, &cfg, algo_find(cfg.algo))) return -1;
    Pool *pool = pool_create(workers);
    Comm *comm = comm_local_create();
    char err[256];
    int rc = pool && comm ? train_run(&st, pool, comm, NULL, err, sizeof(err)) : -1; // warm-up
    int64_t steps0 = st.agent_steps;
    st.cfg.iterations = 2;
    double t0 = clock_now_s();
    rc = rc ? rc : train_run(&st, pool, comm, NULL, err, sizeof(err));
    double dt = clock_now_s() - t0;
    *steps = st.agent_steps - steps0;
    if (comm) comm->destroy(comm);
    pool_destroy(pool);
    train_state_free(&st);
    return rc ? -1 : dt;
}

int bench_train(int argc, char **argv) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (argc > 1 && arg_is_help(argv[1])) {
        printf("usage: pongrl bench train [WORKERS (default: one per core)]\n"
               "The network's speed per agent step on one episode, training throughput and the wall time\n"
               "of one update, as name: value lines (`make bench` adds Karpathy's NumPy code on the same episode).\n");
        return 0;
    }
    if (argc > 2) die_usage("bench train: one argument at most, WORKERS; got '%s' too", argv[2]);
    if (argc > 1 && argv[1][0] == '-' && !num_plain(argv[1], true, false))
        die_usage("bench train: unknown option '%s' (it takes WORKERS)", argv[1]);
    int workers = argc > 1 ? (int)arg_int("bench train: WORKERS", argv[1], 1, 1024) : (int)(cores > 0 ? cores : 1);
    // pg's network on one real episode (untrained policy); bench/karpathy_bench.py times Karpathy's
    // NumPy code on the same episode
    TrainConfig cfg;
    train_config_default(&cfg);
    TrainState st;
    Worker w;
    Env env;
    if (train_state_init(&st, &cfg, &PG_LEARNER)) return 1;
    const Policy *net = &pg_state(&st)->net;
    if (worker_alloc(&w, net)) {
        train_state_free(&st);
        return 1;
    }
    env_init_flavour(&env, cfg.env_id, cfg.mode, cfg.difficulty, 0);
    EpisodeStats es;
    rollout_play(&w, net, &env, episode_env_seed(1, 0), episode_act_seed(1, 0), &es);
    const Trajectory *tr = &w.tr;
    double *h = malloc(sizeof(double) * net->H);
    int reps = 20;
    double t0 = clock_now_s(), sink = 0;
    for (int r = 0; r < reps; r++)
        for (int t = 0; t < tr->T; t++) {
            SparseX x = { (int)(tr->xoff[t + 1] - tr->xoff[t]), tr->idx + tr->xoff[t], tr->sign + tr->xoff[t] };
            sink += policy_forward(net, x, h);
        }
    double fwd = (clock_now_s() - t0) / reps / tr->T;
    // backward: the whole episode's gradient (rollout_gradient scales dlogp in place, so keep a copy)
    double *dl = malloc(sizeof(double) * tr->T);
    memcpy(dl, tr->dlogp, sizeof(double) * tr->T);
    double bwd_total = 0;
    for (int r = 0; r < reps; r++) {
        memcpy(w.tr.dlogp, dl, sizeof(double) * tr->T);
        double t1 = clock_now_s();
        rollout_gradient(&w, net, cfg.gamma);
        bwd_total += clock_now_s() - t1;
    }
    double bwd = bwd_total / reps / tr->T;
    printf("episode_steps: %d\n", tr->T);
    printf("nonzeros_per_step: %.1f\n", (double)tr->nz / tr->T);
    printf("forward_us_per_step: %.3f\n", fwd * 1e6);
    printf("backward_us_per_step: %.3f\n", bwd * 1e6);
    fflush(stdout);
    free(h);
    free(dl);
    worker_free(&w);
    train_state_free(&st);
    // training throughput and update wall time, untrained policy, all cores
    printf("workers: %d\n", workers);
    int64_t steps;
    double b10 = time_update(10, workers, &steps);
    printf("batch10_s: %.3f\n", b10);
    printf("train_steps_per_sec: %.0f\n", steps / b10);
    double b60 = time_update(60, workers, &steps);
    printf("batch60_s: %.3f\n", b60);
    printf("train_steps_per_sec_batch60: %.0f\n", steps / b60);
    (void)sink;
    return 0;
}
