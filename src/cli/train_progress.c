// train_progress.c: the learner's log line, metrics row and checkpoint schedule (train_progress.h).
#include "train_progress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../media/plot.h"
#include "../train/checkpoint.h"
#include "../util/clock.h"
#include "metrics.h"
#include "rundir.h"
#include "../util/say.h"

void train_progress_init(TrainProgress *tp, const TrainState *s) {
    memset(tp, 0, sizeof(*tp));
    tp->last_iteration = s->iteration;
    tp->last_time = tp->session_t0 = clock_now_s();
    tp->session_it0 = s->iteration;
}

// ----------------------------------------------------------------------------
// the line on stdout

static void format_duration(double s, char *buf, size_t n) {
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, n, "%lds", t);
}

const char *train_progress_running_mean(const TrainState *s, char *buf, size_t n) {
    if (s->episodes > 0)
        snprintf(buf, n, "%.4f", s->running_reward);
    else
        snprintf(buf, n, "-");
    return buf;
}

void train_progress_print_goal(const TrainState *s) {
    const TrainConfig *c = &s->cfg;
    char target[64] = "";
    if (c->has_target_reward) snprintf(target, sizeof(target), "the running mean reaches %+.2f", c->target_reward);
    if (c->iterations >= 0 && c->has_target_reward)
        printf("pongrl train: stops after iteration %lld, or sooner when %s\n", (long long)c->iterations, target);
    else if (c->iterations >= 0)
        printf("pongrl train: stops after iteration %lld\n", (long long)c->iterations);
    else if (c->has_target_reward)
        printf("pongrl train: stops when %s (points won minus lost per game, over about the last 100 games); "
               "no --iterations limit\n",
            target);
    else
        printf("pongrl train: runs until Ctrl-C (no --iterations or --target-reward); --resume continues it\n");
}

// "12/150" where the run's end is an iteration, else "12".
static const char *iteration_of(const TrainState *s, char *buf, size_t n) {
    if (s->cfg.iterations >= 0)
        snprintf(buf, n, "%lld/%lld", (long long)s->iteration, (long long)s->cfg.iterations);
    else
        snprintf(buf, n, "%lld", (long long)s->iteration);
    return buf;
}

// 0, or the errno of a failed write (a closed pipe: SIGPIPE is ignored, main.c).
// Whole-episode learners (pg) keep Karpathy's line, which Karpathy's and Ray's users know; a
// learner of fixed-length rollouts says what it played: agent steps, and the episodes that
// happened to end in them (often none early on, when a game outlasts a rollout).
static int print_batch_line(const TrainState *s, const TrainBatch *b, double session_rate_it) {
    char eta[32] = "";
    const TrainConfig *c = &s->cfg;
    if (c->iterations > 0 && session_rate_it > 0) {
        char d[24];
        format_duration((double)(c->iterations - s->iteration) / session_rate_it, d, sizeof(d));
        snprintf(eta, sizeof(eta), " | eta %s", d);
    }
    char it[48], mean[32], len[48] = "";
    if (b->episodes > 0) snprintf(len, sizeof(len), " | mean length %.0f", b->mean_len);
    iteration_of(s, it, sizeof(it));
    train_progress_running_mean(s, mean, sizeof(mean));
    const double rate = b->secs > 0 ? b->steps / b->secs : 0.0;
    if (s->learner && s->learner->episodes_per_iteration)
        printf("Batch %s computed %d rollouts in %.3f seconds, running mean is %s | %.0f steps/s%s%s\n", it,
            b->episodes, b->secs, mean, rate, len, eta);
    else {
        char ended[48];
        if (b->episodes > 0)
            snprintf(ended, sizeof(ended), "%d episode%s ended", b->episodes, b->episodes == 1 ? "" : "s");
        else
            snprintf(ended, sizeof(ended), "no episode ended");
        printf("Iteration %s: %lld agent steps, %s in %.3f seconds, running mean is %s | %.0f steps/s%s%s\n", it,
            (long long)b->steps, ended, b->secs, mean, rate, len, eta);
    }
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    return errno ? errno : EIO;
}

// ----------------------------------------------------------------------------
// the checkpoint schedule

static int checkpoint_if_due(TrainProgress *tp, TrainState *s, bool final, char *err, size_t errlen) {
    const TrainConfig *c = &s->cfg;
    if (s->iteration == tp->last_iteration) return 0; // nothing new since the last save
    bool due = final || (c->checkpoint_every > 0 && s->iteration - tp->last_iteration >= c->checkpoint_every) ||
        (c->checkpoint_secs > 0 && clock_now_s() - tp->last_time >= c->checkpoint_secs);
    if (!due) return 0;
    double t0 = clock_now_s();
    train_state_settle(s); // what the learner owes its state (pg: the deferred cache decays)
    if (checkpoint_save(c->run_dir, s, c->keep, NULL, 0, err, errlen)) return -1;
    double t1 = clock_now_s();
    tp->save_s_total += t1 - t0;
    tp->saves++;
    tp->last_iteration = s->iteration;
    tp->last_time = t1;
    char why[512];
    if (rundir_write_config(s, why, sizeof(why))) say_warning("%s", why); // the checkpoint is what matters
    if (!tp->plot_off) {
        char csv[CKPT_PATH_MAX], png[CKPT_PATH_MAX];
        snprintf(csv, sizeof(csv), "%s/metrics.csv", c->run_dir);
        snprintf(png, sizeof(png), "%s/curve.png", c->run_dir);
        if (plot_curve(csv, png, c->run_dir, why, sizeof(why)) < 0) {
            say_warning("%s", why);
            tp->plot_off = true; // say it once
        }
    }
    return 0;
}

int train_progress_on_iteration(TrainState *s, const TrainBatch *b, bool final, void *ctx, char *err, size_t errlen) {
    TrainProgress *tp = ctx;
    if (!final) {
        double rate = (s->iteration - tp->session_it0) / (clock_now_s() - tp->session_t0);
        if (!s->cfg.quiet && !tp->stdout_errno && (tp->stdout_errno = print_batch_line(s, b, rate)))
            train_request_stop(); // nobody reads the log: stop after this batch
        if (metrics_append(s->cfg.run_dir, s, b, err, errlen)) return -1;
    }
    return checkpoint_if_due(tp, s, final, err, errlen);
}
