// checkpoint_dir.c: a run directory's checkpoints (checkpoint.h): their names, saving with
// rotation, the scan for temporaries, and the newest that loads.
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/file.h"

#define CKPT_PREFIX "ckpt-"
#define CKPT_SUFFIX ".bin"
#define CKPT_DIGITS 8

// ----------------------------------------------------------------------------
// a run directory's checkpoints

// "ckpt-<digits>.bin", at least CKPT_DIGITS of them (more once an iteration needs them), and
// its iteration; not one that no run can reach.
static bool ckpt_name_iteration(const char *name, int64_t *iteration) {
    size_t n = strlen(name), pl = strlen(CKPT_PREFIX), sl = strlen(CKPT_SUFFIX);
    if (n < pl + CKPT_DIGITS + sl || strncmp(name, CKPT_PREFIX, pl) || strcmp(name + n - sl, CKPT_SUFFIX)) return false;
    int64_t v = 0;
    for (size_t i = pl; i < n - sl; i++) {
        if (name[i] < '0' || name[i] > '9') return false;
        v = v * 10 + (name[i] - '0');
        if (v > CKPT_COUNTER_MAX) return false;
    }
    *iteration = v;
    return true;
}

static bool is_tmp_name(const char *name) {
    size_t n = strlen(name);
    return !strncmp(name, CKPT_PREFIX, strlen(CKPT_PREFIX)) && n > 4 && !strcmp(name + n - 4, ".tmp");
}

// Newest first: by iteration (ckpt-100000000 after ckpt-99999999, whatever their widths), then
// by name, so that the order is one.
static int cmp_desc(const void *a, const void *b) {
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int64_t i, j;
    ckpt_name_iteration(x, &i);
    ckpt_name_iteration(y, &j);
    if (i != j) return i < j ? 1 : -1;
    return strcmp(y, x);
}

// The checkpoint file names of dir, newest first.
static int list_ckpts(const char *dir, char ***names, int *count) {
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t it;
        if (!ckpt_name_iteration(e->d_name, &it)) continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            char **q = realloc(*names, sizeof(char *) * (size_t)cap);
            if (!q) break;
            *names = q;
        }
        if (!((*names)[*count] = strdup(e->d_name))) break;
        (*count)++;
    }
    closedir(d);
    if (*count) qsort(*names, (size_t)*count, sizeof(char *), cmp_desc);
    return 0;
}

static void free_names(char **names, int count) {
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

static int prune(const char *cdir, int keep) { // cdir: shorter than RUN_DIR_MAX + 16
    char **names;
    int count;
    if (list_ckpts(cdir, &names, &count)) return -1;
    char path[CKPT_PATH_MAX];
    for (int i = keep; i < count; i++) {
        snprintf(path, sizeof(path), "%s/%s", cdir, names[i]);
        unlink(path);
    }
    free_names(names, count);
    // temporaries a killed run left behind (this process writes one at a time, and not now)
    DIR *d = opendir(cdir);
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (is_tmp_name(e->d_name)) {
            snprintf(path, sizeof(path), "%s/%s", cdir, e->d_name);
            unlink(path);
        }
    closedir(d);
    return 0;
}

void checkpoint_path(const char *run_dir, int64_t iteration, char *out, size_t outlen) {
    snprintf(
        out, outlen, "%s/checkpoints/" CKPT_PREFIX "%0*lld" CKPT_SUFFIX, run_dir, CKPT_DIGITS, (long long)iteration);
}

int checkpoint_save(
    const char *run_dir, const TrainState *s, int keep, char *path_out, size_t pathlen, char *err, size_t errlen) {
    if (strlen(run_dir) >= RUN_DIR_MAX) {
        snprintf(err, errlen, "run directory path too long");
        return -1;
    }
    char cdir[RUN_DIR_MAX + 16], path[CKPT_PATH_MAX];
    snprintf(cdir, sizeof(cdir), "%s/checkpoints", run_dir);
    if (mkdir(cdir, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", cdir, strerror(errno));
        return -1;
    }
    checkpoint_path(run_dir, s->iteration, path, sizeof(path));
    if (checkpoint_write(path, s, 0, err, errlen)) return -1;
    if (path_out) snprintf(path_out, pathlen, "%s", path);
    prune(cdir, keep < 1 ? 1 : keep); // best effort: a stale file costs only disk
    return 0;
}

void checkpoint_scan(const char *run_dir, int *checkpoints, int *temporaries) {
    *checkpoints = *temporaries = 0;
    char cdir[RUN_DIR_MAX + 16];
    snprintf(cdir, sizeof(cdir), "%s/checkpoints", run_dir);
    DIR *d = opendir(cdir);
    if (!d) return;
    struct dirent *e;
    const size_t pl = strlen(CKPT_PREFIX), sl = strlen(CKPT_SUFFIX);
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, CKPT_PREFIX, pl) || n < pl + 4) continue;
        if (is_tmp_name(e->d_name))
            (*temporaries)++;
        else if (!strcmp(e->d_name + n - sl, CKPT_SUFFIX))
            (*checkpoints)++;
    }
    closedir(d);
}

int checkpoint_load_latest(
    const char *dir, TrainState *s, char *path_out, size_t pathlen, FILE *warn, char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    if (strlen(dir) >= RUN_DIR_MAX) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    char cdir[RUN_DIR_MAX + 16];
    snprintf(cdir, sizeof(cdir), "%s/checkpoints", dir);
    struct stat st;
    if (stat(cdir, &st) || !S_ISDIR(st.st_mode)) snprintf(cdir, sizeof(cdir), "%s", dir);
    char **names;
    int count;
    if (list_ckpts(cdir, &names, &count)) {
        snprintf(err, errlen, "%s: %s", cdir, strerror(errno));
        return -1;
    }
    if (count == 0) {
        snprintf(err, errlen, "no checkpoint in %s", cdir);
        free_names(names, count);
        return -1;
    }
    char path[CKPT_PATH_MAX], why[512] = "", first_why[512] = "";
    int rc = -1, skipped = 0;
    for (int i = 0; i < count && rc; i++) {
        snprintf(path, sizeof(path), "%s/%s", cdir, names[i]);
        if (checkpoint_load(path, s, NULL, why, sizeof(why)) == 0)
            rc = 0;
        else if (skipped++ == 0)
            snprintf(first_why, sizeof(first_why), "%s", why);
    }
    // one line either way: the error if none loads, else a warning naming what was passed over
    if (rc)
        snprintf(err, errlen, "no usable checkpoint in %s (the newest, %s)", cdir, first_why);
    else {
        if (skipped && warn)
            fprintf(warn, "pongrl: warning: using %s; %d newer checkpoint%s did not load (the newest, %s)\n", path,
                skipped, skipped > 1 ? "s" : "", first_why);
        if (path_out) snprintf(path_out, pathlen, "%s", path);
    }
    free_names(names, count);
    return rc;
}
