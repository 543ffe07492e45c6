// spawn.c: spawn.h with posix_spawnp. A child is waited for on a pidfd (poll wakes when it
// ends) where the kernel has them (Linux 5.3), else by checking waitpid every few ms.
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

extern char **environ;

#define SPAWN_POLL_S 0.005 // waitpid's period where there is no pidfd

// ----------------------------------------------------------------------------
// waiting with a deadline

static int ms_until(double t) {
    double left = t - clock_now_s();
    if (left <= 0) return 0;
    return left > INT_MAX / 1000 - 1 ? INT_MAX - 1000 : (int)(left * 1000) + 1;
}

// Reaps the child if it has ended, else waits for it until `until`. 1 reaped, 0 still running
// at `until`, -1 lost (errno).
static int reap_until(Child *c, double until) {
    for (;;) {
        int st;
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid) {
            c->status = st;
            c->pid = 0;
            return 1;
        }
        if (r < 0 && errno != EINTR) return -1;
        if (r < 0) continue;
        if (clock_now_s() >= until) return 0;
        if (c->pidfd >= 0) {
            struct pollfd p = { c->pidfd, POLLIN, 0 };
            if (poll(&p, 1, ms_until(until)) < 0 && errno != EINTR) return -1;
        } else {
            double left = until - clock_now_s(), dt = left < SPAWN_POLL_S ? left : SPAWN_POLL_S;
            struct timespec ts = { 0, dt > 0 ? (long)(dt * 1e9) : 0 };
            nanosleep(&ts, NULL);
        }
    }
}

// SIGTERM, SPAWN_GRACE_S to end, then SIGKILL; reaped.
static void child_kill(Child *c) {
    if (c->pid <= 0) return;
    kill(c->pid, SIGTERM);
    if (reap_until(c, clock_now_s() + SPAWN_GRACE_S) == 1) return;
    kill(c->pid, SIGKILL);
    int st = 0;
    pid_t r;
    while ((r = waitpid(c->pid, &st, 0)) < 0 && errno == EINTR) {}
    c->status = r == c->pid ? st : 0;
    c->pid = 0;
}

static void child_timed_out(Child *c) {
    c->timed_out = true;
    child_kill(c);
}

// What became of a reaped child: 0 if it exited 0, else -1 with why in err.
static int child_result(const Child *c, char *err, size_t errlen) {
    if (c->timed_out) {
        snprintf(err, errlen, "%s did not finish within %.0f s: killed", c->name, c->deadline - c->started);
        return -1;
    }
    if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0) return 0;
    if (WIFSIGNALED(c->status)) {
        snprintf(err, errlen, "%s was killed by signal %d", c->name, WTERMSIG(c->status));
        return -1;
    }
    char said[512] = "";
    if (c->errfd >= 0) spawn_last_words(c, said, sizeof(said)); // else its stderr was the caller's
    snprintf(err, errlen, "%s failed (exit %d)%s%s", c->name, WEXITSTATUS(c->status), said[0] ? ": " : "", said);
    return -1;
}

// ----------------------------------------------------------------------------
// starting

static int spawn_fail(Child *c, int e, char *err, size_t errlen) {
    if (e == ENOENT)
        snprintf(err, errlen, "%s: not found on PATH", c->name);
    else
        snprintf(err, errlen, "cannot start %s: %s", c->name, strerror(e));
    if (c->errfd >= 0) close(c->errfd);
    c->errfd = -1;
    errno = e;
    return -1;
}

int spawn_start(Child *c, char *const argv[], const SpawnFd *fds, int nfds, double limit_s, char *err, size_t errlen) {
    *c = (Child){ .pid = 0, .pidfd = -1, .errfd = -1 };
    snprintf(c->name, sizeof(c->name), "%s", argv[0]);
    if (nfds < 0 || nfds > SPAWN_FDS_MAX) return spawn_fail(c, EINVAL, err, errlen);
    bool given[SPAWN_TO_MAX + 1] = { false };
    for (int i = 0; i < nfds; i++) {
        if (fds[i].to < 0 || fds[i].to > SPAWN_TO_MAX || fds[i].from < 0) return spawn_fail(c, EINVAL, err, errlen);
        given[fds[i].to] = true;
    }
    if (!given[2]) {
        char name[48];
        snprintf(name, sizeof(name), "%s-stderr", c->name);
        c->errfd = memfd_create(name, MFD_CLOEXEC); // -1: its stderr goes to /dev/null
    }
    // Every source is first copied above SPAWN_TO_MAX: a source that is itself one of the
    // numbers handed out would otherwise be overwritten before it is read, and dup2 of a
    // descriptor onto itself would leave it close-on-exec.
    int copy[SPAWN_FDS_MAX + 1], ncopy = 0, e = 0;
    for (int i = 0; i < nfds && !e; i++)
        if ((copy[ncopy] = fcntl(fds[i].from, F_DUPFD_CLOEXEC, SPAWN_TO_MAX + 1)) < 0)
            e = errno;
        else
            ncopy++;
    int errcopy = -1;
    if (!e && c->errfd >= 0 && (errcopy = fcntl(c->errfd, F_DUPFD_CLOEXEC, SPAWN_TO_MAX + 1)) < 0) e = errno;
    if (e) {
        for (int i = 0; i < ncopy; i++) close(copy[i]);
        return spawn_fail(c, e, err, errlen);
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    for (int i = 0; i < nfds; i++) posix_spawn_file_actions_adddup2(&fa, copy[i], fds[i].to);
    if (!given[0]) posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!given[1]) posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (!given[2]) {
        if (errcopy >= 0)
            posix_spawn_file_actions_adddup2(&fa, errcopy, 2);
        else
            posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    // nothing else of ours (ours are close-on-exec; a library's or our parent's may not be)
    for (int d = 3; d <= SPAWN_TO_MAX; d++)
        if (!given[d]) posix_spawn_file_actions_addclose(&fa, d);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&fa, SPAWN_TO_MAX + 1);
#endif
    sigset_t dfl, none;
    sigemptyset(&none);
    sigemptyset(&dfl);
    static const int reset[] = { SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM, SIGUSR1,
        SIGUSR2 };
    for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++) sigaddset(&dfl, reset[i]);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    for (int i = 0; i < ncopy; i++) close(copy[i]);
    if (errcopy >= 0) close(errcopy);
    if (rc) return spawn_fail(c, rc, err, errlen);
    c->pid = pid;
#ifdef SYS_pidfd_open
    c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); // close-on-exec; -1 on kernels before 5.3
#endif
    c->started = clock_now_s();
    c->deadline = c->started + limit_s;
    return 0;
}

void spawn_set_deadline(Child *c, double deadline) { c->deadline = deadline; }

// ----------------------------------------------------------------------------
// talking to it, waiting for it

int spawn_read(Child *c, int fd, SpawnSink sink, void *ctx, char *err, size_t errlen) {
    uint8_t buf[16384];
    for (;;) {
        struct pollfd p = { fd, POLLIN, 0 };
        int r = poll(&p, 1, ms_until(c->deadline));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            snprintf(err, errlen, "cannot read from %s: %s", c->name, strerror(errno));
            child_kill(c);
            return -1;
        }
        if (r == 0) {
            if (clock_now_s() < c->deadline) continue;
            child_timed_out(c);
            return child_result(c, err, errlen);
        }
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) {
            snprintf(err, errlen, "cannot read from %s: %s", c->name, strerror(errno));
            child_kill(c);
            return -1;
        }
        if (n == 0) break; // every writer has closed it: the child has ended, or is ending
        if (sink(ctx, buf, (size_t)n, err, errlen)) {
            child_kill(c);
            return -1;
        }
    }
    return spawn_wait(c, err, errlen);
}

int spawn_send(Child *c, int sock, const uint8_t *b, size_t n) {
    for (size_t done = 0; done < n;) {
        ssize_t k = send(sock, b + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        if (clock_now_s() >= c->deadline) {
            child_timed_out(c);
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = { sock, POLLOUT, 0 };
        if (poll(&p, 1, ms_until(c->deadline)) < 0 && errno != EINTR) return -1;
    }
    return 0;
}

int spawn_wait(Child *c, char *err, size_t errlen) {
    if (c->pid > 0) {
        int r = reap_until(c, c->deadline);
        if (r < 0) {
            snprintf(err, errlen, "lost the %s process: %s", c->name, strerror(errno));
            c->pid = 0;
            return -1;
        }
        if (r == 0) child_timed_out(c);
    }
    return child_result(c, err, errlen);
}

void spawn_last_words(const Child *c, char *buf, size_t n) {
    char tail[4096];
    ssize_t got = 0;
    if (c->errfd >= 0) {
        off_t end = lseek(c->errfd, 0, SEEK_END);
        off_t from = end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0;
        got = end > 0 ? pread(c->errfd, tail, (size_t)(end - from), from) : 0;
    }
    if (got < 0) got = 0;
    tail[got] = 0;
    while (got > 0 && (tail[got - 1] == '\n' || tail[got - 1] == '\r' || tail[got - 1] == ' ')) tail[--got] = 0;
    char *line = strrchr(tail, '\n');
    line = line ? line + 1 : tail;
    if (line[0] == '[' && strstr(line, "] ")) line = strstr(line, "] ") + 2;
    if (!line[0]) line = "(no message)";
    snprintf(buf, n, "%s", line);
}

void spawn_end(Child *c) {
    child_kill(c);
    if (c->pidfd >= 0) close(c->pidfd);
    if (c->errfd >= 0) close(c->errfd);
    c->pidfd = c->errfd = -1;
}
