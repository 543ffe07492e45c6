// file.c: the atomic file write (file.h).
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int file_write_all(int fd, const uint8_t *b, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, b, n > (1u << 30) ? (1u << 30) : n);
        if (k < 0) { if (errno == EINTR) continue; return -1; }
        b += k; n -= (size_t)k;
    }
    return 0;
}

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

static int create_tmp(FileReplace *r, const char *path, char *err, size_t errlen) {
    if (strlen(path) >= sizeof(r->path)) { snprintf(err, errlen, "cannot write %s: path too long", path); return -1; }
    snprintf(r->path, sizeof(r->path), "%s", path);
    snprintf(r->tmp, sizeof(r->tmp), "%s.tmp", path);
    int fd = open(r->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) snprintf(err, errlen, "cannot create %s: %s", r->tmp, strerror(errno));
    return fd;
}

int file_replace_begin(FileReplace *r, const char *path, char *err, size_t errlen) {
    int fd = create_tmp(r, path, err, errlen);
    if (fd < 0) return -1;
    if (close(fd)) { snprintf(err, errlen, "cannot create %s: %s", r->tmp, strerror(errno)); unlink(r->tmp); return -1; }
    return 0;
}

// fsync of fd, close, rename, fsync of the directory; fd is closed in any case.
static int finish(FileReplace *r, int fd, char *err, size_t errlen) {
    const char *step = "sync";
    if (fsync(fd)) goto fail;
    step = "close";
    { int rc = close(fd); fd = -1; if (rc) goto fail; }
    step = "rename";
    if (rename(r->tmp, r->path)) goto fail;
    // the rename is durable once the directory is; a failure here loses nothing already on disk
    if (sync_dir(r->path)) { snprintf(err, errlen, "cannot sync the directory of %s: %s", r->path, strerror(errno)); return -1; }
    return 0;
fail:
    snprintf(err, errlen, "cannot %s %s: %s", step, r->tmp, strerror(errno));
    if (fd >= 0) close(fd);
    unlink(r->tmp);                                 // the previous file was never touched
    return -1;
}

int file_replace_commit(FileReplace *r, char *err, size_t errlen) {
    // fsync through a new descriptor syncs the file's data whoever wrote it (a FILE *, a child)
    int fd = open(r->tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { snprintf(err, errlen, "cannot sync %s: %s", r->tmp, strerror(errno)); unlink(r->tmp); return -1; }
    return finish(r, fd, err, errlen);
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
