// window.h: a window on the screen showing RGB pictures scaled up, for watching a game live.
// SDL2 behind it (Debian's libsdl2-dev), optional at build time: built without it, or run
// without a display, window_open says so in one line. The window keeps the picture's aspect
// when resized; closing it, Esc, q or Ctrl-C in the terminal ask it to close.
#ifndef PONGRL_WINDOW_H
#define PONGRL_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Window Window;

// A window titled `title` for (width, height) pictures, shown `scale` times larger at first.
// NULL with one line in err: no SDL2 in this build, no display, or none that answers where
// DISPLAY or WAYLAND_DISPLAY point (SDL's offscreen driver, which shows nothing, is never
// taken for a window unless SDL_VIDEODRIVER asks for it), SDL failing.
Window *window_open(const char *title, int width, int height, int scale, char *err, size_t errlen);

// Shows rgb (height, width, 3) row-major at once. 0, or -1 with one line in err.
int window_show(Window *w, const uint8_t *rgb, char *err, size_t errlen);

// Handles the window's events until clock_now_s() reaches `until` (at once if it has passed):
// false as soon as the user asks to close, else true.
bool window_wait(Window *w, double until);

void window_close(Window *w);

#endif
