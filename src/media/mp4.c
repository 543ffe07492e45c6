// mp4.c: the MP4 writer behind mp4.h: ffmpeg as a child process reading raw frames.
//
// The frames go through a socket pair rather than a pipe so that each send can say
// MSG_NOSIGNAL: if ffmpeg dies, the writer gets EPIPE and reports ffmpeg's message instead
// of the whole program being killed by SIGPIPE. ffmpeg's stderr goes to a memory file, read
// back only when something failed.
#include "mp4.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/file.h"

extern char **environ;

struct Mp4Rec {
    pid_t pid;
    int sock;  // our end: ffmpeg's stdin
    int errfd; // ffmpeg's stderr (a memory file)
    int w, h, k;
    int64_t frames;                                 // emulated frames added
    int64_t pictures;                               // pictures sent
    char path[FILE_PATH_MAX + FILE_TMP_SUFFIX_LEN]; // a file_replace temporary's name
};

// ffmpeg's last non-empty line of stderr, without its "[component @ 0x...] " prefix.
static void ffmpeg_last_words(const Mp4Rec *m, char *buf, size_t n) {
    char tail[4096];
    off_t end = lseek(m->errfd, 0, SEEK_END);
    off_t from = end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0;
    ssize_t got = end > 0 ? pread(m->errfd, tail, (size_t)(end - from), from) : 0;
    if (got < 0) got = 0;
    tail[got] = 0;
    while (got > 0 && (tail[got - 1] == '\n' || tail[got - 1] == '\r' || tail[got - 1] == ' ')) tail[--got] = 0;
    char *line = strrchr(tail, '\n');
    line = line ? line + 1 : tail;
    if (line[0] == '[' && strstr(line, "] ")) line = strstr(line, "] ") + 2;
    if (!line[0]) line = "(no message)";
    size_t len = strlen(line) < n ? strlen(line) : n - 1; // cut to fit
    memcpy(buf, line, len);
    buf[len] = 0;
}

// Waits for ffmpeg; 0 if it exited 0, else -1 with why in err.
static int ffmpeg_wait(Mp4Rec *m, char *err, size_t errlen) {
    int status;
    pid_t r;
    while ((r = waitpid(m->pid, &status, 0)) < 0 && errno == EINTR) {}
    m->pid = 0;
    if (r < 0) {
        snprintf(err, errlen, "cannot write %s: lost the ffmpeg process: %s", m->path, strerror(errno));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    char said[512];
    ffmpeg_last_words(m, said, sizeof(said));
    if (WIFSIGNALED(status))
        snprintf(err, errlen, "cannot write %s: ffmpeg was killed by signal %d", m->path, WTERMSIG(status));
    else
        snprintf(err, errlen, "cannot write %s: ffmpeg failed (exit %d): %s", m->path, WEXITSTATUS(status), said);
    return -1;
}

static void mp4rec_free(Mp4Rec *m) {
    if (m->sock >= 0) close(m->sock);
    if (m->pid > 0) {
        kill(m->pid, SIGTERM);
        while (waitpid(m->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (m->errfd >= 0) close(m->errfd);
    free(m);
}

Mp4Rec *mp4rec_open(const char *path, int width, int height, int k, char *err, size_t errlen) {
    Mp4Rec *m = calloc(1, sizeof(Mp4Rec));
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->sock = m->errfd = -1;
    m->w = width;
    m->h = height;
    m->k = k < 1 ? 1 : k > MP4_FRAME_HZ ? MP4_FRAME_HZ : k;
    if (strlen(path) >= sizeof(m->path)) {
        snprintf(err, errlen, "cannot create %.64s...: path too long", path);
        free(m);
        return NULL;
    }
    snprintf(m->path, sizeof(m->path), "%s", path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        free(m);
        return NULL;
    }
    close(fd);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(err, errlen, "cannot start ffmpeg: %s", strerror(errno));
        free(m);
        return NULL;
    }
    m->sock = sv[0];
    m->errfd = memfd_create("ffmpeg-stderr", MFD_CLOEXEC);
    char size[32], rate[32], filter[96], out[sizeof(m->path) + 8];
    snprintf(size, sizeof(size), "%dx%d", width, height);
    snprintf(rate, sizeof(rate), "%d/%d", MP4_FRAME_HZ, m->k);
    // BT.709 matrix, tagged as such, so players do not guess the colours
    snprintf(filter, sizeof(filter), "scale=iw*%d:ih*%d:flags=neighbor:out_color_matrix=bt709:out_range=tv", MP4_SCALE,
        MP4_SCALE);
    snprintf(out, sizeof(out), "file:%s", path); // a name is never read as an option or a URL
    char *argv[] = { "ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
        "-video_size", size, "-framerate", rate, "-i", "pipe:0", "-vf", filter, "-c:v", "libx264", "-preset",
        "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709",
        "-color_trc", "bt709", "-color_range", "tv", "-movflags", "+faststart", "-f", "mp4", "-y", out, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (m->errfd >= 0) posix_spawn_file_actions_adddup2(&fa, m->errfd, 2);
    int rc = posix_spawnp(&m->pid, "ffmpeg", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc) {
        m->pid = 0;
        if (rc == ENOENT)
            snprintf(err, errlen,
                "an .mp4 needs the ffmpeg program, not found on PATH "
                "(Debian: apt-get install ffmpeg); or write a .gif");
        else
            snprintf(err, errlen, "cannot start ffmpeg: %s", strerror(rc));
        unlink(path);
        mp4rec_free(m);
        return NULL;
    }
    return m;
}

int mp4rec_add(Mp4Rec *m, const uint8_t *rgb, int frames, char *err, size_t errlen) {
    size_t n = (size_t)m->w * m->h * 3;
    m->frames += frames;
    int64_t due = (m->frames + m->k / 2) / m->k - m->pictures; // rounded running total
    for (int64_t f = 0; f < due; f++) {
        for (size_t done = 0; done < n;) {
            ssize_t k = send(m->sock, rgb + done, n - done, MSG_NOSIGNAL);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) {
                int e = errno;
                close(m->sock);
                m->sock = -1;
                if (ffmpeg_wait(m, err, errlen) == 0) // ffmpeg ended early yet content: still wrong
                    snprintf(err, errlen, "cannot write %s: ffmpeg stopped reading: %s", m->path, strerror(e));
                return -1;
            }
            done += (size_t)k;
        }
        m->pictures++;
    }
    return 0;
}

int mp4rec_close(Mp4Rec *m, char *err, size_t errlen) {
    int rc = 0;
    if (m->sock >= 0) {
        close(m->sock); // end of stream: ffmpeg finishes the file
        m->sock = -1;
        rc = m->pid > 0 ? ffmpeg_wait(m, err, errlen) : -1;
    } else {
        snprintf(err, errlen, "cannot write %s: ffmpeg has stopped", m->path);
        rc = -1;
    }
    mp4rec_free(m);
    return rc;
}

int64_t mp4rec_pictures(const Mp4Rec *m) { return m->pictures; }
double mp4rec_seconds(const Mp4Rec *m) { return (double)m->pictures * m->k / MP4_FRAME_HZ; }
