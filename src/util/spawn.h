// spawn.h: the one way pongrl runs another program (gnuplot, ffmpeg, mpirun). The program is
// found on PATH and given an argument vector, never a shell command line: nothing in a path or
// a name is ever read as a command. It gets exactly the descriptors it is handed (its output
// an open file of ours, its input a memory file or a socket), never a name of ours to open,
// which another program could swap for a symlink or a FIFO meanwhile. It starts with the
// default signal dispositions and an empty signal mask (pongrl ignores SIGPIPE and SIGXFSZ),
// its stderr kept in a memory file whose last line is told when it fails, and it has a
// wall-clock deadline: past it, it is killed (SIGTERM, then SIGKILL) and the message says so.
#ifndef PONGRL_SPAWN_H
#define PONGRL_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPAWN_FDS_MAX 8   // descriptors handed to a child, at most
#define SPAWN_TO_MAX  9   // the highest descriptor number a child is given
#define SPAWN_GRACE_S 5.0 // after SIGTERM at the deadline, before SIGKILL (mpirun ends its ranks)

typedef struct {
    char name[32];   // argv[0], for messages
    pid_t pid;       // > 0 until it is reaped
    int pidfd;       // a pidfd on it (poll: readable once it ended), or -1 (older kernels)
    int errfd;       // its stderr when not handed one: a memory file, or -1
    double started;  // clock_now_s() at the start
    double deadline; // clock_now_s() past which it is killed
    bool timed_out;  // it was killed at the deadline
    int status;      // its wait status, once reaped
} Child;

// In the child, descriptor `to` (0..SPAWN_TO_MAX) is our descriptor `from`.
typedef struct {
    int from, to;
} SpawnFd;

// Starts argv[0] (searched on PATH) with argv, killed limit_s seconds from now. Descriptors
// 0, 1 and 2 not in fds are /dev/null, /dev/null and a memory file (spawn_last_words); no
// other descriptor of ours reaches it. 0, or -1 with one line in err and errno set (ENOENT:
// not on PATH).
int spawn_start(Child *c, char *const argv[], const SpawnFd *fds, int nfds, double limit_s, char *err, size_t errlen);

// Moves the deadline to `deadline` (clock_now_s() seconds): a child whose work grows (ffmpeg
// with each picture) is given time in proportion.
void spawn_set_deadline(Child *c, double deadline);

// Receives n bytes of the child's output; 0 to go on, -1 with one line in err to stop (the
// child is then killed).
typedef int (*SpawnSink)(void *ctx, const uint8_t *b, size_t n, char *err, size_t errlen);

// Reads fd (the read end of a pipe the child writes) to its end, handing what comes to sink,
// then waits for the child. 0 if it exited 0; else -1 with one line in err (the sink's
// failure, the deadline, or the child's failure as spawn_wait says it). The child is reaped.
int spawn_read(Child *c, int fd, SpawnSink sink, void *ctx, char *err, size_t errlen);

// All n bytes to sock, a socket the child reads (MSG_NOSIGNAL: a child that died gives EPIPE,
// never a SIGPIPE), waiting at most until the deadline. 0, or -1 with errno set (ETIMEDOUT:
// the deadline passed; the child is then killed).
int spawn_send(Child *c, int sock, const uint8_t *b, size_t n);

// Waits for the child to end; killed at the deadline. 0 if it exited 0; else -1 with one
// line in err ("NAME failed (exit 1): its last line on stderr" (when its stderr was not handed
// to it), "NAME was killed by signal 9", "NAME did not finish within 60 s: killed"). The child
// is reaped.
int spawn_wait(Child *c, char *err, size_t errlen);

// The last non-empty line the child wrote to its stderr memory file (without ffmpeg's
// "[component @ 0x...] " prefix), or "(no message)".
void spawn_last_words(const Child *c, char *buf, size_t n);

// Ends the child if it still runs (SIGTERM, SIGKILL after SPAWN_GRACE_S), reaps it and frees
// what spawn_start made. Safe on a child already waited for; to be called once per start.
void spawn_end(Child *c);

#endif
