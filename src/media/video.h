// video.h: a game recorded as a file whose name says its format: an animated GIF (gif.h) or
// an MP4 (mp4.h, needs ffmpeg). What `pongrl record` writes.
#ifndef PONGRL_VIDEO_H
#define PONGRL_VIDEO_H

#include <stddef.h>
#include <stdint.h>

typedef enum { VIDEO_GIF, VIDEO_MP4 } VideoFormat;

typedef struct VideoRec VideoRec;

typedef struct {
    int width, height; // of the file's pictures (an MP4 is scaled up)
    int64_t pictures;  // pictures the file holds (a GIF merges identical neighbours)
    double seconds;    // play time
} VideoSummary;

// The format a file name asks for by its extension, .gif or .mp4 (any case); -1 with one
// line in err for any other name.
int video_format(const char *name, char *err, size_t errlen);

// A new recording of (width, height) RGB pictures in format f, written to fd: a file open to
// write, at its start (file.h's temporary: never a name, which another program could swap
// meanwhile); name is the file's, for messages. step_frames is how many emulated frames a
// picture usually lasts (the env's smallest frameskip: an MP4's rate is 60 divided by it).
// The caller closes fd (file_replace_commit) after video_close. NULL with one line in err.
VideoRec *video_open(
    int fd, const char *name, VideoFormat f, int width, int height, int step_frames, char *err, size_t errlen);
// Adds a picture, rgb (height, width, 3) row-major, shown for `frames` emulated frames (1/60 s).
int video_add(VideoRec *v, const uint8_t *rgb, int frames, char *err, size_t errlen);
// Finishes the file and frees v whatever happens; 0 with *sum filled (sum may be NULL), or
// -1 with one line in err.
int video_close(VideoRec *v, VideoSummary *sum, char *err, size_t errlen);

#endif
