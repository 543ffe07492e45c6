// test_media.c: the GIF recorder, checked by decoding what it wrote with giflib: size,
// frame count, looping, real-time delays, and every frame's picture after compositing; and
// the plot: a title that gnuplot could read as a command is only text, a FIFO is refused.
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env/env.h"
#include "media/gif.h"

#define W     PONG_SCREEN_W
#define H     PONG_SCREEN_H
#define STEPS 300

// Decodes path and composites its frames (disposal "do not dispose": each frame paints its
// rectangle over the canvas); canvases[i] (H, W, 3) after frame i, delays[i] in cs.
static int decode(const char *path, uint8_t **canvases, int *delays, int max, bool *loops) {
    int err;
    GifFileType *g = DGifOpenFileName(path, &err);
    cr_assert_not_null(g, "open: %s", GifErrorString(err));
    cr_assert_eq(DGifSlurp(g), GIF_OK, "slurp: %s", GifErrorString(g->Error));
    cr_assert_eq(g->SWidth, W);
    cr_assert_eq(g->SHeight, H);
    *loops = false;
    for (int i = 0; i < g->ExtensionBlockCount; i++)
        if (g->ExtensionBlocks[i].Function == APPLICATION_EXT_FUNC_CODE && g->ExtensionBlocks[i].ByteCount == 11 &&
            !memcmp(g->ExtensionBlocks[i].Bytes, "NETSCAPE2.0", 11))
            *loops = true;
    for (int i = 0; i < g->ImageCount && i < max; i++)
        for (int k = 0; k < g->SavedImages[i].ExtensionBlockCount; k++)
            if (g->SavedImages[i].ExtensionBlocks[k].Function == APPLICATION_EXT_FUNC_CODE) *loops = true;
    uint8_t *canvas = calloc(W * H * 3, 1);
    int n = g->ImageCount;
    cr_assert_leq(n, max);
    for (int i = 0; i < n; i++) {
        SavedImage *im = &g->SavedImages[i];
        GraphicsControlBlock gcb;
        cr_assert_eq(DGifSavedExtensionToGCB(g, i, &gcb), GIF_OK);
        delays[i] = gcb.DelayTime;
        ColorMapObject *cm = im->ImageDesc.ColorMap ? im->ImageDesc.ColorMap : g->SColorMap;
        cr_assert_not_null(cm);
        for (int y = 0; y < im->ImageDesc.Height; y++)
            for (int x = 0; x < im->ImageDesc.Width; x++) {
                GifColorType c = cm->Colors[im->RasterBits[y * im->ImageDesc.Width + x]];
                uint8_t *p = canvas + ((size_t)(y + im->ImageDesc.Top) * W + x + im->ImageDesc.Left) * 3;
                p[0] = c.Red;
                p[1] = c.Green;
                p[2] = c.Blue;
            }
        canvases[i] = malloc(W * H * 3);
        memcpy(canvases[i], canvas, W * H * 3);
    }
    free(canvas);
    DGifCloseFile(g, &err);
    return n;
}

Test(gif, a_pong_game_decodes_to_the_same_pictures_at_real_speed) {
    char path[] = "/tmp/pongrl-test-XXXXXX.gif";
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    char err[256];
    GifRec *g = gifrec_open(fd, path, W, H, err, sizeof(err));
    cr_assert_not_null(g, "%s", err);
    Env env;
    cr_assert_eq(env_init(&env, "PongDeterministic-v4", 3), ENV_OK); // frameskip 4: 6.67 cs a step
    Rng rng;
    rng_seed(&rng, 5);
    uint8_t *frames = malloc((size_t)STEPS * W * H * 3);
    int64_t total_frames = 0;
    for (int t = 0; t < STEPS; t++) {
        env_render_rgb(&env, frames + (size_t)t * W * H * 3);
        EnvStep s;
        cr_assert_eq(env_step(&env, (int)rng_below(&rng, ACTION_COUNT), &s), ENV_OK);
        cr_assert_eq(gifrec_add(g, frames + (size_t)t * W * H * 3, s.frames, err, sizeof(err)), 0, "%s", err);
        total_frames += s.frames;
    }
    cr_assert_eq(gifrec_close(g, err, sizeof(err)), 0, "%s", err);
    close(fd); // gif wrote through its own copy of the descriptor
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);

    uint8_t *canvases[STEPS];
    int delays[STEPS];
    bool loops;
    int n = decode(path, canvases, delays, STEPS, &loops);
    cr_assert(loops, "no NETSCAPE2.0 loop block");
    // identical neighbours are merged, so walk the source steps alongside the GIF frames
    int t = 0;
    int64_t cs = 0;
    for (int i = 0; i < n; i++) {
        cr_assert_lt(t, STEPS);
        cr_assert_eq(memcmp(canvases[i], frames + (size_t)t * W * H * 3, W * H * 3), 0, "frame %d != step %d", i, t);
        t++;
        while (t < STEPS && !memcmp(frames + (size_t)t * W * H * 3, frames + (size_t)(t - 1) * W * H * 3, W * H * 3))
            t++;
        cs += delays[i];
        cr_assert(delays[i] >= 1 && delays[i] <= 65535);
    }
    cr_assert_eq(t, STEPS, "the GIF covers %d of %d steps", t, STEPS);
    // real time: the total is the rounded total, not a sum of rounded parts
    cr_assert_eq(cs, (total_frames * 100 + 30) / 60, "%lld cs for %lld frames", (long long)cs, (long long)total_frames);
    printf("gif: %d frames for %d steps, %lld cs for %lld frames, %lld bytes\n", n, STEPS, (long long)cs,
        (long long)total_frames, (long long)st.st_size);
    for (int i = 0; i < n; i++) free(canvases[i]);
    free(frames);
    unlink(path);
}

Test(gif, an_unwritable_file_is_one_clear_error) {
    char err[256] = "";
    int fd = open("/dev/full", O_WRONLY | O_CLOEXEC); // every write: ENOSPC
    cr_assert_geq(fd, 0);
    GifRec *g = gifrec_open(fd, "full/x.gif", W, H, err, sizeof(err));
    if (g) { // giflib buffers: the failure may come with the first picture or the close
        uint8_t *rgb = calloc(W * H * 3, 1);
        int rc = 0;
        for (int i = 0; i < 200 && !rc; i++) {
            rgb[i * 3] = (uint8_t)i;
            rc = gifrec_add(g, rgb, 4, err, sizeof(err));
        }
        if (!rc)
            rc = gifrec_close(g, err, sizeof(err));
        else
            gifrec_close(g, err + strlen(err), 0);
        free(rgb);
        cr_assert_eq(rc, -1);
    }
    close(fd);
    cr_assert(strstr(err, "cannot write full/x.gif") != NULL, "%s", err);
    cr_assert_null(strchr(err, '\n'));
}

Test(gif, a_bad_descriptor_is_one_clear_error) {
    char err[256] = "";
    GifRec *g = gifrec_open(-1, "x.gif", W, H, err, sizeof(err));
    cr_assert_null(g);
    cr_assert(strstr(err, "cannot write x.gif: Bad file descriptor") != NULL, "%s", err);
}

// ----------------------------------------------------------------------------
// plot: gnuplot given its data on stdin, its picture taken from its stdout

#include <dirent.h>

#include "media/plot.h"

// A directory of its own with a metrics.csv of n rows; its path in dir.
static void plot_dir(char *dir, int n) {
    strcpy(dir, "/tmp/pongrl-plot-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char csv[128];
    snprintf(csv, sizeof(csv), "%s/metrics.csv", dir);
    FILE *f = fopen(csv, "w");
    cr_assert_not_null(f);
    fprintf(f, "iteration,episodes,agent_steps,wall_s,batch_mean_reward,running_mean,mean_episode_length\n");
    for (int i = 1; i <= n; i++)
        if (i % 3) // a rollout learner's iteration that ended no episode leaves fields empty
            fprintf(f, "%d,%d,%d,%.3f,%.4f,%.6f,%.1f\n", i, 2 * i, 900 * i, 0.5 * i, -21.0 + i % 5, -21.0 + 0.01 * i,
                900.0);
        else
            fprintf(f, "%d,%d,%d,%.3f,,%.6f,\n", i, 2 * i - 1, 900 * i, 0.5 * i, -21.0 + 0.01 * i);
    fclose(f);
}

// Files in dir whose name ends in .tmp
static int tmps_in(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".tmp");
    closedir(d);
    return n;
}

Test(plot, a_title_with_quotes_and_backquotes_is_only_text) {
    char dir[64], csv[128], png[128], err[512] = "";
    plot_dir(dir, 40);
    snprintf(csv, sizeof(csv), "%s/metrics.csv", dir);
    snprintf(png, sizeof(png), "%s/curve.png", dir);
    unlink("/tmp/pongrl-plot-pwned");
    int rc = plot_curve(csv, png, "run 'a\"`touch /tmp/pongrl-plot-pwned`\n$(x)", err, sizeof(err));
    if (rc < 0 && strstr(err, "gnuplot not found")) cr_skip_test("gnuplot not installed");
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_neq(access("/tmp/pongrl-plot-pwned", F_OK), 0, "gnuplot ran a command of the title");
    FILE *f = fopen(png, "rb");
    uint8_t head[8];
    cr_assert_eq(fread(head, 1, 8, f), 8);
    fclose(f);
    cr_assert_eq(memcmp(head, "\x89PNG\r\n\x1a\n", 8), 0);
    cr_assert_eq(tmps_in(dir), 0);
    unlink(png);
    unlink(csv);
    rmdir(dir);
}

Test(plot, a_fifo_is_refused_at_once_and_leaves_nothing) {
    char dir[64], csv[128], png[128], err[512] = "";
    plot_dir(dir, 3);
    snprintf(csv, sizeof(csv), "%s/metrics.csv", dir);
    snprintf(png, sizeof(png), "%s/curve.png", dir);
    unlink(csv);
    cr_assert_eq(mkfifo(csv, 0644), 0);
    cr_assert_eq(plot_curve(csv, png, "fifo", err, sizeof(err)), -1);
    cr_assert(strstr(err, "not a regular file") != NULL, "%s", err);
    cr_assert_eq(tmps_in(dir), 0);
    cr_assert_neq(access(png, F_OK), 0);
    unlink(csv);
    rmdir(dir);
}

Test(plot, no_episode_yet_draws_nothing) {
    char dir[64], csv[128], png[128], err[512] = "";
    plot_dir(dir, 0);
    snprintf(csv, sizeof(csv), "%s/metrics.csv", dir);
    snprintf(png, sizeof(png), "%s/curve.png", dir);
    cr_assert_eq(plot_curve(csv, png, "empty", err, sizeof(err)), 1, "%s", err);
    cr_assert_eq(tmps_in(dir), 0);
    unlink(csv);
    rmdir(dir);
}
