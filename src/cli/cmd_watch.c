// cmd_watch.c: `pongrl watch`: a model playing in a window in real time, game after game.
// Real time is the console's 60 frames/s, so a picture per agent step lasts the step's frames
// (15 pictures/s on ALE/Pong-v5, 60 on NoFrameskip). Game g is episode g of `pongrl eval`
// with the same --seed.
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../media/window.h"
#include "../train/train.h"
#include "../util/clock.h"
#include "args.h"
#include "commands.h"
#include "play.h"
#include "../train/model.h"

#define WATCH_FRAME_HZ 60.0          // an emulated Atari frame is 1/60 s
#define FINAL_HOLD_S 2.0             // the last picture of a game stays 2 s, as in record's GIF
#define LATE_RESET_S 0.25            // further behind than this (window dragged, machine busy): do not race to catch up

static void print_help(void) {
    printf("usage: pongrl watch MODEL [options]\n"
           "\n"
           "Shows a trained policy playing in a window, in real time (60 emulated frames/s), game\n"
           "after game until the window is closed (or Esc, q, Ctrl-C). Needs a display and a pongrl\n"
           "built with SDL2 (libsdl2-dev). MODEL as for eval; game g is eval's episode g.\n"
           "\n"
           "  --env ID         environment, e.g. ALE/Pong-v5 or pongrl/Pong-v5 (default: the model's)\n"
           "  --seed S         game seed                                (default 1)\n"
           "  --greedy         UP iff p > 0.5, instead of sampling as in training\n"
           "  --games N        stop after N games                       (default: until closed)\n"
           "  --max-steps N    end a game after N agent steps           (default: none)\n"
           "  --scale K        window size: K times 160x210             (default 3)\n"
           "  --speed X        X times real time                        (default 1)\n");
}

int cmd_watch(int argc, char **argv) {
    static const struct option opts[] = {
        {"env", 1, 0, 'e'}, {"seed", 1, 0, 's'}, {"greedy", 0, 0, 'g'}, {"games", 1, 0, 'n'},
        {"max-steps", 1, 0, 'm'}, {"scale", 1, 0, 'k'}, {"speed", 1, 0, 'x'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *env_id = NULL;
    uint64_t seed = 1;
    bool greedy = false;
    int64_t games = 0, max_steps = 0;           // 0: no limit
    int scale = 3;
    double speed = 1.0;
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (o) {
        case 'e': env_id = arg_env("--env", optarg); break;
        case 's': seed = arg_u64("--seed", optarg); break;
        case 'g': greedy = true; break;
        case 'n': games = arg_int("--games", optarg, 1, 1000000000); break;
        case 'm': max_steps = arg_int("--max-steps", optarg, 1, 10000000); break;
        case 'k': scale = (int)arg_int("--scale", optarg, 1, 16); break;
        case 'x': speed = arg_double("--speed", optarg, 0.01, 1000); break;
        case 'h': print_help(); return 0;
        case ':': die_usage("%s needs a value", argv[optind - 1]);
        default:  die_usage("watch: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) die_usage("usage: pongrl watch MODEL [--env ID]");

    TrainState st;
    char desc[2048], err[2048];
    if (model_load(argv[optind], &st, desc, sizeof(desc), err, sizeof(err))) { fprintf(stderr, "pongrl: %s\n", err); return 1; }
    if (!env_id) env_id = st.cfg.env_id;
    Player *pl = malloc(sizeof(Player));
    uint8_t *rgb = malloc(PONG_SCREEN_H * PONG_SCREEN_W * 3);
    Window *win = NULL;
    int rc = 1;
    if (!pl || !rgb || player_init(pl, &st.policy, env_id, st.cfg.mode, st.cfg.difficulty, greedy)) {
        fprintf(stderr, "pongrl: out of memory\n");
        free(pl); pl = NULL;
        goto out;
    }
    char title[256];
    snprintf(title, sizeof(title), "pongrl watch: %s on %s", argv[optind], env_id);
    if (!(win = window_open(title, PONG_SCREEN_W, PONG_SCREEN_H, scale, err, sizeof(err)))) {
        fprintf(stderr, "pongrl: %s\n", err);
        goto out;
    }
    printf("pongrl watch: %s\n  %s, seed %llu, %s; close the window (or Esc, q, Ctrl-C) to stop\n", desc, env_id,
           (unsigned long long)seed, greedy ? "greedy" : "stochastic");
    fflush(stdout);
    bool open = true;
    for (int64_t g = 0; open && (!games || g < games); g++) {
        player_reset(pl, play_env_seed(seed, g), play_act_seed(seed, g));
        EnvStep s = {0};
        int64_t steps = 0;
        double due = clock_now_s();
        do {
            env_render_rgb(&pl->env, rgb);                 // what is on screen when the agent acts
            player_step(pl, &s);
            if (window_show(win, rgb, err, sizeof(err))) { fprintf(stderr, "pongrl: %s\n", err); goto out; }
            double now = clock_now_s();
            if (now > due + LATE_RESET_S) due = now;
            due += s.frames / (WATCH_FRAME_HZ * speed);
            open = window_wait(win, due);
            steps++;
        } while (open && !s.terminated && !s.truncated && (!max_steps || steps < max_steps));
        if (!open) break;
        env_render_rgb(&pl->env, rgb);
        if (window_show(win, rgb, err, sizeof(err))) { fprintf(stderr, "pongrl: %s\n", err); goto out; }
        EnvState es;
        env_state(&pl->env, &es);
        printf("game %lld: agent %lld, cpu %lld, %lld steps%s\n", (long long)g + 1, (long long)es.score_agent,
               (long long)es.score_cpu, (long long)steps,
               s.terminated ? "" : s.truncated ? " (truncated by the episode cap)" : " (stopped at --max-steps)");
        fflush(stdout);
        open = window_wait(win, clock_now_s() + FINAL_HOLD_S / speed);
    }
    if (!open) printf("closed\n");
    rc = 0;
out:
    window_close(win);
    if (pl) player_free(pl);
    free(pl); free(rgb);
    train_state_free(&st);
    return rc;
}
