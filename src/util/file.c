// file.c: the atomic file write and the guarded open to read (file.h).
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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

static const char *kind_of(mode_t m) {
    return S_ISLNK(m)              ? "a symbolic link"
        : S_ISDIR(m)               ? "a directory"
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
        snprintf(err, errlen, "cannot write %s: not a regular file (%s)", path, kind_of(st.st_mode));
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

// Creates path.<8 hex digits>.tmp, ours alone: O_EXCL never opens what exists, O_NOFOLLOW never
// writes through a symlink planted under the name.
static int create_tmp(FileReplace *r, const char *path, char *err, size_t errlen) {
    if (strlen(path) >= sizeof(r->path)) {
        snprintf(err, errlen, "cannot write %.64s...: path too long", path);
        return -1;
    }
    snprintf(r->path, sizeof(r->path), "%s", path);
    if (check_target(path, err, errlen)) return -1;
    for (int tries = 0; tries < 64; tries++) {
        snprintf(r->tmp, sizeof(r->tmp), "%s.%08x.tmp", path, tmp_tag());
        int fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) return fd;
        if (errno != EEXIST) break;
    }
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
}

int file_replace_begin(FileReplace *r, const char *path, char *err, size_t errlen) {
    int fd = create_tmp(r, path, err, errlen);
    if (fd < 0) return -1;
    if (close(fd)) {
        snprintf(err, errlen, "cannot write %s: %s", r->tmp, strerror(errno));
        unlink(r->tmp);
        return -1;
    }
    return 0;
}

// fsync of fd, close, rename, fsync of the directory; fd is closed in any case.
static int finish(FileReplace *r, int fd, char *err, size_t errlen) {
    const char *step = "sync";
    if (fsync(fd)) goto fail;
    step = "close";
    {
        int rc = close(fd);
        fd = -1;
        if (rc) goto fail;
    }
    // what path is may have changed while the contents were made (a recording takes minutes)
    if (check_target(r->path, err, errlen)) {
        unlink(r->tmp);
        return -1;
    }
    step = "rename";
    if (rename(r->tmp, r->path)) goto fail;
    // the rename is durable once the directory is; a failure here loses nothing already on disk
    if (sync_dir(r->path)) {
        snprintf(err, errlen, "cannot sync the directory of %s: %s", r->path, strerror(errno));
        return -1;
    }
    return 0;
fail:
    snprintf(err, errlen, "cannot %s %s: %s", step, r->tmp, strerror(errno));
    if (fd >= 0) close(fd);
    unlink(r->tmp); // the previous file was never touched
    return -1;
}

int file_replace_commit(FileReplace *r, char *err, size_t errlen) {
    // fsync through a new descriptor syncs the file's data whoever wrote it (a FILE *, a child)
    int fd = open(r->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot sync %s: %s", r->tmp, strerror(errno));
        unlink(r->tmp);
        return -1;
    }
    return finish(r, fd, err, errlen);
}

FILE *file_replace_fopen(FileReplace *r, char *err, size_t errlen) {
    int fd = open(r->tmp, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", r->tmp, strerror(errno));
        if (fd >= 0) close(fd);
    }
    return f;
}

void file_replace_abort(FileReplace *r) { unlink(r->tmp); }

int file_replace(const char *path, const void *b, size_t n, char *err, size_t errlen) {
    FileReplace r;
    int fd = create_tmp(&r, path, err, errlen);
    if (fd < 0) return -1;
    if (file_write_all(fd, b, n)) {
        snprintf(err, errlen, "cannot write %s: %s", r.tmp, strerror(errno));
        close(fd);
        unlink(r.tmp);
        return -1;
    }
    return finish(&r, fd, err, errlen);
}

int file_is_tmp_of(const char *name, const char *base) {
    size_t b = strlen(base), n = strlen(name);
    if (n != b + FILE_TMP_SUFFIX_LEN - 1 || strncmp(name, base, b) || name[b] != '.' || strcmp(name + b + 9, ".tmp"))
        return 0;
    for (size_t i = b + 1; i < b + 9; i++)
        if (!strchr("0123456789abcdef", name[i])) return 0;
    return 1;
}

// ----------------------------------------------------------------------------
// reading: a regular file, or a refusal that never waits

// fd is a regular file: then blocking again; else closed, with err and errno set.
static int keep_regular(int fd, const char *path, char *err, size_t errlen) {
    struct stat st;
    int e;
    if (fstat(fd, &st)) goto fail;
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", path, kind_of(st.st_mode));
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
