// bench_env.c: how fast the environment runs on one core. ALE/Pong-v5 (frameskip 4, sticky
// actions), random-ish actions from a cheap generator so the policy costs nothing:
//   env_frames_per_sec      emulated frames/s, no rendering
//   env_steps_per_sec       agent steps/s, no rendering
//   env_steps_per_sec_obs   agent steps/s, rendering the 80x80 training grid every step
//   env_steps_per_sec_rgb   agent steps/s, rendering the full 210x160x3 frame every step
//   env_clones_per_sec      env_clone (with the random stream) of a mid-episode env
//   env_restores_per_sec    env_restore of that state
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../env/env.h"
#include "../util/clock.h"
#include "args.h"

#define BENCH_ENV_ID      "ALE/Pong-v5"
#define BENCH_CHUNK_STEPS 4096 // steps between clock reads (~1-4 ms)

typedef enum { RENDER_NONE, RENDER_OBS80, RENDER_RGB } RenderKind;

typedef struct {
    double seconds;
    int64_t steps, frames;
} BenchResult;

// xorshift32: the action source must cost next to nothing next to a step
static uint32_t xorshift32(uint32_t *s) {
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

// Steps the env for at least min_seconds, resetting at the end of each episode.
static BenchResult bench_run(RenderKind kind, double min_seconds) {
    uint8_t obs[PONG_OBS80 * PONG_OBS80];
    uint8_t rgb[PONG_SCREEN_H * PONG_SCREEN_W * 3]; // 100,800 bytes: fine on the stack
    Env env;
    env_init(&env, BENCH_ENV_ID, 1);
    uint32_t s = 0x9e3779b9u;
    uint64_t episode = 1;
    volatile uint8_t sink = 0; // reads one pixel a step so no render can be optimised away
    BenchResult r = { 0 };
    double t0 = clock_now_s(), t = t0;
    while (t - t0 < min_seconds) {
        for (int i = 0; i < BENCH_CHUNK_STEPS; i++) {
            EnvStep st;
            env_step(&env, (int)(xorshift32(&s) % ACTION_COUNT), &st);
            r.frames += st.frames;
            if (kind == RENDER_OBS80) {
                env_render_obs80(&env, obs);
                sink = obs[40 * 80 + 70];
            }
            if (kind == RENDER_RGB) {
                env_render_rgb(&env, rgb);
                sink = rgb[100 * 480 + 3 * 141];
            }
            if (st.terminated || st.truncated) env_reset(&env, ++episode);
        }
        r.steps += BENCH_CHUNK_STEPS;
        t = clock_now_s();
    }
    r.seconds = t - t0;
    (void)sink;
    return r;
}

// Clones (or restores) one mid-episode state over and over for at least min_seconds;
// returns the count per second.
static double bench_clone(bool restore, double min_seconds) {
    static uint8_t state[ENV_STATE_BYTES];
    Env env;
    env_init(&env, BENCH_ENV_ID, 1);
    for (int i = 0; i < 500; i++) env_step(&env, i % ACTION_COUNT, NULL);
    env_clone(&env, true, state);
    volatile uint8_t sink = 0;
    int64_t n = 0;
    double t0 = clock_now_s(), t = t0;
    while (t - t0 < min_seconds) {
        for (int i = 0; i < BENCH_CHUNK_STEPS; i++) {
            if (restore)
                sink = (uint8_t)env_restore(&env, state);
            else {
                env_clone(&env, true, state);
                sink = state[100];
            }
        }
        n += BENCH_CHUNK_STEPS;
        t = clock_now_s();
    }
    (void)sink;
    return (double)n / (t - t0);
}

int bench_env(int argc, char **argv) {
    double seconds = 1.0;
    for (int i = 0; i < argc; i++) {
        if (arg_is_help(argv[i])) {
            printf("usage: pongrl bench env [--seconds S (1)]\n"
                   "The environment's speed on one core, as name: value lines (see the top of bench_env.c).\n");
            return 0;
        }
        if (i == 0) continue; // "env" itself
        if (strcmp(argv[i], "--seconds") == 0) {
            if (i + 1 >= argc) die_usage("bench env: --seconds needs a value");
            seconds = arg_double("--seconds", argv[++i], 0.001, 3600.0);
        } else
            die_usage("bench env: unknown option '%s' (known: --seconds S)", argv[i]);
    }
    BenchResult none = bench_run(RENDER_NONE, seconds);
    BenchResult obs = bench_run(RENDER_OBS80, seconds);
    BenchResult rgb = bench_run(RENDER_RGB, seconds);
    printf("env_frames_per_sec: %.0f\n", (double)none.frames / none.seconds);
    printf("env_steps_per_sec: %.0f\n", (double)none.steps / none.seconds);
    printf("env_steps_per_sec_obs: %.0f\n", (double)obs.steps / obs.seconds);
    printf("env_steps_per_sec_rgb: %.0f\n", (double)rgb.steps / rgb.seconds);
    printf("env_clones_per_sec: %.0f\n", bench_clone(false, seconds));
    printf("env_restores_per_sec: %.0f\n", bench_clone(true, seconds));
    return 0;
}
