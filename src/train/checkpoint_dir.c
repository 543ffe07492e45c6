// checkpoint_dir.c: a run directory's checkpoints (checkpoint.h): their names, saving with
// rotation, the scan for temporaries, and the newest that loads.
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/file.h"
#include "../util/say.h"

#define CKPT_PREFIX     "ckpt-"
#define CKPT_SUFFIX     ".bin"
#define CKPT_DIGITS     8
#define CKPT_DIGITS_MAX 19 // an int64's: what builds before the bound on iterations could write

// ----------------------------------------------------------------------------
// a run directory's checkpoints: a name is an index, the file says its iteration

// Whether name is one of pongrl's checkpoint names, "ckpt-" + an iteration + ".bin", the
// iteration zero-padded to CKPT_DIGITS digits and never past them (one name an iteration), and
// the iteration it stands for. Names past the bound are pongrl's too (older builds wrote them):
// no run's, never loaded, pruned. Only such names are ever read or removed.
static bool ckpt_name_index(const char *name, int64_t *index) {
    const size_t n = strlen(name), pl = strlen(CKPT_PREFIX), sl = strlen(CKPT_SUFFIX);
    if (n < pl + CKPT_DIGITS + sl || n > pl + CKPT_DIGITS_MAX + sl || strncmp(name, CKPT_PREFIX, pl) ||
        strcmp(name + n - sl, CKPT_SUFFIX) || (n > pl + CKPT_DIGITS + sl && name[pl] == '0'))
        return false;
    uint64_t v = 0; // 19 digits fit
    for (size_t i = pl; i < n - sl; i++) {
        if (name[i] < '0' || name[i] > '9') return false;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX) return false;
    *index = (int64_t)v;
    return true;
}

// Whether name is the temporary file of a checkpoint's write (file.h: NAME.p<pid>.<8 hex
// digits>.tmp, or NAME.<8 hex digits>.tmp as earlier versions named them).
static bool ckpt_tmp_name(const char *name) {
    const char *dot = strstr(name, ".bin.");
    char base[64];
    int64_t index;
    if (!dot || (size_t)(dot - name) + 4 >= sizeof(base)) return false;
    memcpy(base, name, (size_t)(dot - name) + 4);
    base[dot - name + 4] = 0;
    return ckpt_name_index(base, &index) && file_is_tmp_of(name, base);
}

typedef struct {
    char *name;
    int64_t index; // what the name says; the file's own header says the iteration
} CkptName;

static int cmp_desc(const void *a, const void *b) { // newest name first; one name an index
    const int64_t i = ((const CkptName *)a)->index, j = ((const CkptName *)b)->index;
    return i < j ? 1 : i > j ? -1 : 0;
}

static void free_names(CkptName *names, int count) {
    for (int i = 0; i < count; i++) free(names[i].name);
    free(names);
}

// The checkpoint names of dir, newest first. 0, or -1 (errno set).
static int list_ckpts(const char *dir, CkptName **names, int *count) {
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    int cap = 0, rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t index;
        if (!ckpt_name_index(e->d_name, &index)) continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            CkptName *q = realloc(*names, sizeof(CkptName) * (size_t)cap);
            if (!q) {
                rc = -1;
                break;
            }
            *names = q;
        }
        if (!((*names)[*count].name = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        (*names)[(*count)++].index = index;
    }
    closedir(d);
    if (rc) { // a partial list would prune what it missed, or load an older run
        free_names(*names, *count);
        *names = NULL;
        *count = 0;
        errno = ENOMEM;
        return -1;
    }
    if (*count) qsort(*names, (size_t)*count, sizeof(CkptName), cmp_desc);
    return 0;
}

// A warning on f, as say_warning writes it.
static void say_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_line(FILE *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say_vline(f, "pongrl: warning: ", "", fmt, ap);
    va_end(ap);
}

static bool path_in(char *out, size_t n, const char *dir, const char *name) {
    return snprintf(out, n, "%s/%s", dir, name) < (int)n;
}

// The temporaries that kills left in cdir (each write makes a new name, and this process,
// the lock's holder, writes none now).
static void sweep_tmps(const char *cdir) {
    DIR *d = opendir(cdir);
    if (!d) return;
    struct dirent *e;
    char path[CKPT_PATH_MAX];
    while ((e = readdir(d))) {
        struct stat st;
        if (ckpt_tmp_name(e->d_name) && path_in(path, sizeof(path), cdir, e->d_name) && lstat(path, &st) == 0 &&
            S_ISREG(st.st_mode))
            unlink(path);
    }
    closedir(d);
}

// Keeps the newest `keep` checkpoints whose header says the iteration of their name; removes
// the others: older ones, and those no resume would take (another iteration than their name's,
// not a checkpoint, unreadable), so that --keep leaves nothing behind. A file that could not be
// opened for want of descriptors or memory is left for the next time.
static int prune(const char *cdir, int keep) { // cdir: shorter than RUN_DIR_MAX + 16
    CkptName *names;
    int count;
    if (list_ckpts(cdir, &names, &count)) return -1;
    char path[CKPT_PATH_MAX], why[CKPT_PATH_MAX + 128];
    for (int i = 0, kept = 0; i < count; i++) {
        if (!path_in(path, sizeof(path), cdir, names[i].name)) continue;
        if (kept < keep) {
            int64_t it;
            const int rc = checkpoint_peek_iteration(path, &it, why, sizeof(why));
            if (rc == 0 && it == names[i].index) {
                kept++;
                continue;
            }
            if (rc && (errno == EMFILE || errno == ENFILE || errno == ENOMEM)) continue;
        }
        unlink(path);
    }
    free_names(names, count);
    sweep_tmps(cdir);
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
    if (snprintf(cdir, sizeof(cdir), "%s/checkpoints", run_dir) >= (int)sizeof(cdir)) return;
    DIR *d = opendir(cdir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t index;
        if (ckpt_name_index(e->d_name, &index))
            (*checkpoints)++;
        else if (ckpt_tmp_name(e->d_name))
            (*temporaries)++;
    }
    closedir(d);
}

void checkpoint_sweep_tmps(const char *run_dir) {
    char cdir[RUN_DIR_MAX + 16];
    if (snprintf(cdir, sizeof(cdir), "%s/checkpoints", run_dir) < (int)sizeof(cdir)) sweep_tmps(cdir);
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
    CkptName *names;
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
    // newest name first; a file is used only where it holds the iteration its name says
    char path[CKPT_PATH_MAX], why[CKPT_PATH_MAX + 256] = "", first_why[CKPT_PATH_MAX + 256] = "",
                                                  first_fail[CKPT_PATH_MAX + 256] = "";
    int rc = -1, failed = 0, skipped = 0;
    for (int i = 0; i < count && rc; i++) {
        if (!path_in(path, sizeof(path), cdir, names[i].name)) continue;
        if (checkpoint_load(path, s, NULL, why, sizeof(why)) == 0) {
            if (s->iteration == names[i].index) {
                rc = 0;
                break;
            }
            snprintf(why, sizeof(why), "%s holds iteration %lld, its name says %lld: not used (renamed or copied?)",
                path, (long long)s->iteration, (long long)names[i].index);
            if (warn) say_line(warn, "%s", why);
            train_state_free(s);
            memset(s, 0, sizeof(*s));
        } else if (failed++ == 0)
            snprintf(first_fail, sizeof(first_fail), "%s", why);
        if (skipped++ == 0) snprintf(first_why, sizeof(first_why), "%s", why);
    }
    // one line either way: the error if none is usable, else a warning naming what did not load
    // (each one whose name lies has had its own)
    if (rc)
        snprintf(err, errlen, "no usable checkpoint in %s (the newest, %s)", cdir, first_why);
    else {
        if (failed && warn)
            say_line(warn, "using %s; %d newer checkpoint%s did not load (the newest, %s)", path, failed,
                failed > 1 ? "s" : "", first_fail);
        if (path_out) snprintf(path_out, pathlen, "%s", path);
    }
    free_names(names, count);
    return rc;
}
