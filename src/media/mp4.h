// mp4.h: MP4 (H.264) recording at the game's real speed, through the `ffmpeg` program found
// on PATH (Debian's ffmpeg package; optional: only .mp4 output needs it).
//
// Raw RGB pictures go down a pipe into ffmpeg at a constant rate of 60/k per second, k the
// emulated frames an agent step usually lasts (4 for ALE/Pong-v5: 15 pictures/s, each sent
// once; 1 for NoFrameskip: 60/s), and come out scaled up MP4_SCALE times with square pixels:
// H.264 keeps colour at half resolution, which would smear a 2-pixel ball.
#ifndef PONGRL_MP4_H
#define PONGRL_MP4_H

#include <stddef.h>
#include <stdint.h>

#define MP4_FRAME_HZ 60 // an emulated Atari frame is 1/60 s
#define MP4_SCALE    4  // 160x210 -> 640x840, nearest neighbour
// ffmpeg is killed if it has not finished MP4_LIMIT_S + MP4_LIMIT_PER_PICTURE_S x pictures
// seconds after it started (it encodes hundreds a second: the limit is for a hung ffmpeg)
#define MP4_LIMIT_S             60.0
#define MP4_LIMIT_PER_PICTURE_S 0.1

typedef struct Mp4Rec Mp4Rec;

// A new MP4 of (width, height) pictures (both even), 60/k pictures per second (k in [1, 60]),
// written by ffmpeg to fd (a file open to write: file.h's temporary), handed to it as its
// descriptor 3; name is the file's, for messages. NULL with one line in err (ffmpeg not on
// PATH).
Mp4Rec *mp4rec_open(int fd, const char *name, int width, int height, int k, char *err, size_t errlen);

// Adds a picture, rgb (height, width, 3) row-major, shown for `frames` emulated frames: sent
// as many times as the rounded running total asks (so the video keeps real time, and a step
// shorter than k frames may not be sent at all). -1 with ffmpeg's last words in err if it has
// stopped.
int mp4rec_add(Mp4Rec *m, const uint8_t *rgb, int frames, char *err, size_t errlen);

// Ends the stream and waits for ffmpeg (killed past its deadline). 0, or -1 with one line in
// err (ffmpeg's own last line of complaint when it failed). Frees m whatever happens.
int mp4rec_close(Mp4Rec *m, char *err, size_t errlen);

// Pictures sent so far, and the video's length in seconds.
int64_t mp4rec_pictures(const Mp4Rec *m);
double mp4rec_seconds(const Mp4Rec *m);

#endif
