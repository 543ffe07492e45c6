// metrics.c: RUN_DIR/metrics.csv written row by row, made to agree with the checkpoint on
// resume, checked before plotting (metrics.h).
#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "../train/checkpoint.h"
#include "../util/file.h"
#include "../util/say.h"

// ----------------------------------------------------------------------------
// one row per iteration

static int header_of(const Learner *l, char *out, size_t n);

int metrics_append(const char *run_dir, const TrainState *s, const TrainBatch *b, char *err, size_t errlen) {
    if (!run_dir[0]) return 0;
    char path[CKPT_PATH_MAX];
    snprintf(path, sizeof(path), "%s/metrics.csv", run_dir);
    char why[CKPT_PATH_MAX + 64];
    FILE *f = file_fopen_append(path, why, sizeof(why));
    if (!f) {
        snprintf(err, errlen, "cannot append to %s", why);
        return -1;
    }
    char header[1024];
    const int extra = header_of(s->learner, header, sizeof(header));
    if (ftell(f) == 0) fprintf(f, "%s\n", header);
    // An iteration that ended no episode has no batch mean and no length, and a run has no
    // running mean before its first episode: those fields are left empty (a 0 would read as a
    // tied game, and pandas, csv readers and gnuplot all take an empty field as missing).
    fprintf(f, "%lld,%lld,%lld,%.3f,", (long long)s->iteration, (long long)s->episodes, (long long)s->agent_steps,
        s->wall_s);
    if (b->episodes > 0) fprintf(f, "%.4f", b->batch_mean);
    fprintf(f, ",");
    if (s->episodes > 0) fprintf(f, "%.6f", s->running_reward);
    fprintf(f, ",");
    if (b->episodes > 0) fprintf(f, "%.1f", b->mean_len);
    for (int k = 0; k < extra; k++) fprintf(f, ",%.6g", b->metrics[k]);
    fprintf(f, "\n");
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// metrics.csv: the rows must agree with the checkpoint

typedef struct {
    long long iteration, episodes, agent_steps;
    double wall_s, batch_mean, running_mean, mean_length; // the last three NaN where empty
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

// A field that may be empty (no value): NaN then. Files of earlier versions wrote 0 instead.
static bool field_d_or_empty(const char *s, double *v) {
    if (!*s) {
        *v = NAN;
        return true;
    }
    return field_d(s, v);
}

static bool field_any(const char *s) { // a learner's diagnostic may be NaN
    char *end;
    (void)strtod(s, &end);
    return end != s && !*end;
}

// One row, as metrics_append writes it (line without its newline), with `extra` learner
// columns after the common seven; false for anything else.
static bool metrics_row(const char *line, int extra, MetricsRow *r) {
    char buf[1024], *f[7 + LEARNER_METRICS_MAX];
    const int want = 7 + extra;
    if (strlen(line) >= sizeof(buf)) return false;
    snprintf(buf, sizeof(buf), "%s", line);
    int n = 0;
    for (char *p = buf;;) {
        if (n == want) return false;
        f[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma) break;
        *comma = 0;
        p = comma + 1;
    }
    for (int k = 7; k < n; k++)
        if (!field_any(f[k])) return false;
    return n == want && field_ll(f[0], &r->iteration) && field_ll(f[1], &r->episodes) &&
        field_ll(f[2], &r->agent_steps) && field_d(f[3], &r->wall_s) && field_d_or_empty(f[4], &r->batch_mean) &&
        field_d_or_empty(f[5], &r->running_mean) && field_d_or_empty(f[6], &r->mean_length) && r->iteration >= 1 &&
        r->wall_s >= 0 && !(fabs(r->batch_mean) > TRAIN_REWARD_MAX) && !(fabs(r->running_mean) > TRAIN_REWARD_MAX) &&
        !(r->mean_length < 0) && (!isnan(r->running_mean) || r->episodes == 0);
}

// The header line of a run of this learner; returns its number of extra columns.
static int header_of(const Learner *l, char *out, size_t n) {
    int k = 0;
    size_t used = (size_t)snprintf(out, n, "%s", METRICS_HEADER);
    for (; l && l->metrics[k]; k++)
        if (used < n) used += (size_t)snprintf(out + used, n - used, ",%s", l->metrics[k]);
    return k;
}

// A short, printable excerpt of a bad line for a message.
static const char *excerpt(const char *line, char *buf, size_t n) {
    size_t k = 0;
    for (; line[k] && k + 4 < n && k < 40; k++) buf[k] = (line[k] >= 32 && line[k] < 127) ? line[k] : '?';
    snprintf(buf + k, n - k, "%s", line[k] ? "..." : "");
    return buf;
}

int metrics_sync(const char *run_dir, const TrainState *s, char *err, size_t errlen) {
    char path[CKPT_PATH_MAX];
    snprintf(path, sizeof(path), "%s/metrics.csv", run_dir);
    const long long N = s->iteration;
    char whyopen[CKPT_PATH_MAX + 64];
    FILE *in = file_fopen_read(path, whyopen, sizeof(whyopen));
    if (!in) {
        if (errno != ENOENT) {
            snprintf(err, errlen, "cannot read %s", whyopen);
            return -1;
        }
        if (N > 0)
            say_warning("%s is missing: the rows of iterations 1 to %lld are lost; it starts "
                        "again at iteration %lld",
                path, N, N + 1);
        return 0;
    }
    // the good rows go to a new file that replaces the old one whole (file.h)
    FileReplace fr;
    if (file_replace_begin(&fr, path, err, errlen)) {
        fclose(in);
        return -1;
    }
    FILE *out = file_replace_fopen(&fr, err, errlen);
    if (!out) {
        file_replace_abort(&fr);
        fclose(in);
        return -1;
    }
    char header[1024];
    const int extra = header_of(s->learner, header, sizeof(header));
    fprintf(out, "%s\n", header);
    char *line = NULL, why[160] = "", ex[48];
    size_t cap = 0;
    ssize_t len;
    long lineno = 0, bad = 0, dropped = 0;
    long long prev = 0, kept = 0, first_missing = 0, prev_episodes = 0;
    // whole-episode learners finish a fixed number of episodes an iteration; rollouts of fixed
    // length finish however many end in them
    const long long per_it = s->learner->episodes_per_iteration ? s->learner->episodes_per_iteration(&s->cfg) : 0;
    bool has_header = false;
    while ((len = getline(&line, &cap, in)) > 0) {
        lineno++;
        // a killed run may leave a half-written last line: it has no newline
        if (line[len - 1] != '\n') {
            dropped++;
            continue;
        }
        line[len - 1] = 0;
        if (lineno == 1 && !strcmp(line, header)) {
            has_header = true;
            continue;
        }
        MetricsRow r;
        const char *wrong = NULL;
        if (strlen(line) != (size_t)len - 1 || !metrics_row(line, extra, &r))
            wrong = "not a metrics row"; // a NUL inside
        else if (r.iteration > N) {
            dropped++;
            continue;
        } // written after the checkpoint
        else if (r.iteration <= prev)
            wrong = "out of order";
        else if (per_it && r.episodes != r.iteration * per_it)
            wrong = "episodes do not match the batch size";
        else if (r.episodes < prev_episodes || r.episodes > s->episodes)
            wrong = "episodes out of order";
        else if (r.iteration == N &&
            (r.episodes != s->episodes || r.agent_steps != s->agent_steps ||
                (!isnan(r.running_mean) && fabs(r.running_mean - s->running_reward) > 1e-6)))
            wrong = "does not match the checkpoint";
        if (wrong) {
            if (bad++ == 0)
                snprintf(why, sizeof(why), "line %ld, '%s': %s", lineno, excerpt(line, ex, sizeof(ex)), wrong);
            continue;
        }
        if (r.iteration != prev + 1 && !first_missing) first_missing = prev + 1;
        prev = r.iteration;
        prev_episodes = r.episodes;
        kept++;
        fprintf(out, "%s\n", line);
    }
    free(line);
    bool read_error = ferror(in);
    fclose(in);
    if (prev < N && !first_missing) first_missing = prev + 1;
    if (lineno > 0 && !has_header && bad++ == 0) snprintf(why, sizeof(why), "line 1: not the header");
    if (fclose(out) != 0 || read_error) {
        snprintf(err, errlen, "cannot rewrite %s: %s", path, strerror(errno));
        file_replace_abort(&fr);
        return -1;
    }
    if (!bad && !dropped && has_header) {
        file_replace_abort(&fr);
    } // nothing to change
    else {
        char damaged[CKPT_PATH_MAX + 32] = "";
        if (bad) { // nothing is lost: the old file stays beside the new one
            struct stat st;
            snprintf(damaged, sizeof(damaged), "%s.damaged", path);
            for (int k = 2; k < 1000 && stat(damaged, &st) == 0; k++)
                snprintf(damaged, sizeof(damaged), "%s.damaged.%d", path, k);
            // a hard link: metrics.csv exists at every moment, whenever a kill comes
            if (link(path, damaged) && rename(path, damaged)) {
                snprintf(err, errlen, "cannot keep %s as %s: %s", path, damaged, strerror(errno));
                file_replace_abort(&fr);
                return -1;
            }
        }
        if (file_replace_commit(&fr, err, errlen)) return -1;
        if (bad) {
            char missing[64] = "";
            if (kept < N) snprintf(missing, sizeof(missing), ", the first missing iteration %lld", first_missing);
            say_warning("%s did not agree with the checkpoint at iteration %lld (%ld bad line%s, "
                        "the first %s): kept its %lld good rows of %lld%s; the old file is %s",
                path, N, bad, bad > 1 ? "s" : "", why, kept, N, missing, damaged);
            return 0;
        }
    }
    if (kept < N)
        say_warning("%s lacks the rows of %lld of the %lld iterations up to the checkpoint "
                    "(from iteration %lld): they are lost",
            path, N - kept, N, first_missing);
    return 0;
}

int metrics_check(const char *csv, char *err, size_t errlen) {
    FILE *f = file_fopen_read(csv, err, errlen); // a FIFO or a device: refused, never waited on
    if (!f) return errno == ENOENT ? 0 : -1;
    char *line = NULL, ex[48];
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    long long prev = 0;
    int rc = 0, extra = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] != '\n') break; // a row being written
        line[len - 1] = 0;
        MetricsRow r;
        if (lineno == 1) { // the common columns, then the learner's
            size_t hl = strlen(METRICS_HEADER);
            if (strncmp(line, METRICS_HEADER, hl) || (line[hl] && line[hl] != ',')) {
                snprintf(err, errlen, "%s line 1: not the metrics.csv header", csv);
                rc = -1;
            }
            for (const char *c = line + hl; *c; c++) extra += *c == ',';
            if (extra > LEARNER_METRICS_MAX) {
                snprintf(err, errlen, "%s line 1: not the metrics.csv header", csv);
                rc = -1;
            }
        } else if (strlen(line) != (size_t)len - 1 || !metrics_row(line, extra, &r)) {
            snprintf(err, errlen, "%s line %ld: not a metrics row ('%s')", csv, lineno, excerpt(line, ex, sizeof(ex)));
            rc = -1;
        } else if (r.iteration <= prev) {
            snprintf(err, errlen, "%s line %ld: iteration %lld after %lld (rows out of order)", csv, lineno,
                r.iteration, prev);
            rc = -1;
        } else
            prev = r.iteration;
    }
    free(line);
    fclose(f);
    return rc;
}
