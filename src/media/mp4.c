// mp4.c: the MP4 writer behind mp4.h: ffmpeg as a child process (spawn.h) reading raw frames.
//
// The frames go through a socket pair rather than a pipe so that each send can say
// MSG_NOSIGNAL: if ffmpeg dies, the writer gets EPIPE and reports ffmpeg's message instead
// of the whole program being killed by SIGPIPE. ffmpeg writes the file to descriptor 3, our
// temporary file, as file:/dev/fd/3 (an MP4 cannot go down a pipe: its index is written last
// and, with +faststart, moved to the front, which needs a file it can seek and read back;
// /dev/fd/3 reopens that very file, whatever its name has become). ffmpeg's stderr goes to a
// memory file, read back only when something failed.
#include "mp4.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../util/file.h"
#include "../util/spawn.h"

struct Mp4Rec {
    Child ffmpeg;
    bool running; // ffmpeg was started and not yet waited for
    int sock;     // our end: ffmpeg's stdin
    int w, h, k;
    int64_t frames;           // emulated frames added
    int64_t pictures;         // pictures sent
    char name[FILE_PATH_MAX]; // the file's, for messages
};

// ffmpeg's deadline once `pictures` have been sent: libx264's ultrafast preset encodes a few
// hundred of these pictures a second on one core; 10 a second is allowed, and a minute more.
static double mp4_deadline(const Mp4Rec *m) {
    return m->ffmpeg.started + MP4_LIMIT_S + MP4_LIMIT_PER_PICTURE_S * (double)m->pictures;
}

// Waits for ffmpeg; 0 if it exited 0, else -1 with why in err.
static int ffmpeg_wait(Mp4Rec *m, char *err, size_t errlen) {
    char why[1024];
    m->running = false;
    if (!spawn_wait(&m->ffmpeg, why, sizeof(why))) return 0;
    snprintf(err, errlen, "cannot write %s: %s", m->name, why);
    return -1;
}

static void mp4rec_free(Mp4Rec *m) {
    if (m->sock >= 0) close(m->sock);
    if (m->running) spawn_end(&m->ffmpeg);
    free(m);
}

Mp4Rec *mp4rec_open(int fd, const char *name, int width, int height, int k, char *err, size_t errlen) {
    Mp4Rec *m = calloc(1, sizeof(Mp4Rec));
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->sock = -1;
    m->w = width;
    m->h = height;
    m->k = k < 1 ? 1 : k > MP4_FRAME_HZ ? MP4_FRAME_HZ : k;
    snprintf(m->name, sizeof(m->name), "%s", name); // cut if long: only for messages
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(err, errlen, "cannot start ffmpeg: %s", strerror(errno));
        free(m);
        return NULL;
    }
    m->sock = sv[0];
    char size[32], rate[32], filter[96];
    snprintf(size, sizeof(size), "%dx%d", width, height);
    snprintf(rate, sizeof(rate), "%d/%d", MP4_FRAME_HZ, m->k);
    // BT.709 matrix, tagged as such, so players do not guess the colours
    snprintf(filter, sizeof(filter), "scale=iw*%d:ih*%d:flags=neighbor:out_color_matrix=bt709:out_range=tv", MP4_SCALE,
        MP4_SCALE);
    char *argv[] = { "ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
        "-video_size", size, "-framerate", rate, "-i", "pipe:0", "-vf", filter, "-c:v", "libx264", "-preset",
        "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709",
        "-color_trc", "bt709", "-color_range", "tv", "-movflags", "+faststart", "-f", "mp4", "-y", "file:/dev/fd/3",
        NULL };
    SpawnFd fds[] = { { sv[1], 0 }, { fd, 3 } };
    char why[512];
    int rc = spawn_start(&m->ffmpeg, argv, fds, 2, MP4_LIMIT_S, why, sizeof(why));
    int e = errno;
    close(sv[1]);
    if (rc) {
        if (e == ENOENT)
            snprintf(err, errlen,
                "an .mp4 needs the ffmpeg program, not found on PATH "
                "(Debian: apt-get install ffmpeg); or write a .gif");
        else
            snprintf(err, errlen, "%s", why);
        mp4rec_free(m);
        return NULL;
    }
    m->running = true;
    return m;
}

int mp4rec_add(Mp4Rec *m, const uint8_t *rgb, int frames, char *err, size_t errlen) {
    if (!m->running) {
        snprintf(err, errlen, "cannot write %s: ffmpeg has stopped", m->name);
        return -1;
    }
    size_t n = (size_t)m->w * m->h * 3;
    m->frames += frames;
    int64_t due = (m->frames + m->k / 2) / m->k - m->pictures; // rounded running total
    for (int64_t f = 0; f < due; f++) {
        spawn_set_deadline(&m->ffmpeg, mp4_deadline(m));
        if (spawn_send(&m->ffmpeg, m->sock, rgb, n)) {
            int e = errno;
            close(m->sock);
            m->sock = -1;
            if (ffmpeg_wait(m, err, errlen) == 0) // ffmpeg ended early yet content: still wrong
                snprintf(err, errlen, "cannot write %s: ffmpeg stopped reading: %s", m->name, strerror(e));
            return -1;
        }
        m->pictures++;
    }
    return 0;
}

int mp4rec_close(Mp4Rec *m, char *err, size_t errlen) {
    int rc = 0;
    if (m->running && m->sock >= 0) {
        close(m->sock); // end of stream: ffmpeg finishes the file
        m->sock = -1;
        spawn_set_deadline(&m->ffmpeg, mp4_deadline(m));
        rc = ffmpeg_wait(m, err, errlen);
    } else {
        snprintf(err, errlen, "cannot write %s: ffmpeg has stopped", m->name);
        rc = -1;
    }
    mp4rec_free(m);
    return rc;
}

int64_t mp4rec_pictures(const Mp4Rec *m) { return m->pictures; }
double mp4rec_seconds(const Mp4Rec *m) { return (double)m->pictures * m->k / MP4_FRAME_HZ; }
