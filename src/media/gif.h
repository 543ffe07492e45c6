// gif.h: animated GIF recording with giflib, at the game's real speed.
//
// Frames are full-colour RGB; each is written with its own small colour table (a Pong frame
// has a handful of colours) and only as the rectangle that changed since the previous one,
// which keeps a whole game at a few hundred kilobytes. A frame equal to the one before is
// not written again: its time is added to the one before.
#ifndef PONGRL_GIF_H
#define PONGRL_GIF_H

#include <stddef.h>
#include <stdint.h>

#define GIF_FRAME_HZ 60 // an emulated Atari frame is 1/60 s

typedef struct GifRec GifRec;

// A new GIF of width x height that loops forever, written to fd (a file open to write, at its
// start: file.h's temporary; gif keeps a copy of it, the caller still closes its own); name
// is the file's, for messages. NULL with one line in err.
GifRec *gifrec_open(int fd, const char *name, int width, int height, char *err, size_t errlen);

// Adds a picture, rgb (height, width, 3) row-major, shown for `frames` emulated frames.
// GIF delays are whole centiseconds: they are rounded on the running total, so the GIF
// keeps real time however the frame lengths fall (4 frames: 7, 6, 7, 7, 6, 7 ... cs).
int gifrec_add(GifRec *g, const uint8_t *rgb, int frames, char *err, size_t errlen);

// Writes what is pending and closes gif's copy of the descriptor. Frees g whatever happens. 0
// or -1 with one line in err.
int gifrec_close(GifRec *g, char *err, size_t errlen);

// Frames written so far (identical neighbours merged) and the GIF's play time in cs.
int gifrec_frames(const GifRec *g);
int64_t gifrec_duration_cs(const GifRec *g);

#endif
