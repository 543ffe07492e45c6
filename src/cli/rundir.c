// rundir.c: config.txt, metrics.csv trimming on resume, the checkpoint schedule, and
// loading a model from whatever the user points at.
#include "rundir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../media/plot.h"
#include "../train/checkpoint.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// ----------------------------------------------------------------------------
// config.txt: for people; the checkpoint is what a resume reads

// The shortest decimal that reads back as the same double (0.99, not 0.98999999999999999).
static const char *fmt_double(double v, char *buf, size_t n) {
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

int rundir_write_config(const TrainState *s, char *err, size_t errlen) {
    const TrainConfig *c = &s->cfg;
    char path[CKPT_PATH_MAX], tmp[CKPT_PATH_MAX + 8];
    snprintf(path, sizeof(path), "%s/config.txt", c->run_dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) { snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno)); return -1; }
    char target[32] = "none", b1[32], b2[32], b3[32];
    if (c->has_target) snprintf(target, sizeof(target), "%g", c->target_reward);
    fprintf(f,
            "# pongrl run configuration (written by pongrl train; the checkpoints hold the same)\n"
            "env = %s\nbatch_size = %d\nhidden = %d\nlr = %s\ngamma = %s\ndecay = %s\nseed = %llu\n"
            "iterations = %lld\ntarget_reward = %s\ncheckpoint_every = %lld\ncheckpoint_secs = %g\nkeep = %d\n"
            "workers = %d\n"
            "# where the run stood when this file was written\n"
            "iteration = %lld\nepisodes = %lld\nagent_steps = %lld\nframes = %lld\nrunning_mean = %.6f\n"
            "wall_s = %.3f\n",
            c->env_id, c->batch_size, c->hidden, fmt_double(c->lr, b1, sizeof(b1)), fmt_double(c->gamma, b2, sizeof(b2)),
            fmt_double(c->decay, b3, sizeof(b3)), (unsigned long long)c->seed,
            (long long)c->iterations, target, (long long)c->checkpoint_every, c->checkpoint_secs, c->keep,
            c->workers, (long long)s->iteration, (long long)s->episodes, (long long)s->agent_steps,
            (long long)s->frames, s->running_reward, s->wall_s);
    if (fclose(f) != 0 || rename(tmp, path)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// metrics.csv: keep the header and the rows up to the checkpoint's iteration

int rundir_trim_metrics(const char *run_dir, int64_t iteration, char *err, size_t errlen) {
    char path[CKPT_PATH_MAX], tmp[CKPT_PATH_MAX + 8];
    snprintf(path, sizeof(path), "%s/metrics.csv", run_dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *in = fopen(path, "r");
    if (!in) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    FILE *out = fopen(tmp, "w");
    if (!out) { snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno)); fclose(in); return -1; }
    char line[1024];
    bool header = true;
    long dropped = 0;
    while (fgets(line, sizeof(line), in)) {
        // a killed run may leave a half-written last line: it has no newline, drop it
        if (!strchr(line, '\n')) { dropped++; continue; }
        if (!header) {
            long long it;
            if (sscanf(line, "%lld,", &it) != 1 || it > iteration) { dropped++; continue; }
        }
        header = false;
        fputs(line, out);
    }
    fclose(in);
    if (fclose(out) != 0 || rename(tmp, path)) {
        snprintf(err, errlen, "cannot rewrite %s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    (void)dropped;
    return 0;
}

// ----------------------------------------------------------------------------
// the checkpoint schedule

void checkpointer_init(Checkpointer *ck, int64_t iteration) {
    memset(ck, 0, sizeof(*ck));
    ck->last_iteration = iteration;
    ck->last_time = now_s();
}

int checkpointer_on_iteration(TrainState *s, bool final, void *ctx, char *err, size_t errlen) {
    Checkpointer *ck = ctx;
    const TrainConfig *c = &s->cfg;
    if (s->iteration == ck->last_iteration) return 0;        // nothing new since the last save
    bool due = final || (c->checkpoint_every > 0 && s->iteration - ck->last_iteration >= c->checkpoint_every) ||
               (c->checkpoint_secs > 0 && now_s() - ck->last_time >= c->checkpoint_secs);
    if (!due) return 0;
    double t0 = now_s();
    train_state_settle(s);      // the cache decays the learner deferred (train.c, apply_update)
    if (checkpoint_save(c->run_dir, s, c->keep, NULL, 0, err, errlen)) return -1;
    double t1 = now_s();
    ck->save_s_total += t1 - t0;
    ck->saves++;
    ck->last_iteration = s->iteration;
    ck->last_time = t1;
    char why[512];
    if (rundir_write_config(s, why, sizeof(why)))
        fprintf(stderr, "pongrl: warning: %s\n", why);          // the checkpoint is what matters
    if (!ck->plot_off) {
        char csv[CKPT_PATH_MAX], png[CKPT_PATH_MAX];
        snprintf(csv, sizeof(csv), "%s/metrics.csv", c->run_dir);
        snprintf(png, sizeof(png), "%s/curve.png", c->run_dir);
        if (plot_curve(csv, png, c->run_dir, why, sizeof(why)) < 0) {
            fprintf(stderr, "pongrl: warning: %s\n", why);
            ck->plot_off = true;                                // say it once
        }
    }
    return 0;
}

// ----------------------------------------------------------------------------
// models for eval, record, export

static bool is_dir(const char *p) { struct stat st; return stat(p, &st) == 0 && S_ISDIR(st.st_mode); }
static bool exists(const char *p) { struct stat st; return stat(p, &st) == 0; }

int model_load(const char *src, TrainState *s, char *desc, size_t desclen, char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    if (!exists(src)) { snprintf(err, errlen, "%s: %s", src, strerror(errno)); return -1; }
    char path[CKPT_PATH_MAX];
    if (!is_dir(src)) {
        uint32_t flags;
        if (checkpoint_load(src, s, &flags, err, errlen)) return -1;
        snprintf(desc, desclen, "%s (%s, H=%d, iteration %lld, %lld episodes)", src,
                 flags & CKPT_FLAG_IMPORTED ? "imported weights" : "checkpoint", s->policy.H,
                 (long long)s->iteration, (long long)s->episodes);
        return 0;
    }
    snprintf(path, sizeof(path), "%s/W1.npy", src);
    if (exists(path)) {
        train_config_default(&s->cfg);
        if (weights_import_npy(src, &s->policy, err, errlen)) return -1;
        s->cfg.hidden = s->policy.H;
        s->cache = calloc(s->policy.n, sizeof(double));
        if (!s->cache) { policy_free(&s->policy); snprintf(err, errlen, "out of memory"); return -1; }
        snprintf(desc, desclen, "%s (W1.npy/W2.npy, H=%d)", src, s->policy.H);
        return 0;
    }
    if (checkpoint_load_latest(src, s, path, sizeof(path), stderr, err, errlen)) {
        snprintf(path, sizeof(path), "%s/checkpoints", src);
        if (!is_dir(path) && !strstr(err, "no usable"))
            snprintf(err, errlen, "%s: not a checkpoint, a run directory, nor a folder with W1.npy and W2.npy", src);
        return -1;
    }
    snprintf(desc, desclen, "%s (checkpoint, H=%d, iteration %lld, %lld episodes)", path, s->policy.H,
             (long long)s->iteration, (long long)s->episodes);
    return 0;
}
