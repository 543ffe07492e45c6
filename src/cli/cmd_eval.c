// cmd_eval.c: `pongrl eval`: how good is a model? N games on every core, then the mean
// score with its 95% interval, the share of points won and the mean episode length.
// Episode e is seeded from (--seed, e) alone, so the output does not depend on --workers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../train/train.h"
#include "../util/workpool.h"
#include "args.h"
#include "commands.h"
#include "play.h"
#include "../util/say.h"

typedef struct {
    int score;      // agent - CPU points
    int agent, cpu; // points
    int64_t steps, frames;
    bool truncated;
} EvalResult;

typedef struct {
    uint64_t seed;
    Player **players; // (workers,) one per worker of the pool
    EvalResult *res;  // (episodes,)
} EvalJob;

// Episode e, on whichever worker claims it: its result depends on (seed, e) alone.
static void eval_episode(void *ctx, int e, int worker) {
    EvalJob *job = ctx;
    Player *pl = job->players[worker];
    player_reset(pl, play_env_seed(job->seed, e), play_act_seed(job->seed, e));
    EvalResult r = { 0 };
    EnvStep s;
    do {
        player_step(pl, &s);
        r.steps++;
        r.frames += s.frames;
    } while (!s.terminated && !s.truncated);
    EnvState es;
    env_state(&pl->env, &es);
    r.agent = (int)es.score_agent;
    r.cpu = (int)es.score_cpu;
    r.score = r.agent - r.cpu;
    r.truncated = s.truncated;
    job->res[e] = r; // a slot per episode: no lock
}

// Two-sided 95% quantile of Student's t with df degrees of freedom: a table to 30, then
// the Cornish-Fisher expansion around the normal 1.959964 (error < 1e-4 there).
static double t975(int df) {
    static const double T[31] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
        2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
        2.048, 2.045, 2.042 };
    if (df <= 30) return T[df];
    double z = 1.959964, d = df;
    return z + (z * z * z + z) / (4 * d) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

int cmd_eval(int argc, char **argv) {
    PlayArgs a;
    play_args_parse(argc, argv, PLAY_OPTS_GAME | PLAY_OPT_EPISODES | PLAY_OPT_WORKERS | PLAY_OPT_VERBOSE,
        "MODEL [options]", "Plays games with a trained policy and reports how well it does.\n", &a);
    int episodes = a.episodes, workers = a.workers;
    const bool greedy = a.greedy, verbose = a.verbose;
    const uint64_t seed = a.seed;
    if (workers < 1) workers = 1;
    if (workers > episodes) workers = episodes;

    TrainState st;
    char desc[2048];
    if (play_load_model(&a, &st, desc, sizeof(desc))) return 1;
    const char *env_id = a.env_id; // the model's unless --env was given; likewise the two below
    const int mode = a.mode, difficulty = a.difficulty;
    char flavour[64] = "";
    if (mode || difficulty) snprintf(flavour, sizeof flavour, " mode %d difficulty %d", mode, difficulty);
    printf("pongrl eval: %s\n  %s%s, %d episode%s, %s, seed %llu, %d worker%s\n", desc, env_id, flavour, episodes,
        episodes == 1 ? "" : "s", greedy ? "greedy" : "stochastic", (unsigned long long)seed, workers,
        workers == 1 ? "" : "s");
    fflush(stdout);

    EvalJob job = { seed, calloc((size_t)workers, sizeof(Player *)), calloc((size_t)episodes, sizeof(EvalResult)) };
    WorkPool *wp = NULL;
    int rc = 1;
    if (!job.players || !job.res) {
        say_error("out of memory");
        goto out;
    }
    for (int k = 0; k < workers; k++)
        if (!(job.players[k] = player_create(&st, &a))) goto out;
    if (!(wp = workpool_create(workers - 1))) {
        say_error("cannot start threads");
        goto out;
    }
    workpool_run(wp, episodes, eval_episode, &job);

    double sum = 0, sq = 0, steps = 0, frames = 0;
    long agent = 0, cpu = 0, truncated = 0;
    for (int e = 0; e < episodes; e++) {
        const EvalResult *r = &job.res[e];
        if (verbose)
            printf("episode %d: agent %d, cpu %d (%+d), %lld steps%s\n", e, r->agent, r->cpu, r->score,
                (long long)r->steps, r->truncated ? ", truncated" : "");
        sum += r->score;
        steps += (double)r->steps;
        frames += (double)r->frames;
        agent += r->agent;
        cpu += r->cpu;
        truncated += r->truncated;
    }
    double mean = sum / episodes;
    for (int e = 0; e < episodes; e++) sq += (job.res[e].score - mean) * (job.res[e].score - mean);
    if (episodes > 1) {
        double half = t975(episodes - 1) * sqrt(sq / (episodes - 1)) / sqrt((double)episodes);
        printf("mean score: %.2f ± %.2f (95%%, t interval of the mean, n=%d)\n", mean, half, episodes);
    } else {
        printf("mean score: %.2f (one episode: no interval)\n", mean);
    }
    printf("points won: %.1f%% (%ld of %ld)\n", agent + cpu ? 100.0 * agent / (agent + cpu) : 0.0, agent, agent + cpu);
    printf("mean episode length: %.0f steps (%.0f frames)%s\n", steps / episodes, frames / episodes,
        truncated ? ", some truncated by the episode cap" : "");
    rc = 0;
out:
    workpool_destroy(wp);
    for (int k = 0; job.players && k < workers; k++) player_destroy(job.players[k]);
    free(job.players);
    free(job.res);
    train_state_free(&st);
    return rc;
}
