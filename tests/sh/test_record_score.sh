#!/usr/bin/env bash
# A recorded game ends on a picture that shows its final score: the last picture of the GIF,
# decoded with giflib, has in its score rows the digits of the score `record` logs (drawn by the
# game itself from a state with that score), not the score before the last point. Needs the
# library (build/libpongrl.a) and giflib's header, as the build does.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -s build/libpongrl.a ] || fail "build/libpongrl.a is missing (make all)"

# the checker: the GIF's last picture against the game's own drawing of a score
cat > "$tmp/score.c" <<'C'
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pong/pong.h"
#define W PONG_SCREEN_W
#define H PONG_SCREEN_H
#define ROW0 1          // the score's rows (render.c: glyph rows 1 + 4 gr, five of four lines)
#define ROW1 20

// The screen of the last picture of a GIF whose frames paint rectangles over the one before
// (gif.h); a picture with the network's input beside the screen is wider, the screen its left.
static int last_picture(const char *path, uint8_t *canvas) {
    int err;
    GifFileType *g = DGifOpenFileName(path, &err);
    if (!g || DGifSlurp(g) != GIF_OK || g->SWidth < W || g->SHeight != H) return -1;
    const int gw = g->SWidth;
    uint8_t *full = calloc((size_t)gw * H * 3, 1);
    if (!full) return -1;
    for (int i = 0; i < g->ImageCount; i++) {
        const SavedImage *im = &g->SavedImages[i];
        const ColorMapObject *cm = im->ImageDesc.ColorMap ? im->ImageDesc.ColorMap : g->SColorMap;
        for (int y = 0; y < im->ImageDesc.Height; y++)
            for (int x = 0; x < im->ImageDesc.Width; x++) {
                GifColorType c = cm->Colors[im->RasterBits[y * im->ImageDesc.Width + x]];
                uint8_t *p = full + ((size_t)(y + im->ImageDesc.Top) * gw + x + im->ImageDesc.Left) * 3;
                p[0] = c.Red; p[1] = c.Green; p[2] = c.Blue;
            }
    }
    for (int y = 0; y < H; y++) memcpy(canvas + (size_t)y * W * 3, full + (size_t)y * gw * 3, W * 3);
    free(full);
    DGifCloseFile(g, &err);
    return 0;
}

// The score rows as a mask: a pixel is ink where it differs from its row's first (background).
static void mask(const uint8_t *rgb, char *m) {
    for (int y = ROW0; y <= ROW1; y++)
        for (int x = 0; x < W; x++)
            m[(y - ROW0) * W + x] = memcmp(rgb + ((size_t)y * W + x) * 3, rgb + (size_t)y * W * 3, 3) ? '#' : '.';
}

// The game's own picture of a score: its RAM given the score, two frames drawn (the digit
// pointers follow the RAM at a frame's end, the next frame draws them).
static void drawn(int cpu, int agent, char *m) {
    static uint8_t rgb[H * W * 3];
    Pong g;
    pong_reset(&g);
    g.ram[0x8D - 0x80] = (uint8_t)cpu;
    g.ram[0x8E - 0x80] = (uint8_t)agent;
    for (int f = 0; f < 2; f++) pong_frame(&g, PADDLE_RESISTANCE_DEFAULT, false);
    pong_render_rgb(&g, rgb);
    mask(rgb, m);
}

static void show(const char *what, const char *m) {
    printf("%s\n", what);
    for (int y = 0; y <= ROW1 - ROW0; y += 4) printf("  %.*s\n", W, m + y * W);
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    int cpu = atoi(argv[2]), agent = atoi(argv[3]);
    static uint8_t canvas[H * W * 3];
    static char got[(ROW1 - ROW0 + 1) * W], want[sizeof got], before[sizeof got];
    if (last_picture(argv[1], canvas)) { printf("cannot decode %s\n", argv[1]); return 1; }
    mask(canvas, got);
    drawn(cpu, agent, want);
    // the score before the last point: what the picture showed before this was fixed
    drawn(cpu - (cpu == PONG_WIN_SCORE), agent - (agent == PONG_WIN_SCORE), before);
    show("the GIF's last picture, score rows:", got);
    if (memcmp(got, want, sizeof got)) {
        show("the game's picture of the logged score:", want);
        if (!memcmp(got, before, sizeof got)) printf("the last picture shows the score before the last point\n");
        return 1;
    }
    if (!memcmp(want, before, sizeof want)) { printf("no point was won: the check proves nothing\n"); return 1; }
    printf("the last picture shows cpu %d, agent %d\n", cpu, agent);
    return 0;
}
C
${CC:-cc} -std=c11 -D_GNU_SOURCE -Isrc -o "$tmp/score" "$tmp/score.c" build/libpongrl.a -lgif -lz -lm || fail "the checker does not build"

# the models win their games 21-x; a network trained for one batch loses one to 21: either
# side's 21 must be drawn; with the network's input beside the screen too
"$bin" train --hidden 4 --batch-size 1 --iterations 1 --workers 1 --quiet --run-dir "$tmp/weak" >/dev/null || fail "train"
for m in "models/pong-v5 --seed 3" "models/pong-v5-ppo --seed 1" "$tmp/weak --seed 2" "models/pong-v5 --seed 3 --with-input"; do
    set -- $m
    r=$("$bin" record "$@" --out "$tmp/g.gif") || fail "record $m"
    echo "$r" | sed -n 2p
    echo "$r" | grep -q 'game over after' || fail "$m: the game did not end"
    agent=$(echo "$r" | sed -n 's/.*, agent \([0-9]*\), cpu \([0-9]*\)$/\1/p')
    cpu=$(echo "$r" | sed -n 's/.*, agent \([0-9]*\), cpu \([0-9]*\)$/\2/p')
    [ -n "$agent" ] && [ -n "$cpu" ] || fail "$m: no score in the log: $r"
    "$tmp/score" "$tmp/g.gif" "$cpu" "$agent" || fail "$m: the GIF does not end on the final score $cpu-$agent"
done
echo "ok"
