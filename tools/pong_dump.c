// pong_dump.c: write our RGB frames at given agent steps (frameskip 4, bat left alone)
// as raw (210, 160, 3) bytes, for tools/pong_fidelity_images.py.
//   gcc -std=c11 -O2 -Isrc tools/pong_dump.c src/pong/pong.c -o build/pong_dump
//   build/pong_dump OUT.raw STEP...
#include <stdio.h>
#include <stdlib.h>

#include "pong/pong.h"

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: pong_dump OUT.raw STEP...\n"); return 1; }
    FILE *out = fopen(argv[1], "wb");
    if (!out) { perror(argv[1]); return 1; }
    static uint8_t rgb[PONG_SCREEN_H * PONG_SCREEN_W * 3];
    Pong g;
    pong_reset(&g);
    int step = 0;
    for (int i = 2; i < argc; i++) {
        for (int target = atoi(argv[i]); step < target; step++)
            for (int k = 0; k < 4; k++) pong_frame(&g, PADDLE_RESISTANCE_DEFAULT, false);
        pong_render_rgb(&g, rgb);
        fwrite(rgb, 1, sizeof(rgb), out);
    }
    return fclose(out) != 0;
}
