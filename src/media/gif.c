// gif.c: the GIF writer behind gif.h. One picture is held back until the next arrives,
// because only then is its display time known (and it may grow if the next is the same).
#include "gif.h"

#include <errno.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/file.h"

struct GifRec {
    GifFileType *gif;
    char path[FILE_PATH_MAX]; // the file's name, for messages
    int w, h;
    uint8_t *shown;   // (h, w, 3) what the viewer shows after the frames written
    uint8_t *pending; // (h, w, 3) the next frame to write
    bool has_pending, has_shown;
    int64_t pending_cs; // its display time so far
    int64_t frames60;   // emulated frames added in total
    int64_t cs_given;   // centiseconds handed out to frames
    GifByteType *line;  // (w,) palette indices of one row
    int written;
};

// giflib's own words, or for a failed write or close the system's reason, which giflib leaves in
// errno ("File too large", "No space left on device") where it says only "Write failed (disk full?)".
// e: errno as the failing call left it (the callers clear it before each call to giflib).
static void gif_err(char *err, size_t errlen, const char *what, const char *path, int code, int e) {
    if (e && (code == E_GIF_ERR_WRITE_FAILED || code == E_GIF_ERR_DISK_IS_FULL || code == E_GIF_ERR_CLOSE_FAILED))
        snprintf(err, errlen, "%s %s: %s", what, path, strerror(e));
    else
        snprintf(err, errlen, "%s %s: %s", what, path, GifErrorString(code));
}

GifRec *gifrec_open(int fd, const char *name, int width, int height, char *err, size_t errlen) {
    GifRec *g = calloc(1, sizeof(GifRec));
    size_t px = (size_t)width * height * 3;
    if (!g || !(g->shown = malloc(px)) || !(g->pending = malloc(px)) || !(g->line = malloc((size_t)width))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    g->w = width;
    g->h = height;
    snprintf(g->path, sizeof(g->path), "%s", name); // cut if long: only for messages
    int code = 0;
    // giflib closes what it is given: a copy, so that the caller's descriptor stays its own
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        snprintf(err, errlen, "cannot write %s: %s", name, strerror(errno));
        goto fail;
    }
    if (!(g->gif = EGifOpenFileHandle(own, &code))) {
        close(own);
        gif_err(err, errlen, "cannot write", name, code, 0);
        goto fail;
    }
    EGifSetGifVersion(g->gif, true); // GIF89a: delays and looping
    errno = 0;
    if (EGifPutScreenDesc(g->gif, width, height, 8, 0, NULL) == GIF_ERROR) goto fail_write;
    // NETSCAPE2.0 application block: loop count 0 = forever
    static const GifByteType loop[3] = { 1, 0, 0 };
    if (EGifPutExtensionLeader(g->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(g->gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
        EGifPutExtensionBlock(g->gif, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(g->gif) == GIF_ERROR)
        goto fail_write;
    return g;
fail_write:
    gif_err(err, errlen, "cannot write", name, g->gif->Error, errno);
fail:
    if (g && g->gif) {
        int c;
        EGifCloseFile(g->gif, &c);
    }
    if (g) {
        free(g->shown);
        free(g->pending);
        free(g->line);
        free(g);
    }
    return NULL;
}

// The rectangle where a differs from b; false if they are equal.
static bool diff_box(const GifRec *g, const uint8_t *a, const uint8_t *b, int *x0, int *y0, int *x1, int *y1) {
    *x0 = g->w;
    *y0 = g->h;
    *x1 = -1;
    *y1 = -1;
    for (int y = 0; y < g->h; y++) {
        const uint8_t *ra = a + (size_t)y * g->w * 3, *rb = b + (size_t)y * g->w * 3;
        if (!memcmp(ra, rb, (size_t)g->w * 3)) continue;
        if (y < *y0) *y0 = y;
        *y1 = y;
        for (int x = 0; x < g->w; x++)
            if (memcmp(ra + 3 * x, rb + 3 * x, 3)) {
                if (x < *x0) *x0 = x;
                if (x > *x1) *x1 = x;
            }
    }
    return *y1 >= 0;
}

static int write_pending(GifRec *g, char *err, size_t errlen) {
    int x0 = 0, y0 = 0, x1 = g->w - 1, y1 = g->h - 1;
    if (g->has_shown && !diff_box(g, g->pending, g->shown, &x0, &y0, &x1, &y1)) {
        x0 = x1 = y0 = y1 = 0; // same picture (its time was merged): 1 pixel
    }
    int bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    // the rectangle's colours, in order of appearance
    GifColorType colors[256];
    int ncolors = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            const uint8_t *p = g->pending + ((size_t)y * g->w + x) * 3;
            int k = 0;
            while (k < ncolors && (colors[k].Red != p[0] || colors[k].Green != p[1] || colors[k].Blue != p[2])) k++;
            if (k == ncolors) {
                if (ncolors == 256) {
                    snprintf(err, errlen, "cannot write %s: a frame has more than 256 colours", g->path);
                    return -1;
                }
                colors[ncolors++] = (GifColorType){ p[0], p[1], p[2] };
            }
        }
    int size = 2;
    while (size < ncolors) size *= 2; // giflib wants a power of two
    for (int k = ncolors; k < size; k++) colors[k] = colors[0];
    ColorMapObject *cmap = GifMakeMapObject(size, colors);
    if (!cmap) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int64_t left = g->pending_cs;
    GraphicsControlBlock gcb = { DISPOSE_DO_NOT, false, 0, NO_TRANSPARENT_COLOR };
    gcb.DelayTime = (int)(left > 65535 ? 65535 : left);
    GifByteType ext[4];
    size_t n = EGifGCBToExtension(&gcb, ext);
    int rc = 0, e = 0;
    errno = 0;
    if (EGifPutExtension(g->gif, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) == GIF_ERROR ||
        EGifPutImageDesc(g->gif, x0, y0, bw, bh, false, cmap) == GIF_ERROR)
        rc = -1, e = errno;
    for (int y = y0; y <= y1 && !rc; y++) {
        for (int x = x0; x <= x1; x++) {
            const uint8_t *p = g->pending + ((size_t)y * g->w + x) * 3;
            int k = 0;
            while (colors[k].Red != p[0] || colors[k].Green != p[1] || colors[k].Blue != p[2]) k++;
            g->line[x - x0] = (GifByteType)k;
        }
        errno = 0;
        if (EGifPutLine(g->gif, g->line, bw) == GIF_ERROR) rc = -1, e = errno;
    }
    GifFreeMapObject(cmap);
    if (rc) {
        gif_err(err, errlen, "cannot write", g->path, g->gif->Error, e);
        return -1;
    }
    g->written++;
    memcpy(g->shown, g->pending, (size_t)g->w * g->h * 3);
    g->has_shown = true;
    return 0;
}

int gifrec_add(GifRec *g, const uint8_t *rgb, int frames, char *err, size_t errlen) {
    g->frames60 += frames;
    int64_t cs_total = (g->frames60 * 100 + GIF_FRAME_HZ / 2) / GIF_FRAME_HZ; // rounded running total
    int64_t cs = cs_total - g->cs_given;
    g->cs_given = cs_total;
    size_t px = (size_t)g->w * g->h * 3;
    if (g->has_pending && !memcmp(rgb, g->pending, px)) {
        g->pending_cs += cs;
        return 0;
    }
    if (g->has_pending && write_pending(g, err, errlen)) return -1;
    memcpy(g->pending, rgb, px);
    g->pending_cs = cs;
    g->has_pending = true;
    return 0;
}

int gifrec_close(GifRec *g, char *err, size_t errlen) {
    int rc = 0;
    if (g->has_pending) rc = write_pending(g, err, errlen);
    int code = 0;
    errno = 0;
    if (EGifCloseFile(g->gif, &code) == GIF_ERROR && !rc) {
        gif_err(err, errlen, "cannot write", g->path, code, errno);
        rc = -1;
    }
    free(g->shown);
    free(g->pending);
    free(g->line);
    free(g);
    return rc;
}

int gifrec_frames(const GifRec *g) { return g->written; }
int64_t gifrec_duration_cs(const GifRec *g) { return g->cs_given; }
