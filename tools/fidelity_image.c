// fidelity_image.c: one frame of a real ALE trace beside pongrl's, as a PNG.
//
// Replays the trace's actions through the C API (PongNoFrameskip-v4: one frame a step, no
// sticky actions, as the traces were recorded) up to FRAME and compares the crc32 of our RGB
// frame with the real one. Where the trace has its screens (NAME.screens.u8.gz, palette
// indices: shared/reference/ale-real/traces), the PNG shows the real frame, ours, and their
// difference (black where equal, red where not); otherwise ours alone.
//   make build/fidelity_image
//   build/fidelity_image DIR NAME FRAME OUT.png
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "env/env.h"

#define W   PONG_SCREEN_W
#define H   PONG_SCREEN_H
#define GAP 4

static uint8_t *read_all(const char *path, size_t *n) {
    gzFile f = gzopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, len = 0;
    uint8_t *b = malloc(cap);
    int r;
    while (b && (r = gzread(f, b + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)r;
        if (len == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            } else
                b = nb;
        }
    }
    gzclose(f);
    *n = len;
    return b;
}

static void put_u32(FILE *f, uint32_t v) {
    uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    fwrite(b, 1, 4, f);
}

static void png_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t n) {
    put_u32(f, n);
    fwrite(type, 1, 4, f);
    if (n) fwrite(data, 1, n, f);
    uint32_t c = (uint32_t)crc32(0, (const uint8_t *)type, 4);
    put_u32(f, (uint32_t)crc32(c, data, n));
}

// RGB image (h, w, 3) as an 8-bit truecolour PNG.
static int png_write(const char *path, const uint8_t *rgb, int w, int h) {
    size_t raw_n = (size_t)h * (3 * (size_t)w + 1);
    uint8_t *raw = malloc(raw_n);
    uLongf z_n = compressBound(raw_n);
    uint8_t *z = malloc(z_n);
    if (!raw || !z) {
        free(raw);
        free(z);
        return -1;
    }
    for (int y = 0; y < h; y++) {
        raw[y * (3 * w + 1)] = 0;
        memcpy(raw + y * (3 * w + 1) + 1, rgb + (size_t)y * 3 * w, 3 * (size_t)w);
    }
    int ok = compress2(z, &z_n, raw, raw_n, 9) == Z_OK;
    FILE *f = ok ? fopen(path, "wb") : NULL;
    if (f) {
        static const uint8_t SIG[8] = { 0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a };
        uint8_t ihdr[13] = { 0 };
        for (int i = 0; i < 4; i++) {
            ihdr[i] = (uint8_t)(w >> (24 - 8 * i));
            ihdr[4 + i] = (uint8_t)(h >> (24 - 8 * i));
        }
        ihdr[8] = 8;
        ihdr[9] = 2;
        fwrite(SIG, 1, 8, f);
        png_chunk(f, "IHDR", ihdr, 13);
        png_chunk(f, "IDAT", z, (uint32_t)z_n);
        png_chunk(f, "IEND", NULL, 0);
        ok = fclose(f) == 0;
    } else
        ok = 0;
    free(raw);
    free(z);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: fidelity_image DIR NAME FRAME OUT.png\n");
        return 2;
    }
    char path[1024];
    size_t n_act = 0, n_crc = 0, n_scr = 0;
    snprintf(path, sizeof path, "%s/%s.actions.u8", argv[1], argv[2]);
    uint8_t *actions = read_all(path, &n_act);
    snprintf(path, sizeof path, "%s/%s.crc.u32", argv[1], argv[2]);
    uint8_t *crcs = read_all(path, &n_crc);
    if (!actions || !crcs) {
        fprintf(stderr, "fidelity_image: cannot read the trace %s/%s\n", argv[1], argv[2]);
        return 1;
    }
    char *end;
    long frame = strtol(argv[3], &end, 10);
    if (*end || frame < 0 || (size_t)frame > n_act || n_crc != 4 * (n_act + 1)) {
        fprintf(stderr, "fidelity_image: frame must be in [0, %zu]\n", n_act);
        return 2;
    }
    snprintf(path, sizeof path, "%s/%s.screens.u8.gz", argv[1], argv[2]);
    uint8_t *screens = read_all(path, &n_scr);
    if (screens && n_scr != (n_act + 1) * W * H) {
        free(screens);
        screens = NULL;
    }

    Env env;
    env_init(&env, "PongNoFrameskip-v4", 0);
    for (long t = 0; t < frame; t++) env_step(&env, actions[t], NULL);
    static uint8_t ours[H * W * 3];
    env_render_rgb(&env, ours);
    uint32_t c_ours = (uint32_t)crc32(0, ours, sizeof ours), c_real;
    memcpy(&c_real, crcs + 4 * frame, 4);
    printf("%s frame %ld: crc32 ours %08x, real %08x: %s\n", argv[2], frame, c_ours, c_real,
        c_ours == c_real ? "identical" : "DIFFERENT");

    int panels = screens ? 3 : 1, w = panels * W + (panels - 1) * GAP;
    uint8_t *img = calloc((size_t)w * H * 3, 1);
    if (!img) return 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *o = ours + 3 * (y * W + x);
            if (!screens) {
                memcpy(img + 3 * (y * w + x), o, 3);
                continue;
            }
            uint8_t real[3];
            pong_palette_rgb(screens[(size_t)frame * W * H + y * W + x], real);
            memcpy(img + 3 * (y * w + x), real, 3);
            memcpy(img + 3 * (y * w + W + GAP + x), o, 3);
            uint8_t *d = img + 3 * (y * w + 2 * (W + GAP) + x);
            if (memcmp(real, o, 3)) d[0] = 255;
        }
    if (png_write(argv[4], img, w, H)) {
        fprintf(stderr, "fidelity_image: cannot write %s\n", argv[4]);
        return 1;
    }
    free(img);
    free(actions);
    free(crcs);
    free(screens);
    return c_ours == c_real ? 0 : 1;
}
