// rundir.c: the run directory's lock, config.txt, metrics.csv checked against the checkpoint
// on resume, the checkpoint schedule, and loading a model from whatever the user points at.
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
// one owner at a time

int rundir_lock(const char *run_dir, char *err, size_t errlen) {
    char path[CKPT_PATH_MAX];
    snprintf(path, sizeof(path), "%s/.lock", run_dir);
    // never closed: a POSIX lock lasts while the process holds the file open
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) { snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno)); return -1; }
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    // an owner killed a moment ago (say, the ranks of a killed mpirun) may still be exiting
    for (int tries = 0; tries < 50; tries++) {
        if (fcntl(fd, F_SETLK, &fl) == 0) return 0;
        if (errno != EACCES && errno != EAGAIN) {
            fprintf(stderr, "pongrl: warning: cannot lock %s (%s): nothing keeps a second pongrl out of this run\n",
                    path, strerror(errno));
            return 0;
        }
        struct timespec nap = { 0, 20 * 1000 * 1000 };
        nanosleep(&nap, NULL);
    }
    struct flock who = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    char pid[32] = "";
    if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0)
        snprintf(pid, sizeof(pid), " (pid %d)", (int)who.l_pid);
    snprintf(err, errlen, "%s is in use by another pongrl%s: one process at a time may write a run; wait for it "
             "to end or stop it first", run_dir, pid);
    close(fd);
    return -1;
}

void rundir_scan(const char *run_dir, int *checkpoints, int *temporaries) {
    *checkpoints = *temporaries = 0;
    char cdir[CKPT_PATH_MAX];
    snprintf(cdir, sizeof(cdir), "%s/checkpoints", run_dir);
    DIR *d = opendir(cdir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "ckpt-", 5) || n < 9) continue;
        if (!strcmp(e->d_name + n - 4, ".tmp")) (*temporaries)++;
        else if (!strcmp(e->d_name + n - 4, ".bin")) (*checkpoints)++;
    }
    closedir(d);
}

// ----------------------------------------------------------------------------
// metrics.csv: the rows must agree with the checkpoint

typedef struct {
    long long iteration, episodes, agent_steps;
    double wall_s, batch_mean, running_mean, mean_length;
} MetricsRow;

static bool field_ll(const char *s, long long *v) {
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return end != s && !*end && !errno && *v >= 0;
}

static bool field_d(const char *s, double *v) {
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end && isfinite(*v);
}

// One row, as train.c writes it (line without its newline); false for anything else.
static bool metrics_row(const char *line, MetricsRow *r) {
    char buf[256], *f[7];
    if (strlen(line) >= sizeof(buf)) return false;
    snprintf(buf, sizeof(buf), "%s", line);
    int n = 0;
    for (char *p = buf;;) {
        if (n == 7) return false;
        f[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma) break;
        *comma = 0;
        p = comma + 1;
    }
    return n == 7 && field_ll(f[0], &r->iteration) && field_ll(f[1], &r->episodes) &&
           field_ll(f[2], &r->agent_steps) && field_d(f[3], &r->wall_s) && field_d(f[4], &r->batch_mean) &&
           field_d(f[5], &r->running_mean) && field_d(f[6], &r->mean_length) && r->iteration >= 1 &&
           r->wall_s >= 0 && fabs(r->batch_mean) <= 21 && fabs(r->running_mean) <= 21 && r->mean_length >= 0;
}

// A short, printable excerpt of a bad line for a message.
static const char *excerpt(const char *line, char *buf, size_t n) {
    size_t k = 0;
    for (; line[k] && k + 4 < n && k < 40; k++) buf[k] = (line[k] >= 32 && line[k] < 127) ? line[k] : '?';
    snprintf(buf + k, n - k, "%s", line[k] ? "..." : "");
    return buf;
}

int rundir_sync_metrics(const char *run_dir, const TrainState *s, char *err, size_t errlen) {
    char path[CKPT_PATH_MAX], tmp[CKPT_PATH_MAX + 8];
    snprintf(path, sizeof(path), "%s/metrics.csv", run_dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    const long long N = s->iteration, B = s->cfg.batch_size;
    FILE *in = fopen(path, "r");
    if (!in) {
        if (errno != ENOENT) { snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno)); return -1; }
        if (N > 0)
            fprintf(stderr, "pongrl: warning: %s is missing: the rows of iterations 1 to %lld are lost; it starts "
                    "again at iteration %lld\n", path, N, N + 1);
        return 0;
    }
    FILE *out = fopen(tmp, "w");
    if (!out) { snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno)); fclose(in); return -1; }
    fputs(TRAIN_METRICS_HEADER "\n", out);
    char *line = NULL, why[160] = "", ex[48];
    size_t cap = 0;
    ssize_t len;
    long lineno = 0, bad = 0, dropped = 0;
    long long prev = 0, kept = 0, first_missing = 0;
    bool header = false;
    while ((len = getline(&line, &cap, in)) > 0) {
        lineno++;
        // a killed run may leave a half-written last line: it has no newline
        if (line[len - 1] != '\n') { dropped++; continue; }
        line[len - 1] = 0;
        if (lineno == 1 && !strcmp(line, TRAIN_METRICS_HEADER)) { header = true; continue; }
        MetricsRow r;
        const char *wrong = NULL;
        if (strlen(line) != (size_t)len - 1 || !metrics_row(line, &r)) wrong = "not a metrics row";   // a NUL inside
        else if (r.iteration > N) { dropped++; continue; }       // written after the checkpoint
        else if (r.iteration <= prev) wrong = "out of order";
        else if (r.episodes != r.iteration * B) wrong = "episodes do not match the batch size";
        else if (r.iteration == N && (r.episodes != s->episodes || r.agent_steps != s->agent_steps ||
                                      fabs(r.running_mean - s->running_reward) > 1e-6))
            wrong = "does not match the checkpoint";
        if (wrong) {
            if (bad++ == 0) snprintf(why, sizeof(why), "line %ld, '%s': %s", lineno, excerpt(line, ex, sizeof(ex)), wrong);
            continue;
        }
        if (r.iteration != prev + 1 && !first_missing) first_missing = prev + 1;
        prev = r.iteration;
        kept++;
        fprintf(out, "%s\n", line);
    }
    free(line);
    bool read_error = ferror(in);
    fclose(in);
    if (prev < N && !first_missing) first_missing = prev + 1;
    if (lineno > 0 && !header && bad++ == 0) snprintf(why, sizeof(why), "line 1: not the header");
    if (fclose(out) != 0 || read_error) {
        snprintf(err, errlen, "cannot rewrite %s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    if (!bad && !dropped && header) { remove(tmp); }      // nothing to change
    else {
        char damaged[CKPT_PATH_MAX + 32] = "";
        if (bad) {      // nothing is lost: the old file stays beside the new one
            struct stat st;
            snprintf(damaged, sizeof(damaged), "%s.damaged", path);
            for (int k = 2; k < 1000 && stat(damaged, &st) == 0; k++) snprintf(damaged, sizeof(damaged), "%s.damaged.%d", path, k);
            // a hard link: metrics.csv exists at every moment, whenever a kill comes
            if (link(path, damaged) && rename(path, damaged)) {
                snprintf(err, errlen, "cannot keep %s as %s: %s", path, damaged, strerror(errno));
                remove(tmp);
                return -1;
            }
        }
        if (rename(tmp, path)) {
            snprintf(err, errlen, "cannot rewrite %s: %s", path, strerror(errno));
            remove(tmp);
            return -1;
        }
        if (bad) {
            char missing[64] = "";
            if (kept < N) snprintf(missing, sizeof(missing), ", the first missing iteration %lld", first_missing);
            fprintf(stderr, "pongrl: warning: %s did not agree with the checkpoint at iteration %lld (%ld bad line%s, "
                    "the first %s): kept its %lld good rows of %lld%s; the old file is %s\n", path, N, bad,
                    bad > 1 ? "s" : "", why, kept, N, missing, damaged);
            return 0;
        }
    }
    if (kept < N)
        fprintf(stderr, "pongrl: warning: %s lacks the rows of %lld of the %lld iterations up to the checkpoint "
                "(from iteration %lld): they are lost\n", path, N - kept, N, first_missing);
    return 0;
}

int rundir_check_metrics(const char *csv, char *err, size_t errlen) {
    FILE *f = fopen(csv, "r");
    if (!f) return 0;
    char *line = NULL, ex[48];
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    long long prev = 0;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] != '\n') break;                 // a row being written
        line[len - 1] = 0;
        MetricsRow r;
        if (lineno == 1) {
            if (strcmp(line, TRAIN_METRICS_HEADER)) { snprintf(err, errlen, "%s line 1: not the metrics.csv header", csv); rc = -1; }
        } else if (strlen(line) != (size_t)len - 1 || !metrics_row(line, &r)) {
            snprintf(err, errlen, "%s line %ld: not a metrics row ('%s')", csv, lineno, excerpt(line, ex, sizeof(ex)));
            rc = -1;
        } else if (r.iteration <= prev) {
            snprintf(err, errlen, "%s line %ld: iteration %lld after %lld (rows out of order)", csv, lineno, r.iteration, prev);
            rc = -1;
        } else prev = r.iteration;
    }
    free(line);
    fclose(f);
    return rc;
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
