// file.c: the atomic file write and the guarded open to read (file.h).
#include "file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int file_write_all(int fd, const uint8_t *b, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, b, n > (1u << 30) ? (1u << 30) : n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

const char *file_kind(unsigned mode) {
    mode_t m = (mode_t)mode;
    return S_ISLNK(m)              ? "a symbolic link"
        : S_ISDIR(m)               ? "a directory"
        : S_ISREG(m)               ? "a regular file"
        : S_ISFIFO(m)              ? "a FIFO"
        : S_ISCHR(m) || S_ISBLK(m) ? "a device"
        : S_ISSOCK(m)              ? "a socket"
                                   : "not a plain file";
}

// ----------------------------------------------------------------------------
// writing: a temporary file of our own beside path, then rename

// fsync of the directory that holds path: makes a rename in it durable. 0, or -1 with errno set.
static int sync_dir(const char *path) {
    char *buf = strdup(path);
    if (!buf) return -1;
    int fd = open(dirname(buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = errno;
    free(buf);
    errno = e;
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

// path may be replaced: it is absent or a regular file. A rename over anything else would
// replace a device (/dev/null, as root), a FIFO another program reads, or a symlink the user
// meant to write through.
static int check_target(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISREG(st.st_mode)) return 0;
        snprintf(err, errlen, "cannot write %s: not a regular file (%s)", path, file_kind(st.st_mode));
        return -1;
    }
    if (errno == ENOENT) return 0;
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
}

// 32 bits no other writer predicts: the kernel's random numbers, or the clock and pid where
// those are not to be had.
static unsigned tmp_tag(void) {
    unsigned x;
    if (getrandom(&x, sizeof x, GRND_NONBLOCK) == (ssize_t)sizeof x) return x;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned)t.tv_nsec * 2654435761u ^ (unsigned)getpid() ^ (unsigned)t.tv_sec;
}

void file_tmp_name(char *buf, size_t n, const char *path) {
    snprintf(buf, n, "%s.p%ld.%08x.tmp", path, (long)getpid(), tmp_tag());
}

// ----------------------------------------------------------------------------
// the temporaries a signal removes: a fixed table the handler reads without locks

enum { TMP_SLOTS = 16 };
static char tmp_slot_path[TMP_SLOTS][FILE_PATH_MAX + FILE_TMP_SUFFIX_LEN];
static atomic_int tmp_slot_used[TMP_SLOTS]; // 0 free, 1 being filled or emptied, 2 names a temporary

static int slot_take(const char *tmp) {
    for (int i = 0; i < TMP_SLOTS; i++) {
        int free_ = 0;
        if (atomic_compare_exchange_strong(&tmp_slot_used[i], &free_, 1)) {
            snprintf(tmp_slot_path[i], sizeof(tmp_slot_path[i]), "%s", tmp);
            atomic_store(&tmp_slot_used[i], 2);
            return i;
        }
    }
    return -1; // more writes at once than slots: that one is left to the next sweep
}

static void slot_free(FileReplace *r) {
    if (r->slot >= 0) atomic_store(&tmp_slot_used[r->slot], 0);
    r->slot = -1;
}

static void (*volatile fatal_hook)(void); // file_at_fatal_signal's

void file_at_fatal_signal(void (*cleanup)(void)) { fatal_hook = cleanup; }

static void on_fatal_signal(int sig) {
    void (*hook)(void) = fatal_hook;
    if (hook) hook();
    for (int i = 0; i < TMP_SLOTS; i++)
        if (atomic_load(&tmp_slot_used[i]) == 2) unlink(tmp_slot_path[i]); // async-signal-safe
    signal(sig, SIG_DFL);
    raise(sig); // dies of it, as it would have: the parent sees the signal
}

void file_remove_tmps_on_signals(void) {
    struct sigaction sa = { 0 };
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (int i = 0; i < 3; i++) sigaddset(&sa.sa_mask, sigs[i]);
    for (int i = 0; i < 3; i++) {
        struct sigaction old;
        // a signal the caller ignores (SIGHUP under nohup) stays ignored
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

// ----------------------------------------------------------------------------
// temporaries of writers that died

long file_tmp_of(const char *name, const char *base) {
    size_t b = strlen(base);
    if (strncmp(name, base, b) || name[b] != '.') return -1;
    const char *p = name + b + 1;
    long pid = 0;
    if (*p == 'p') { // .p<pid>.
        if (!isdigit((unsigned char)*++p) || *p == '0') return -1;
        for (; isdigit((unsigned char)*p); p++) {
            if (pid > 99999999) return -1;
            pid = pid * 10 + (*p - '0');
        }
        if (*p++ != '.') return -1;
    }
    for (int i = 0; i < 8; i++)
        if (!p[i] || !strchr("0123456789abcdef", p[i])) return -1;
    return strcmp(p + 8, ".tmp") ? -1 : pid;
}

int file_is_tmp_of(const char *name, const char *base) { return file_tmp_of(name, base) >= 0; }

// Removes path's temporaries whose writer's pid names no living process. A process of another
// pid namespace or host (a shared file system) may look dead from here: a writer of the same
// OUT on another machine at the same time is not a case pongrl serves. Nothing is said: a
// temporary that cannot be removed does no harm.
static void sweep_dead_tmps(const char *path) {
    char *d = strdup(path), *f = strdup(path);
    DIR *dir = d && f ? opendir(dirname(d)) : NULL;
    if (dir) {
        const char *base = basename(f);
        int dfd = dirfd(dir);
        for (struct dirent *e; (e = readdir(dir));) {
            long pid = file_tmp_of(e->d_name, base);
            if (pid > 0 && pid != getpid() && kill((pid_t)pid, 0) && errno == ESRCH) unlinkat(dfd, e->d_name, 0);
        }
        closedir(dir);
    }
    free(d);
    free(f);
}

// ----------------------------------------------------------------------------
// writing: a temporary file of our own beside path, then rename

// Creates path.p<pid>.<8 hex digits>.tmp, ours alone: O_EXCL never opens what exists,
// O_NOFOLLOW never writes through a symlink planted under the name.
static int create_tmp(FileReplace *r, const char *path, char *err, size_t errlen) {
    r->fd = r->slot = -1;
    if (strlen(path) >= sizeof(r->path)) {
        snprintf(err, errlen, "cannot write %.64s...: path too long", path);
        return -1;
    }
    snprintf(r->path, sizeof(r->path), "%s", path);
    if (check_target(path, err, errlen)) return -1;
    sweep_dead_tmps(path);
    for (int tries = 0; tries < 64; tries++) {
        file_tmp_name(r->tmp, sizeof(r->tmp), path);
        int fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) {
            r->fd = fd;
            r->slot = slot_take(r->tmp);
            return 0;
        }
        if (errno != EEXIST) break;
    }
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
}

int file_replace_begin(FileReplace *r, const char *path, char *err, size_t errlen) {
    return create_tmp(r, path, err, errlen);
}

int file_replace_fd(const FileReplace *r) { return r->fd; }

// Whether the name tmp still is the file open as fd (a regular file, the same inode): another
// program may have swapped the name for a symlink or a file of its own while we wrote.
static int tmp_is_ours(const FileReplace *r) {
    struct stat a, b;
    return fstat(r->fd, &a) == 0 && lstat(r->tmp, &b) == 0 && S_ISREG(b.st_mode) && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino;
}

// fsync of tmp, the checks, rename, fsync of the directory; tmp's descriptor is closed in any case.
static int finish(FileReplace *r, char *err, size_t errlen) {
    const char *step = "sync";
    if (fsync(r->fd)) goto fail;
    if (!tmp_is_ours(r)) {
        // not ours to remove either: what stands under the name now is another program's
        snprintf(err, errlen, "cannot write %s: its temporary %s was replaced by another program", r->path, r->tmp);
        close(r->fd);
        r->fd = -1;
        slot_free(r);
        return -1;
    }
    // what path is may have changed while the contents were made (a recording takes minutes)
    if (check_target(r->path, err, errlen)) {
        unlink(r->tmp);
        close(r->fd);
        r->fd = -1;
        slot_free(r);
        return -1;
    }
    step = "rename";
    if (rename(r->tmp, r->path)) goto fail;
    slot_free(r);
    // a swap in the instant between the check and the rename put another file at path: take it
    // out again (it is a name, not the file it may point to), and say so
    struct stat a, b;
    if (fstat(r->fd, &a) || lstat(r->path, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        if (!S_ISREG(b.st_mode)) unlink(r->path);
        close(r->fd);
        r->fd = -1;
        snprintf(err, errlen, "cannot write %s: its temporary %s was replaced by another program", r->path, r->tmp);
        return -1;
    }
    close(r->fd);
    r->fd = -1;
    // the rename is durable once the directory is; a failure here loses nothing already on disk
    if (sync_dir(r->path)) {
        snprintf(err, errlen, "cannot sync the directory of %s: %s", r->path, strerror(errno));
        return -1;
    }
    return 0;
fail:
    snprintf(err, errlen, "cannot %s %s: %s", step, r->tmp, strerror(errno));
    file_replace_abort(r); // the previous file was never touched
    return -1;
}

int file_replace_commit(FileReplace *r, char *err, size_t errlen) {
    if (r->fd < 0) {
        snprintf(err, errlen, "cannot write %s: its temporary is closed", r->path);
        return -1;
    }
    return finish(r, err, errlen);
}

FILE *file_replace_fopen(FileReplace *r, char *err, size_t errlen) {
    int fd = r->fd < 0 ? -1 : fcntl(r->fd, F_DUPFD_CLOEXEC, 3);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", r->tmp, strerror(errno));
        if (fd >= 0) close(fd);
    }
    return f;
}

void file_replace_abort(FileReplace *r) {
    if (r->fd >= 0 && tmp_is_ours(r)) unlink(r->tmp);
    if (r->fd >= 0) close(r->fd);
    r->fd = -1;
    slot_free(r);
}

int file_replace(const char *path, const void *b, size_t n, char *err, size_t errlen) {
    FileReplace r;
    if (create_tmp(&r, path, err, errlen)) return -1;
    if (file_write_all(r.fd, b, n)) {
        snprintf(err, errlen, "cannot write %s: %s", r.tmp, strerror(errno));
        file_replace_abort(&r);
        return -1;
    }
    return finish(&r, err, errlen);
}

// ----------------------------------------------------------------------------
// reading: a regular file, or a refusal that never waits

// fd is a regular file: then blocking again; else closed, with err and errno set.
static int keep_regular(int fd, const char *path, char *err, size_t errlen) {
    struct stat st;
    int e;
    if (fstat(fd, &st)) goto fail;
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0) return fd;
fail:
    e = errno;
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    close(fd);
    errno = e;
    return -1;
}

static int open_guarded(const char *path, int flags, char *err, size_t errlen) {
    // O_NONBLOCK: opening a FIFO returns at once (or fails, to write) instead of waiting for
    // the other end; O_NOFOLLOW where we create, so that a symlink never picks what is written
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP && (flags & O_NOFOLLOW))
            snprintf(err, errlen, "%s: not a regular file (a symbolic link)", path);
        else if (e == ENXIO)
            snprintf(err, errlen, "%s: not a regular file (a FIFO or a device)", path);
        else
            snprintf(err, errlen, "%s: %s", path, strerror(e));
        errno = e == ELOOP || e == ENXIO ? EINVAL : e;
        return -1;
    }
    return keep_regular(fd, path, err, errlen);
}

int file_open_read(const char *path, char *err, size_t errlen) { return open_guarded(path, O_RDONLY, err, errlen); }

static FILE *fopen_guarded(const char *path, int flags, const char *mode, char *err, size_t errlen) {
    int fd = open_guarded(path, flags, err, errlen);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, mode);
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        close(fd);
        errno = e;
    }
    return f;
}

FILE *file_fopen_read(const char *path, char *err, size_t errlen) {
    return fopen_guarded(path, O_RDONLY, "rb", err, errlen);
}

FILE *file_fopen_append(const char *path, char *err, size_t errlen) {
    FILE *f = fopen_guarded(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, "ab", err, errlen);
    // at the end, as fopen(path, "a") is: ftell then says whether the file was empty
    if (f && fseeko(f, 0, SEEK_END)) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        fclose(f);
        errno = e;
        return NULL;
    }
    return f;
}

const char *file_path_short(const char *path, char *buf, size_t max) {
    size_t n = strlen(path);
    if (n <= max || max < 16) return path;
    size_t head = (max - 3) / 2, tail = max - 3 - head;
    snprintf(buf, max + 1, "%.*s...%s", (int)head, path, path + n - tail);
    return buf;
}
