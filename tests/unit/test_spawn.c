// test_spawn.c: spawn.h's children: what they are given (the descriptors named and no other,
// default signal dispositions), what comes back (output, exit status, the last line of their
// stderr), and the deadline (a child that never ends, or never reads, is killed and said so).
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/spawn.h"

typedef struct {
    char buf[65536];
    size_t n;
    int calls, fail_after; // fail_after > 0: the sink fails at that call
} Collect;

static int collect(void *ctx, const uint8_t *b, size_t n, char *err, size_t errlen) {
    Collect *c = ctx;
    if (c->fail_after && ++c->calls >= c->fail_after) {
        snprintf(err, errlen, "sink: enough");
        return -1;
    }
    size_t k = n < sizeof(c->buf) - 1 - c->n ? n : sizeof(c->buf) - 1 - c->n;
    memcpy(c->buf + c->n, b, k);
    c->n += k;
    c->buf[c->n] = 0;
    return 0;
}

// Runs argv with stdin `in` (or /dev/null: -1), its stdout collected. spawn_read's result.
static int run(char *const argv[], int in, double limit_s, Collect *out, char *err, size_t errlen) {
    int p[2];
    cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
    SpawnFd fds[2] = { { p[1], 1 }, { in, 0 } };
    Child c;
    int rc = spawn_start(&c, argv, fds, in >= 0 ? 2 : 1, limit_s, err, errlen);
    close(p[1]);
    if (!rc) {
        rc = spawn_read(&c, p[0], collect, out, err, errlen);
        cr_assert_eq(c.pid, 0, "the child was not reaped");
        spawn_end(&c);
    }
    close(p[0]);
    return rc;
}

Test(spawn, a_memory_file_in_and_a_pipe_out) {
    int in = memfd_create("in", MFD_CLOEXEC);
    const char *text = "it's `not` a \"shell\"; $(echo no)\n";
    cr_assert_eq(write(in, text, strlen(text)), (ssize_t)strlen(text));
    lseek(in, 0, SEEK_SET);
    Collect out = { .n = 0 };
    char err[256] = "";
    cr_assert_eq(run((char *[]){ "cat", NULL }, in, 30, &out, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(out.buf, text);
    close(in);
}

Test(spawn, an_argument_is_never_read_by_a_shell) {
    Collect out = { .n = 0 };
    char err[256] = "";
    char *argv[] = { "echo", "a';touch /tmp/pongrl-spawn-pwned;'b", NULL };
    unlink("/tmp/pongrl-spawn-pwned");
    cr_assert_eq(run(argv, -1, 30, &out, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(out.buf, "a';touch /tmp/pongrl-spawn-pwned;'b\n");
    cr_assert_neq(access("/tmp/pongrl-spawn-pwned", F_OK), 0, "a shell ran the argument");
}

Test(spawn, a_failure_says_its_exit_and_its_last_line) {
    Collect out = { .n = 0 };
    char err[256] = "";
    cr_assert_eq(run((char *[]){ "ls", "/nonexistent-pongrl", NULL }, -1, 30, &out, err, sizeof(err)), -1);
    cr_assert(strstr(err, "ls failed (exit 2): ") && strstr(err, "No such file or directory"), "%s", err);
    cr_assert_null(strchr(err, '\n'));
}

Test(spawn, a_program_not_on_path_is_enoent) {
    Child c;
    char err[256] = "";
    errno = 0;
    cr_assert_eq(spawn_start(&c, (char *[]){ "no-such-program-pongrl", NULL }, NULL, 0, 30, err, sizeof(err)), -1);
    cr_assert_eq(errno, ENOENT);
    cr_assert_str_eq(err, "no-such-program-pongrl: not found on PATH");
}

Test(spawn, a_child_past_its_deadline_is_killed) {
    Child c;
    char err[256] = "";
    cr_assert_eq(spawn_start(&c, (char *[]){ "sleep", "600", NULL }, NULL, 0, 1, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(spawn_wait(&c, err, sizeof(err)), -1);
    cr_assert_str_eq(err, "sleep did not finish within 1 s: killed");
    cr_assert(c.timed_out);
    cr_assert_eq(c.pid, 0);
    spawn_end(&c);
}

Test(spawn, a_child_that_never_reads_is_killed_at_the_deadline) {
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    Child c;
    char err[256] = "";
    cr_assert_eq(
        spawn_start(&c, (char *[]){ "sleep", "600", NULL }, (SpawnFd[]){ { sv[1], 0 } }, 1, 1, err, sizeof(err)), 0,
        "%s", err);
    close(sv[1]);
    size_t n = 64 << 20; // more than any socket buffer
    uint8_t *b = calloc(n, 1);
    errno = 0;
    cr_assert_eq(spawn_send(&c, sv[0], b, n), -1);
    cr_assert_eq(errno, ETIMEDOUT);
    cr_assert_eq(c.pid, 0, "not killed");
    cr_assert_eq(spawn_wait(&c, err, sizeof(err)), -1);
    cr_assert_str_eq(err, "sleep did not finish within 1 s: killed");
    spawn_end(&c);
    free(b);
    close(sv[0]);
}

Test(spawn, a_failing_sink_ends_the_child) {
    Collect out = { .n = 0, .fail_after = 2 };
    char err[256] = "";
    cr_assert_eq(run((char *[]){ "yes", NULL }, -1, 30, &out, err, sizeof(err)), -1);
    cr_assert_str_eq(err, "sink: enough");
}

Test(spawn, only_the_descriptors_named_and_default_signals) {
    // a descriptor of ours without close-on-exec, and SIGPIPE ignored, as pongrl's main does
    int leak = open("/dev/null", O_RDONLY);
    cr_assert_geq(leak, 0);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    Collect out = { .n = 0 };
    char err[256] = "";
    cr_assert_eq(run((char *[]){ "ls", "/proc/self/fd", NULL }, -1, 30, &out, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(out.buf, "0\n1\n2\n3\n", "%s", out.buf); // 3: ls's own directory
    Collect st = { .n = 0 };
    cr_assert_eq(
        run((char *[]){ "grep", "^SigIgn", "/proc/self/status", NULL }, -1, 30, &st, err, sizeof(err)), 0, "%s", err);
    unsigned long long ign = strtoull(strchr(st.buf, ':') + 1, NULL, 16);
    cr_assert_eq(ign & (1ull << (SIGPIPE - 1)), 0, "SIGPIPE ignored in the child: %s", st.buf);
    signal(SIGPIPE, old);
    close(leak);
}
