// cmd_watch.c: `pongrl watch`: a model playing in a window in real time, game after game.
// Real time is the console's 60 frames/s, so a picture per agent step lasts the step's frames
// (15 pictures/s on ALE/Pong-v5, 60 on NoFrameskip). Game g is episode g of `pongrl eval`
// with the same --seed.
#include <stdio.h>
#include <stdlib.h>

#include "../media/window.h"
#include "../train/train.h"
#include "../util/clock.h"
#include "args.h"
#include "commands.h"
#include "play.h"
#include "../util/say.h"

#define WATCH_FRAME_HZ 60.0 // an emulated Atari frame is 1/60 s
#define FINAL_HOLD_S   2.0  // the last picture of a game stays 2 s, as in record's GIF
#define LATE_RESET_S   0.25 // further behind than this (window dragged, machine busy): do not race to catch up

int cmd_watch(int argc, char **argv) {
    PlayArgs a;
    play_args_parse(argc, argv, PLAY_OPTS_GAME | PLAY_OPT_GAMES | PLAY_OPT_MAX_STEPS | PLAY_OPT_SCALE | PLAY_OPT_SPEED,
        "MODEL [options]",
        "Shows a trained policy playing in a window, in real time (60 emulated frames/s), game\n"
        "after game until the window is closed (or Esc, q, Ctrl-C). Needs a display and a pongrl\n"
        "built with SDL2 (libsdl2-dev). Game g is eval's episode g.\n",
        &a);
    const uint64_t seed = a.seed;
    const bool greedy = a.greedy;
    const int64_t games = a.games, max_steps = a.max_steps; // 0: no limit
    const int scale = a.scale;
    const double speed = a.speed;

    TrainState st;
    char desc[2048], err[2048];
    if (play_load_model(&a, &st, desc, sizeof(desc))) return 1;
    const char *env_id = a.env_id;       // the model's unless --env was given
    Player *pl = player_create(&st, &a); // NULL: it said why
    uint8_t *rgb = malloc(PONG_SCREEN_H * PONG_SCREEN_W * 3);
    Window *win = NULL;
    int rc = 1;
    if (!pl) goto out;
    if (!rgb) {
        say_error("out of memory");
        goto out;
    }
    char title[256];
    snprintf(title, sizeof(title), "pongrl watch: %s on %s", a.model, env_id);
    if (!(win = window_open(title, PONG_SCREEN_W, PONG_SCREEN_H, scale, err, sizeof(err)))) {
        say_error("%s", err);
        goto out;
    }
    printf("pongrl watch: %s\n  %s, seed %llu, %s; close the window (or Esc, q, Ctrl-C) to stop\n", desc, env_id,
        (unsigned long long)seed, greedy ? "greedy" : "stochastic");
    fflush(stdout);
    bool open = true;
    for (int64_t g = 0; open && (!games || g < games); g++) {
        player_reset(pl, play_env_seed(seed, g), play_act_seed(seed, g));
        EnvStep s = { 0 };
        int64_t steps = 0;
        double due = clock_now_s();
        do {
            env_render_rgb(&pl->env, rgb); // what is on screen when the agent acts
            player_step(pl, &s);
            if (window_show(win, rgb, err, sizeof(err))) {
                say_error("%s", err);
                goto out;
            }
            double now = clock_now_s();
            if (now > due + LATE_RESET_S) due = now;
            due += s.frames / (WATCH_FRAME_HZ * speed);
            open = window_wait(win, due);
            steps++;
        } while (open && !s.terminated && !s.truncated && (!max_steps || steps < max_steps));
        if (!open) break;
        env_render_rgb(&pl->env, rgb);
        if (window_show(win, rgb, err, sizeof(err))) {
            say_error("%s", err);
            goto out;
        }
        EnvState es;
        env_state(&pl->env, &es);
        printf("game %lld: agent %lld, cpu %lld, %lld steps%s\n", (long long)g + 1, (long long)es.score_agent,
            (long long)es.score_cpu, (long long)steps,
            s.terminated      ? ""
                : s.truncated ? " (truncated by the episode cap)"
                              : " (stopped at --max-steps)");
        fflush(stdout);
        open = window_wait(win, clock_now_s() + FINAL_HOLD_S / speed);
    }
    if (!open) printf("closed\n");
    rc = 0;
out:
    window_close(win);
    player_destroy(pl);
    free(rgb);
    train_state_free(&st);
    return rc;
}
