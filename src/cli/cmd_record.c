// cmd_record.c: `pongrl record`: one game played by a model, as an animated GIF or an MP4 at
// real speed, optionally with the network's input beside the screen.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../media/video.h"
#include "../train/train.h"
#include "../util/file.h"
#include "args.h"
#include "commands.h"
#include "play.h"
#include "../util/say.h"

#define INPUT_SCALE       2   // 80x80 drawn as 160x160
#define INPUT_Y0          35  // the seed crops rows 35..194: line them up
#define FINAL_HOLD_FRAMES 120 // the final score stays 2 s before the loop

// The screen, and with `input` the difference frame the network was given beside it:
// -1 black, 0 grey, +1 white (Karpathy's picture of it), on a dark margin.
static void compose(uint8_t *canvas, int cw, const uint8_t *rgb, const int8_t *x, bool input) {
    for (int y = 0; y < PONG_SCREEN_H; y++)
        memcpy(canvas + (size_t)y * cw * 3, rgb + (size_t)y * PONG_SCREEN_W * 3, PONG_SCREEN_W * 3);
    if (!input) return;
    for (int y = 0; y < PONG_SCREEN_H; y++)
        for (int c = PONG_SCREEN_W; c < cw; c++) {
            uint8_t v = 24;
            int r = (y - INPUT_Y0) / INPUT_SCALE, q = (c - PONG_SCREEN_W) / INPUT_SCALE;
            if (y >= INPUT_Y0 && r < PONG_OBS80 && q < PONG_OBS80) v = (uint8_t)(128 + 127 * x[r * PONG_OBS80 + q]);
            uint8_t *p = canvas + ((size_t)y * cw + c) * 3;
            p[0] = p[1] = p[2] = v;
        }
}

int cmd_record(int argc, char **argv) {
    PlayArgs a;
    play_args_parse(argc, argv, PLAY_OPTS_GAME | PLAY_OPT_OUT | PLAY_OPT_MAX_STEPS | PLAY_OPT_WITH_INPUT,
        "MODEL --out game.gif|game.mp4 [options]",
        "Plays one whole game with a trained policy and writes it at real speed (one picture per\n"
        "agent step, 1/60 s per emulated frame): game.gif an animated GIF looping forever,\n"
        "game.mp4 an H.264 MP4 scaled up 4 times (needs ffmpeg on PATH). The game is episode 0\n"
        "of `pongrl eval --seed S`.\n",
        &a);
    const char *out = a.out;
    char err[2048];
    const uint64_t seed = a.seed;
    const bool greedy = a.greedy, input = a.with_input;
    const int64_t max_steps = a.max_steps; // 0: to the end of the game
    if (!out) die_usage("usage: pongrl record MODEL --out game.gif|game.mp4");
    if (!out[0]) die_usage("--out needs a file name, got ''");
    int format = video_format(out, err, sizeof(err));
    if (format < 0) die_usage("%s", err);
    if (strlen(out) >= FILE_PATH_MAX) die_usage("--out: path too long");

    TrainState st;
    char desc[2048];
    if (play_load_model(&a, &st, desc, sizeof(desc))) return 1;
    const char *env_id = a.env_id; // the model's unless --env was given; likewise the two below
    const int mode = a.mode, difficulty = a.difficulty;
    const int cw = PONG_SCREEN_W * (input ? 2 : 1);
    Player *pl = player_create(&st, &a); // NULL: it said why
    uint8_t *rgb = malloc(PONG_SCREEN_H * PONG_SCREEN_W * 3), *canvas = malloc((size_t)PONG_SCREEN_H * cw * 3);
    VideoRec *video = NULL;
    // written beside OUT, renamed when whole: a full disk or a kill never leaves half a file
    FileReplace fr;
    bool pending = false; // fr.tmp exists and is ours to remove
    int rc = 1;
    if (!pl) goto out;
    if (!rgb || !canvas) {
        say_error("out of memory");
        goto out;
    }
    if (file_replace_begin(&fr, out, err, sizeof(err))) {
        say_error("%s", err);
        goto out;
    }
    pending = true;
    if (!(video = video_open(
              file_replace_fd(&fr), out, format, cw, PONG_SCREEN_H, pl->env.preset.frameskip_min, err, sizeof(err)))) {
        say_error("%s", err);
        goto out;
    }
    player_reset(pl, play_env_seed(seed, 0), play_act_seed(seed, 0));
    EnvStep s = { 0 };
    int64_t steps = 0, frames = 0;
    do {
        env_render_rgb(&pl->env, rgb); // what is on screen when the agent acts
        player_step(pl, &s);
        compose(canvas, cw, rgb, pl->x, input);
        if (video_add(video, canvas, s.frames, err, sizeof(err))) {
            say_error("%s", err);
            goto out;
        }
        steps++;
        frames += s.frames;
    } while (!s.terminated && !s.truncated && (!max_steps || steps < max_steps));
    // The held picture must show the final score. The cartridge turns a score into digit
    // pointers at the end of a frame and its kernel draws them in the next one, so the picture
    // of the last step still shows the score before the last point (20, not 21). One more
    // frame of the game, the paddle left where it is and no button, draws it; a copy of the
    // game plays it, so the env (and what the log says of it) ends where the episode did.
    Pong shown = pl->env.game;
    pong_frame(&shown, pl->env.resistance, false);
    pong_render_rgb(&shown, rgb);
    compose(canvas, cw, rgb, pl->x, input);
    if (video_add(video, canvas, FINAL_HOLD_FRAMES, err, sizeof(err))) {
        say_error("%s", err);
        goto out;
    }
    VideoSummary vs;
    int crc = video_close(video, &vs, err, sizeof(err));
    video = NULL;
    if (crc) {
        say_error("%s", err);
        goto out;
    }
    pending = false;
    if (file_replace_commit(&fr, err, sizeof(err))) {
        say_error("%s", err);
        goto out;
    }
    EnvState es;
    env_state(&pl->env, &es);
    struct stat fst;
    long long size = stat(out, &fst) == 0 ? (long long)fst.st_size : -1;
    char flavour[64] = "";
    if (mode || difficulty) snprintf(flavour, sizeof flavour, " mode %d difficulty %d", mode, difficulty);
    char shown_desc[2048], shown_out[512];
    printf("pongrl record: %s\n  %s%s, seed %llu, %s: %s after %lld steps (%lld frames), agent %lld, cpu %lld\n"
           "  wrote %s: %dx%d, %lld frames, %.1f s, %lld KiB\n",
        say_escape(desc, shown_desc, sizeof(shown_desc)), env_id, flavour, (unsigned long long)seed,
        greedy ? "greedy" : "stochastic",
        s.terminated      ? "game over"
            : s.truncated ? "truncated by the episode cap"
                          : "stopped at --max-steps",
        (long long)steps, (long long)frames, (long long)es.score_agent, (long long)es.score_cpu,
        say_escape(out, shown_out, sizeof(shown_out)), vs.width, vs.height, (long long)vs.pictures, vs.seconds,
        size / 1024);
    rc = 0;
out:
    if (video) {
        char e2[256];
        video_close(video, NULL, e2, sizeof(e2));
    }
    if (pending) file_replace_abort(&fr);
    player_destroy(pl);
    free(rgb);
    free(canvas);
    train_state_free(&st);
    return rc;
}
