// window.c: window.h with SDL2 (when the Makefile found it: HAVE_SDL), or without it a stub
// that says how to get it. Only the pongrl binary links this file: the libraries, and so
// Python, need no SDL.
#include "window.h"

#include <stdio.h>
#include <stdlib.h>

#include "../util/clock.h"

#ifdef HAVE_SDL
#include <SDL.h>

struct Window {
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int w, h;
    bool quit;
};

static bool named(const char *v) { return v && v[0]; }

// The video drivers to try, those the environment names a display for: x11 for DISPLAY,
// wayland for WAYLAND_DISPLAY (a relative name only with XDG_RUNTIME_DIR, without which
// libwayland cannot find it and prints a line of its own). Left to itself SDL would go on to
// its "offscreen" driver when no display answers, and the game would play to no one.
static void window_drivers(char *buf, size_t n) {
    const char *wl = getenv("WAYLAND_DISPLAY");
    bool x11 = named(getenv("DISPLAY")), wayland = named(wl) && (wl[0] == '/' || named(getenv("XDG_RUNTIME_DIR")));
    snprintf(buf, n, "%s%s%s", x11 ? "x11" : "", x11 && wayland ? "," : "", wayland ? "wayland" : "");
}

Window *window_open(const char *title, int width, int height, int scale, char *err, size_t errlen) {
    static const char *const instead = "`pongrl record MODEL --out game.mp4` writes the game to a file instead";
    const char *asked = getenv("SDL_VIDEODRIVER"), *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    char where[256], drivers[32];
    snprintf(where, sizeof(where), "%s%s%s%s%s", named(x) ? "DISPLAY=" : "", named(x) ? x : "",
        named(x) && named(wl) ? ", " : "", named(wl) ? "WAYLAND_DISPLAY=" : "", named(wl) ? wl : "");
    if (!named(asked)) { // the user's SDL_VIDEODRIVER is taken as given (SDL reads it itself)
        // before SDL_Init, for a plain message: SDL's own is "No available video device"
        if (!where[0]) {
            snprintf(
                err, errlen, "cannot open a window: no display (DISPLAY and WAYLAND_DISPLAY are unset); %s", instead);
            return NULL;
        }
        window_drivers(drivers, sizeof(drivers));
        if (!drivers[0]) {
            snprintf(err, errlen, "cannot open a window: no usable display at %s (XDG_RUNTIME_DIR is unset); %s", where,
                instead);
            return NULL;
        }
        SDL_SetHint(SDL_HINT_VIDEODRIVER, drivers);
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) { // SDL_INIT_EVENTS with it: Ctrl-C becomes SDL_QUIT
        if (named(asked))
            snprintf(err, errlen, "cannot open a window: SDL_VIDEODRIVER=%s: %s", asked, SDL_GetError());
        else
            snprintf(err, errlen, "cannot open a window: no usable display at %s (SDL: %s); %s", where, SDL_GetError(),
                instead);
        SDL_Quit(); // what the failed start left (SDL's D-Bus connection)
        return NULL;
    }
    Window *w = calloc(1, sizeof(Window));
    if (!w) {
        SDL_Quit();
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->w = width;
    w->h = height;
    SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "nearest"); // pixels stay square blocks
    w->win = SDL_CreateWindow(
        title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width * scale, height * scale, SDL_WINDOW_RESIZABLE);
    if (w->win) w->ren = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_PRESENTVSYNC);
    if (w->win && !w->ren) w->ren = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_SOFTWARE);
    if (w->ren) {
        SDL_RenderSetLogicalSize(w->ren, width, height); // letterboxed when resized
        w->tex = SDL_CreateTexture(w->ren, SDL_PIXELFORMAT_RGB24, SDL_TEXTUREACCESS_STREAMING, width, height);
    }
    if (!w->tex) {
        snprintf(err, errlen, "cannot open a window: %s", SDL_GetError());
        window_close(w);
        return NULL;
    }
    return w;
}

int window_show(Window *w, const uint8_t *rgb, char *err, size_t errlen) {
    if (SDL_UpdateTexture(w->tex, NULL, rgb, w->w * 3) || SDL_RenderClear(w->ren) ||
        SDL_RenderCopy(w->ren, w->tex, NULL, NULL)) {
        snprintf(err, errlen, "cannot draw in the window: %s", SDL_GetError());
        return -1;
    }
    SDL_RenderPresent(w->ren);
    return 0;
}

bool window_wait(Window *w, double until) {
    for (;;) {
        SDL_Event e;
        double left = until - clock_now_s();
        // poll when the time is up; otherwise sleep in SDL until an event or the time
        int got = left <= 0 ? SDL_PollEvent(&e) : SDL_WaitEventTimeout(&e, (int)(left * 1000) + 1);
        if (got) {
            if (e.type == SDL_QUIT ||
                (e.type == SDL_KEYDOWN && (e.key.keysym.sym == SDLK_ESCAPE || e.key.keysym.sym == SDLK_q)) ||
                (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_CLOSE))
                w->quit = true;
            if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_EXPOSED) {
                SDL_RenderClear(w->ren); // redraw after a resize or an uncover
                SDL_RenderCopy(w->ren, w->tex, NULL, NULL);
                SDL_RenderPresent(w->ren);
            }
        }
        if (w->quit) return false;
        if (!got && clock_now_s() >= until) return true;
    }
}

void window_close(Window *w) {
    if (!w) return;
    if (w->tex) SDL_DestroyTexture(w->tex);
    if (w->ren) SDL_DestroyRenderer(w->ren);
    if (w->win) SDL_DestroyWindow(w->win);
    free(w);
    SDL_Quit();
}

#else // built without SDL2

struct Window {
    int unused;
};

Window *window_open(const char *title, int width, int height, int scale, char *err, size_t errlen) {
    snprintf(err, errlen,
        "this pongrl was built without SDL2: no window (Debian: apt-get install "
        "libsdl2-dev, then make); `pongrl record MODEL --out game.mp4` writes the game to a file");
    return NULL;
}

int window_show(Window *w, const uint8_t *rgb, char *err, size_t errlen) { return -1; }
bool window_wait(Window *w, double until) { return false; }
void window_close(Window *w) {}

#endif
