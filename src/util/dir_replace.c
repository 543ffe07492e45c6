// dir_replace.c: a directory replaced whole or not at all (dir_replace.h).
#include "dir_replace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>


static bool is_dot(const char *name) { return !strcmp(name, ".") || !strcmp(name, ".."); }

// The last component of path (no trailing slash: dir_replace_begin strips them).
static const char *base_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

// The directory that holds path, open to sync or to list.
static int parent_open(const char *path) {
    const char *s = strrchr(path, '/');
    if (!s) return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char dir[FILE_PATH_MAX];
    snprintf(dir, sizeof(dir), "%.*s", s == path ? 1 : (int)(s - path), path);
    return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

// ----------------------------------------------------------------------------
// what a directory holds

typedef struct {
    int files;           // entries that are ours
    char first[256];     // the first of them by name (for the message)
    char foreign[256];   // the first entry that is not ours, or ""
    mode_t foreign_mode; // its type
} Holding;

// What the directory open as dfd holds: the caller's files, and the first entry that is not one
// (not a regular file, or of a name the caller does not write). 0, or -1 with errno set.
static int holding_of(int dfd, DirOwnName ours, Holding *h) {
    memset(h, 0, sizeof(*h));
    int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0) close(fd);
        return -1;
    }
    rewinddir(d);
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        if (is_dot(e->d_name)) continue;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) continue; // gone meanwhile
        if (S_ISREG(st.st_mode) && ours(e->d_name)) {
            if (!h->files++ || strcmp(e->d_name, h->first) < 0) snprintf(h->first, sizeof(h->first), "%s", e->d_name);
        } else if (!h->foreign[0]) {
            snprintf(h->foreign, sizeof(h->foreign), "%s", e->d_name);
            h->foreign_mode = st.st_mode;
        }
    }
    closedir(d);
    return 0;
}

// Removes the caller's files from the directory open as dfd (never anything else). The entries
// left (0: it is empty), the first of them in left.
static int empty_ours(int dfd, DirOwnName ours, char *left, size_t leftlen) {
    if (left && leftlen) left[0] = 0;
    int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3), n = 0;
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0) close(fd);
        return 1;
    }
    rewinddir(d);
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        if (is_dot(e->d_name)) continue;
        if (!fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) && ours(e->d_name) &&
            !unlinkat(dfd, e->d_name, 0))
            continue;
        if (!n++ && left) snprintf(left, leftlen, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

// The directory `name` in the directory open as pfd, emptied of the caller's files and removed.
// 0, or the entries left (it stays, with them).
static int remove_ours(int pfd, const char *name, DirOwnName ours, char *left, size_t leftlen) {
    int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        if (left) snprintf(left, leftlen, "%s", strerror(errno));
        return 1;
    }
    int n = empty_ours(dfd, ours, left, leftlen);
    close(dfd);
    if (!n && unlinkat(pfd, name, AT_REMOVEDIR)) {
        if (left) snprintf(left, leftlen, "%s", strerror(errno));
        n = 1;
    }
    return n;
}

// ----------------------------------------------------------------------------
// the temporary directory a signal removes: one at a time, read by the handler without locks

static char sig_tmp[FILE_PATH_MAX + FILE_TMP_SUFFIX_LEN];
static DirOwnName sig_ours;
static atomic_int sig_armed; // 0 none, 1 being set, 2 sig_tmp names ours

static void arm(const DirReplace *r) {
    int none = 0;
    if (!atomic_compare_exchange_strong(&sig_armed, &none, 1)) return; // one at a time: the next sweep takes others
    snprintf(sig_tmp, sizeof(sig_tmp), "%s", r->tmp);
    sig_ours = r->ours;
    atomic_store(&sig_armed, 2);
}

static void disarm(const DirReplace *r) {
    if (atomic_load(&sig_armed) == 2 && !strcmp(sig_tmp, r->tmp)) atomic_store(&sig_armed, 0);
}

// linux_dirent64, as getdents64(2) fills it
struct dirent64_raw {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

// In the handler: the caller's files in sig_tmp removed, then sig_tmp itself, with
// async-signal-safe calls only (open, getdents64, unlinkat, rmdir; no malloc, no stdio).
static void remove_armed(void) {
    int fd = open(sig_tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    char buf[4096] __attribute__((aligned(8)));
    for (int pass = 0; pass < 2; pass++) { // a second pass for what removals during the first skipped
        lseek(fd, 0, SEEK_SET);
        for (long n; (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0;)
            for (long off = 0; off < n;) {
                const struct dirent64_raw *e = (const void *)(buf + off);
                off += e->d_reclen;
                if (e->d_type == DT_REG && !is_dot(e->d_name) && sig_ours(e->d_name)) unlinkat(fd, e->d_name, 0);
            }
    }
    close(fd);
    rmdir(sig_tmp);
}

static void remove_if_armed(void) {
    if (atomic_load(&sig_armed) == 2) remove_armed();
}

void dir_remove_tmps_on_signals(void) { file_at_fatal_signal(remove_if_armed); }

// ----------------------------------------------------------------------------
// temporary directories of writers that died

// Removes path's temporary directories (path.p<pid>.<8 hex>.tmp) whose writer's pid names no living
// process, the caller's files in them first (a directory that holds anything else stays). As
// file.c's sweep: a writer of another pid namespace or host may look dead from here, a case
// pongrl does not serve; nothing is said.
static void sweep_dead_tmps(const char *path, DirOwnName ours) {
    int pfd = parent_open(path);
    int fd = pfd < 0 ? -1 : fcntl(pfd, F_DUPFD_CLOEXEC, 3);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0) close(fd);
        if (pfd >= 0) close(pfd);
        return;
    }
    const char *base = base_of(path);
    for (struct dirent *e; (e = readdir(d));) {
        long pid = file_tmp_of(e->d_name, base);
        struct stat st;
        if (pid > 0 && pid != getpid() && kill((pid_t)pid, 0) && errno == ESRCH &&
            !fstatat(pfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
            remove_ours(pfd, e->d_name, ours, NULL, 0);
    }
    closedir(d);
    close(pfd);
}

// ----------------------------------------------------------------------------
// the replacement

// What path is now: 0 absent (*exists false) or a directory that may be replaced (*exists true);
// else -1 with one line in err.
static int check_target(const DirReplace *r, bool *exists, char *err, size_t errlen) {
    struct stat st;
    *exists = false;
    if (lstat(r->path, &st)) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: not a directory (%s)", r->path, file_kind(st.st_mode));
        return -1;
    }
    int dfd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    Holding h;
    if (dfd < 0 || holding_of(dfd, r->ours, &h)) {
        snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
        if (dfd >= 0) close(dfd);
        return -1;
    }
    close(dfd);
    if (h.foreign[0] && !S_ISREG(h.foreign_mode))
        snprintf(err, errlen, "cannot write %s: %s/%s is not a regular file (%s): %s is left as it is", r->path,
            r->path, h.foreign, file_kind(h.foreign_mode), r->path);
    else if (h.foreign[0])
        snprintf(err, errlen, "cannot write %s: %s/%s is not one of %s: %s is left as it is", r->path, r->path,
            h.foreign, r->ours_what, r->path);
    else if (!r->force && !h.files)
        snprintf(err, errlen, "cannot write %s: it exists (an empty directory); --force replaces it", r->path);
    else if (!r->force && h.files == 1)
        snprintf(
            err, errlen, "cannot write %s: it exists (a directory holding %s); --force replaces it", r->path, h.first);
    else if (!r->force)
        snprintf(err, errlen,
            "cannot write %s: it exists (a directory holding %s and %d more file%s); --force replaces it", r->path,
            h.first, h.files - 1, h.files == 2 ? "" : "s");
    else {
        *exists = true;
        return 0;
    }
    return -1;
}

// Whether the name tmp still is the directory open as fd: another program may have swapped it.
static bool tmp_is_ours(const DirReplace *r) {
    struct stat a, b;
    return fstat(r->fd, &a) == 0 && lstat(r->tmp, &b) == 0 && S_ISDIR(b.st_mode) && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino;
}

int dir_replace_begin(
    DirReplace *r, const char *path, bool force, DirOwnName ours, const char *ours_what, char *err, size_t errlen) {
    memset(r, 0, sizeof(*r));
    r->fd = -1;
    r->force = force;
    r->ours = ours;
    r->ours_what = ours_what;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--; // DIR/ is DIR
    if (len >= sizeof(r->path)) {
        snprintf(err, errlen, "cannot write %.64s...: path too long", path);
        return -1;
    }
    snprintf(r->path, sizeof(r->path), "%.*s", (int)len, path);
    const char *base = base_of(r->path);
    if (!base[0] || is_dot(base)) {
        snprintf(err, errlen, "cannot write %s: name the directory itself (not '.', '..' or '/')", path);
        return -1;
    }
    bool exists;
    if (check_target(r, &exists, err, errlen)) return -1;
    sweep_dead_tmps(r->path, ours);
    for (int tries = 0; tries < 64; tries++) {
        file_tmp_name(r->tmp, sizeof(r->tmp), r->path);
        if (mkdir(r->tmp, 0777)) { // ours alone: mkdir never opens what exists
            if (errno == EEXIST) continue;
            break;
        }
        r->fd = open(r->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (r->fd < 0) {
            snprintf(err, errlen, "cannot write %s: %s", r->tmp, strerror(errno));
            rmdir(r->tmp);
            return -1;
        }
        arm(r);
        return 0;
    }
    snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
    return -1;
}

// tmp and its files removed (only while its name still is ours), its descriptor closed.
void dir_replace_abort(DirReplace *r) {
    if (r->fd < 0) return;
    if (tmp_is_ours(r) && !empty_ours(r->fd, r->ours, NULL, 0)) rmdir(r->tmp);
    close(r->fd);
    r->fd = -1;
    disarm(r);
}

// rename(2) that never replaces what is there (renameat2 RENAME_NOREPLACE; a plain rename where
// the file system has no such flag).
static int rename_new(const char *from, const char *to) {
    if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE)) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    struct stat st;
    if (!lstat(to, &st)) {
        errno = EEXIST;
        return -1;
    }
    return rename(from, to);
}

int dir_replace_commit(DirReplace *r, char *err, size_t errlen) {
    if (r->fd < 0) {
        snprintf(err, errlen, "cannot write %s: its temporary directory is closed", r->path);
        return -1;
    }
    if (fsync(r->fd)) {
        snprintf(err, errlen, "cannot sync %s: %s", r->tmp, strerror(errno));
        dir_replace_abort(r);
        return -1;
    }
    if (!tmp_is_ours(r)) {
        // not ours to remove either: what stands under the name now is another program's
        snprintf(err, errlen, "cannot write %s: its temporary directory %s was replaced by another program", r->path,
            r->tmp);
        close(r->fd);
        r->fd = -1;
        disarm(r);
        return -1;
    }
    // what path is may have changed while the files were written
    bool exists;
    if (check_target(r, &exists, err, errlen)) {
        dir_replace_abort(r);
        return -1;
    }
    if (exists ? renameat2(AT_FDCWD, r->tmp, AT_FDCWD, r->path, RENAME_EXCHANGE) : rename_new(r->tmp, r->path)) {
        const int e = errno;
        if (exists && (e == EINVAL || e == ENOSYS))
            snprintf(err, errlen,
                "cannot replace %s: its file system cannot swap two directories in one step (renameat2 "
                "RENAME_EXCHANGE: %s): remove it first, or write elsewhere",
                r->path, strerror(e));
        else
            snprintf(err, errlen, "cannot write %s: %s", r->path, e == EEXIST ? "it appeared meanwhile" : strerror(e));
        dir_replace_abort(r);
        return -1;
    }
    // path is the new directory; tmp, when there was one, the old: its files go (the caller's alone)
    close(r->fd);
    r->fd = -1;
    int pfd = parent_open(r->path), rc = 0;
    if (pfd < 0 || fsync(pfd)) {
        snprintf(err, errlen, "cannot sync the directory of %s: %s", r->path, strerror(errno));
        rc = -1;
    }
    if (exists && pfd >= 0) {
        char left[256];
        if (remove_ours(pfd, base_of(r->tmp), r->ours, left, sizeof(left)) && !rc) {
            snprintf(err, errlen, "%s replaced; its old files are left in %s (%s)", r->path, r->tmp, left);
            rc = 1;
        }
    }
    if (pfd >= 0) close(pfd);
    disarm(r);
    return rc;
}
