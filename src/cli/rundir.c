// rundir.c: the run directory itself: its lock and config.txt.
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../train/checkpoint.h"
#include "../util/file.h"
#include "../util/say.h"

// ----------------------------------------------------------------------------
// config.txt: for people; the checkpoint is what a resume reads

int rundir_write_config(const TrainState *s, char *err, size_t errlen) {
    const TrainConfig *c = &s->cfg;
    char path[CKPT_PATH_MAX];
    snprintf(path, sizeof(path), "%s/config.txt", c->run_dir);
    FileReplace fr;
    if (file_replace_begin(&fr, path, err, errlen)) return -1;
    FILE *f = file_replace_fopen(&fr, err, errlen);
    if (!f) {
        file_replace_abort(&fr);
        return -1;
    }
    fprintf(f, "# pongrl run configuration (written by pongrl train; the checkpoints hold the same)\n");
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        char v[TRAIN_STR_MAX + 32];
        if (train_setting_applies(row, c)) fprintf(f, "%s = %s\n", row->name, train_setting_text(row, c, v, sizeof(v)));
    }
    fprintf(f,
        "# where the run stood when this file was written\n"
        "iteration = %lld\nepisodes = %lld\nagent_steps = %lld\nframes = %lld\nrunning_mean = %.6f\n"
        "wall_s = %.3f\n",
        (long long)s->iteration, (long long)s->episodes, (long long)s->agent_steps, (long long)s->frames,
        s->running_reward, s->wall_s);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", fr.tmp, strerror(errno));
        file_replace_abort(&fr);
        return -1;
    }
    return file_replace_commit(&fr, err, errlen);
}

// ----------------------------------------------------------------------------
// one owner at a time

static bool is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *rundir_owner(const char *dir, char *out, size_t outlen) {
    char real[PATH_MAX], probe[PATH_MAX + 32];
    snprintf(probe, sizeof(probe), "%s/checkpoints", dir);
    if (is_dir(probe) || !realpath(dir, real)) return dir; // a run directory itself, or nothing
    char *slash = strrchr(real, '/');
    if (!slash || strcmp(slash + 1, "checkpoints") || slash == real) return dir;
    *slash = 0; // the folder above checkpoints/
    if (strlen(real) >= outlen) return dir;
    static const char *const marks[] = { "config.txt", "metrics.csv", ".lock" };
    for (int i = 0; i < 3; i++) {
        struct stat st;
        snprintf(probe, sizeof(probe), "%s/%s", real, marks[i]);
        if (stat(probe, &st) == 0) {
            snprintf(out, outlen, "%s", real);
            return out;
        }
    }
    return dir;
}

// The temporaries a kill left of the run's own files (config.txt, metrics.csv, curve.png;
// checkpoint.c sweeps its own): each write makes a new name, so none is ever written over.
// Only the lock's holder may: a live owner's temporaries are still being written.
static void sweep_tmps(const char *run_dir) {
    static const char *const files[] = { "config.txt", "metrics.csv", "curve.png" };
    DIR *d = opendir(run_dir);
    if (!d) return;
    struct dirent *e;
    char path[CKPT_PATH_MAX];
    while ((e = readdir(d)))
        for (int i = 0; i < 3; i++)
            if (file_is_tmp_of(e->d_name, files[i]) &&
                snprintf(path, sizeof(path), "%s/%s", run_dir, e->d_name) < (int)sizeof(path)) {
                struct stat st;
                if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
            }
    closedir(d);
}

int rundir_lock(const char *run_dir, char *err, size_t errlen) {
    char path[CKPT_PATH_MAX];
    snprintf(path, sizeof(path), "%s/.lock", run_dir);
    // Never created nor opened through a symlink (that would make its target, wherever it points),
    // nor anything but a regular file; never closed: a POSIX lock lasts while the file is open.
    struct stat st = { 0 };
    int fd = -1;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode)) { // absent or a file
        fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
        if (fd < 0 && errno == ELOOP)
            st.st_mode = S_IFLNK; // planted since the look
        else if (fd < 0) {
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
            return -1;
        } else if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) { // replaced since the look
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot lock %s: not a regular file (%s): remove it, pongrl makes its own", path,
            S_ISLNK(st.st_mode)        ? "a symbolic link"
                : S_ISDIR(st.st_mode)  ? "a directory"
                : S_ISFIFO(st.st_mode) ? "a FIFO"
                                       : "a device or socket");
        return -1;
    }
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    // an owner killed a moment ago (say, the ranks of a killed mpirun) may still be exiting
    for (int tries = 0; tries < 50; tries++) {
        if (fcntl(fd, F_SETLK, &fl) == 0) {
            sweep_tmps(run_dir);
            return 0;
        }
        if (errno != EACCES && errno != EAGAIN) {
            say_warning("cannot lock %s (%s): nothing keeps a second pongrl out of this run", path, strerror(errno));
            return 0;
        }
        struct timespec nap = { 0, 20 * 1000 * 1000 };
        nanosleep(&nap, NULL);
    }
    struct flock who = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    char pid[32] = "";
    if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0)
        snprintf(pid, sizeof(pid), " (pid %d)", (int)who.l_pid);
    snprintf(err, errlen,
        "%s is in use by another pongrl%s: one process at a time may write a run; wait for it "
        "to end or stop it first",
        run_dir, pid);
    close(fd);
    return -1;
}

// ----------------------------------------------------------------------------
// no run inside another

// The first line pongrl writes in config.txt (rundir_write_config).
#define CONFIG_FIRST_LINE "# pongrl run configuration"

// Whether dir holds a pongrl run: its config.txt, a checkpoint's name (or a checkpoint write's
// temporary) in its checkpoints/, or a lock that a live process holds on its .lock. Nothing in
// it is followed, waited on or written.
static bool holds_run(const char *dir) {
    char p[PATH_MAX + 32], head[sizeof(CONFIG_FIRST_LINE)];
    snprintf(p, sizeof(p), "%s/config.txt", dir);
    int fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        struct stat st;
        const bool ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            read(fd, head, sizeof(head) - 1) == (ssize_t)sizeof(head) - 1 &&
            !memcmp(head, CONFIG_FIRST_LINE, sizeof(head) - 1);
        close(fd);
        if (ours) return true;
    }
    int ckpts = 0, tmps = 0;
    if (strlen(dir) < RUN_DIR_MAX) checkpoint_scan(dir, &ckpts, &tmps);
    if (ckpts || tmps) return true;
    snprintf(p, sizeof(p), "%s/.lock", dir);
    if ((fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) return false;
    struct flock who = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    const bool held = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK;
    close(fd);
    return held;
}

// The nearest directory at or above path that exists, resolved (in real, PATH_MAX bytes), and
// whether it is path itself.
static bool nearest_existing(const char *path, char *real, bool *itself) {
    char p[PATH_MAX];
    if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p)) return false;
    *itself = true;
    for (;;) {
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/') p[--n] = 0;
        if (realpath(p, real)) return true;
        if (errno != ENOENT) return false;
        *itself = false;
        char *slash = strrchr(p, '/');
        if (!slash)
            snprintf(p, sizeof(p), ".");
        else if (slash == p)
            p[1] = 0;
        else
            *slash = 0;
    }
}

int rundir_outside_runs(const char *dir, bool resume, char *err, size_t errlen) {
    char real[PATH_MAX];
    bool itself;
    if (!nearest_existing(dir, real, &itself)) return 0; // what cannot be resolved fails where it is made
    for (bool first = true;; first = false) {
        if (!(first && itself) && holds_run(real)) {
            if (resume)
                snprintf(err, errlen,
                    "cannot resume %s: it lies inside the run %s, and a run may not hold another (move it "
                    "out of that run first)",
                    dir, real);
            else
                snprintf(err, errlen,
                    "--run-dir %s lies inside the run %s: a run may not hold another (its checkpoints, "
                    "lock and files would be confused); choose a directory outside it",
                    dir, real);
            return -1;
        }
        char *slash = strrchr(real, '/');
        if (!slash || !slash[1]) return 0; // "/" checked
        slash[slash == real ? 1 : 0] = 0;
    }
}
