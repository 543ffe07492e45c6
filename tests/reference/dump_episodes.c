// dump_episodes.c: build/dump_episodes, test support (not part of the product binary): plays
// episodes with the library and exports them and one update for the NumPy reference tests
// (tests/py/test_reference.py, test_npy_roundtrip.py) and the speed comparison (bench train).
//
//   build/dump_episodes [--seed N] [--hidden H] [--episodes N] [--env ID] --out DIR
//
// Writes to DIR: W1.npy (H, 6400) and W2.npy (H,) before the update; for each episode e:
// x_e.npy (T, 6400) int8 difference frames, action_e.npy (T,) int8, reward_e.npy (T,),
// dlogp_e.npy (T,) (y - p as played), grad_W1_e.npy / grad_W2_e.npy (the episode's
// gradient); then the batch: grad_W1.npy / grad_W2.npy (exact sum), W1_new.npy, W2_new.npy,
// cache_W1.npy, cache_W2.npy after one RMSProp step from a zero cache.
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/pg/pg.h"
#include "env/env.h"
#include "algo/pg/rollout.h"
#include "algo/pg/pg_streams.h"
#include "train/gradsum.h"
#include "train/state.h"
#include "util/npy.h"
#include "util/transpose.h"

static void usage(const char *why) {
    fprintf(stderr,
        "dump_episodes: %s (usage: dump_episodes [--seed N] [--hidden H] [--episodes N] [--env ID] --out DIR)\n", why);
    exit(2);
}

typedef struct {
    const char *dir;
    int H;
} Out;

static int save(const Out *o, const char *name, const char *descr, int ndim, size_t a, size_t b, const void *data) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s.npy", o->dir, name);
    size_t shape[2] = { a, b };
    if (npy_write(path, descr, ndim, shape, data)) {
        fprintf(stderr, "dump_episodes: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

// Parameters in Karpathy's layout: W1 (H, D) from our transposed (D, H).
static int save_params(const Out *o, const char *w1name, const char *w2name, const Policy *shape, const double *v) {
    const int D = shape->D, H = shape->H;
    double *w1 = malloc(sizeof(double) * (size_t)D * H);
    if (!w1) return -1;
    transpose_f64(v, (size_t)D, (size_t)H, w1);
    int rc = save(o, w1name, "<f8", 2, (size_t)H, (size_t)D, w1) ||
        save(o, w2name, "<f8", 1, (size_t)H, 0, v + (size_t)D * H);
    free(w1);
    return rc ? -1 : 0;
}

// The episode's gradient as a dense array: w->grad holds it on the rows the episode touched and
// W2 only (its other rows are stale).
static void episode_gradient(const Worker *w, const Policy *p, double *g) {
    const size_t H = (size_t)p->H;
    memset(g, 0, sizeof(double) * p->n);
    for (int k = 0; k < w->touched.n; k++)
        memcpy(g + w->touched.list[k] * H, w->grad + w->touched.list[k] * H, sizeof(double) * H);
    memcpy(g + (size_t)p->D * H, w->grad + (size_t)p->D * H, sizeof(double) * H);
}

static int save_episode(
    const Out *o, int e, const Worker *w, const Policy *p, const double *dlogp_played, const double *grad) {
    const Trajectory *tr = &w->tr;
    int8_t *x = calloc((size_t)tr->T * POLICY_D, 1);
    double *r = malloc(sizeof(double) * tr->T);
    int8_t *a = malloc((size_t)tr->T);
    if (!x || !r || !a) {
        free(x);
        free(r);
        free(a);
        return -1;
    }
    for (int t = 0; t < tr->T; t++) {
        for (uint32_t k = tr->xoff[t]; k < tr->xoff[t + 1]; k++) x[(size_t)t * POLICY_D + tr->idx[k]] = tr->sign[k];
        r[t] = tr->reward[t];
        a[t] = (int8_t)tr->action[t];
    }
    char n1[32], n2[32], n3[32], n4[32], n5[32], n6[32];
    snprintf(n1, 32, "x_%d", e);
    snprintf(n2, 32, "action_%d", e);
    snprintf(n3, 32, "reward_%d", e);
    snprintf(n4, 32, "dlogp_%d", e);
    snprintf(n5, 32, "grad_W1_%d", e);
    snprintf(n6, 32, "grad_W2_%d", e);
    int rc = save(o, n1, "|i1", 2, (size_t)tr->T, POLICY_D, x) || save(o, n2, "|i1", 1, (size_t)tr->T, 0, a) ||
        save(o, n3, "<f8", 1, (size_t)tr->T, 0, r) || save(o, n4, "<f8", 1, (size_t)tr->T, 0, dlogp_played) ||
        save_params(o, n5, n6, p, grad);
    free(x);
    free(r);
    free(a);
    return rc ? -1 : 0;
}

int main(int argc, char **argv) {
    static const struct option opts[] = { { "seed", 1, 0, 's' }, { "hidden", 1, 0, 'H' }, { "episodes", 1, 0, 'n' },
        { "env", 1, 0, 'e' }, { "out", 1, 0, 'o' }, { 0, 0, 0, 0 } };
    TrainConfig cfg;
    train_config_default(&cfg);
    int episodes = 2;
    const char *dir = NULL;
    int o;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (o) {
            case 's': cfg.seed = strtoull(optarg, NULL, 10); break;
            case 'H': cfg.hidden = atoi(optarg); break;
            case 'n': episodes = atoi(optarg); break;
            case 'e': snprintf(cfg.env_id, sizeof(cfg.env_id), "%s", optarg); break;
            case 'o': dir = optarg; break;
            default: usage("bad option");
        }
    }
    if (!dir) usage("--out DIR is needed");
    if (cfg.hidden < 1 || cfg.hidden > TRAIN_H_MAX || episodes < 1 || !env_preset_find(cfg.env_id))
        usage("--hidden, --episodes or --env out of range");
    Out out = { dir, cfg.hidden };
    TrainState st;
    Worker w;
    Env env;
    GradSum sum = { 0 };
    double *g = NULL, *dlogp = NULL;
    int rc = -1;
    memset(&w, 0, sizeof(w));
    if (train_state_init(&st, &cfg, &PG_LEARNER)) {
        fprintf(stderr, "dump_episodes: out of memory\n");
        return 1;
    }
    Policy *net = &pg_state(&st)->net;
    if (worker_alloc(&w, net) || gradsum_alloc(&sum, net->n) || env_init(&env, cfg.env_id, 0) != ENV_OK ||
        !(g = malloc(sizeof(double) * net->n))) {
        fprintf(stderr, "dump_episodes: out of memory\n");
        goto out;
    }
    rc = save_params(&out, "W1", "W2", net, net->w);
    for (int e = 0; e < episodes && !rc; e++) {
        EpisodeStats es;
        rc = rollout_play(&w, net, &env, episode_env_seed(cfg.seed, e), episode_act_seed(cfg.seed, e), &es);
        free(dlogp);
        if (rc || !(dlogp = malloc(sizeof(double) * (w.tr.T ? w.tr.T : 1)))) {
            rc = -1;
            break;
        }
        memcpy(dlogp, w.tr.dlogp, sizeof(double) * w.tr.T); // y - p as played
        rc = rollout_gradient(&w, net, cfg.gamma);
        if (!rc) episode_gradient(&w, net, g);
        rc = rc || gradsum_add(&sum, g, 0, net->n) || save_episode(&out, e, &w, net, dlogp, g);
    }
    if (!rc) {
        gradsum_to_double(&sum, g);
        rmsprop_update(net->w, pg_state(&st)->cache, g, net->n, cfg.lr, cfg.decay);
        rc = save_params(&out, "grad_W1", "grad_W2", net, g) || save_params(&out, "W1_new", "W2_new", net, net->w) ||
            save_params(&out, "cache_W1", "cache_W2", net, pg_state(&st)->cache);
    }
    if (rc) fprintf(stderr, "dump_episodes: failed\n");
out:
    free(dlogp);
    free(g);
    gradsum_free(&sum);
    worker_free(&w);
    train_state_free(&st);
    return rc ? 1 : 0;
}
