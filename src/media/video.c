// video.c: video.h's choice between the GIF and the MP4 writer.
#include "video.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gif.h"
#include "mp4.h"

struct VideoRec {
    VideoFormat format;
    int w, h;
    GifRec *gif;
    Mp4Rec *mp4;
};

int video_format(const char *name, char *err, size_t errlen) {
    const char *dot = strrchr(name, '.');
    if (dot && !strchr(dot, '/')) {
        if (!strcasecmp(dot, ".gif")) return VIDEO_GIF;
        if (!strcasecmp(dot, ".mp4")) return VIDEO_MP4;
    }
    snprintf(
        err, errlen, "cannot write '%s': the name must end in .gif (animated GIF) or .mp4 (MP4, needs ffmpeg)", name);
    return -1;
}

VideoRec *video_open(
    int fd, const char *name, VideoFormat f, int width, int height, int step_frames, char *err, size_t errlen) {
    VideoRec *v = calloc(1, sizeof(VideoRec));
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    v->format = f;
    v->w = width;
    v->h = height;
    if (f == VIDEO_GIF)
        v->gif = gifrec_open(fd, name, width, height, err, errlen);
    else
        v->mp4 = mp4rec_open(fd, name, width, height, step_frames, err, errlen);
    if (!v->gif && !v->mp4) {
        free(v);
        return NULL;
    }
    return v;
}

int video_add(VideoRec *v, const uint8_t *rgb, int frames, char *err, size_t errlen) {
    return v->gif ? gifrec_add(v->gif, rgb, frames, err, errlen) : mp4rec_add(v->mp4, rgb, frames, err, errlen);
}

int video_close(VideoRec *v, VideoSummary *sum, char *err, size_t errlen) {
    VideoSummary s = { v->w, v->h, 0, 0.0 };
    int rc;
    if (v->gif) {
        s.pictures = gifrec_frames(v->gif) + 1; // + the one held back, which close writes
        s.seconds = gifrec_duration_cs(v->gif) / 100.0;
        rc = gifrec_close(v->gif, err, errlen);
    } else {
        s.width *= MP4_SCALE;
        s.height *= MP4_SCALE;
        s.pictures = mp4rec_pictures(v->mp4);
        s.seconds = mp4rec_seconds(v->mp4);
        rc = mp4rec_close(v->mp4, err, errlen);
    }
    free(v);
    if (!rc && sum) *sum = s;
    return rc;
}
