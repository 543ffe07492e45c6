// test_pong.c: the game against the real one.
//
// Fixtures: tests/data/ale-real/, whole episodes recorded frame by frame from ALE 0.12.1
// running the real Video Olympics ROM (copied from shared/reference/ale-real/traces, whose
// README says how they were recorded) and one more recorded the same way
// (tests/data/ale-real/README.md): the action of every frame, the reward act() returned,
// the zlib crc32 of getScreenRGB() and the 128 bytes of getRAM() after every frame. One
// trace of each recorded policy, 50,942 frames in all.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "env/env.h"
#include "pong/pong.h"

#define DATA      "tests/data/ale-real/"
#define RGB_BYTES (PONG_SCREEN_H * PONG_SCREEN_W * 3)

static const char *const TRACES[] = { "random-1", "hold-2", "v5-1", "track-3", "model-2", "firetrack-1" };
#define N_TRACES (sizeof TRACES / sizeof TRACES[0])

typedef struct {
    uint8_t *actions; // (T,)
    int8_t *rewards;  // (T,)
    uint32_t *crc;    // (T+1,)
    uint8_t *ram;     // (T+1, 128)
    size_t frames;    // T
} Trace;

// ----------------------------------------------------------------------------
// loading

static uint8_t *read_file(const char *path, size_t *n) {
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    cr_assert_not_null(buf);
    gzFile f = gzopen(path, "rb"); // reads plain and gzip files alike
    cr_assert(f, "missing fixture %s (run from the repository root)", path);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
        int r = gzread(f, buf + len, (unsigned)(cap - len));
        cr_assert(r >= 0, "cannot read %s", path);
        if (r == 0) break;
        len += (size_t)r;
    }
    gzclose(f);
    *n = len;
    return buf;
}

static Trace trace_load(const char *name) {
    char path[256];
    size_t n_act, n_rew, n_crc, n_ram;
    Trace t;
    snprintf(path, sizeof path, DATA "%s.actions.u8", name);
    t.actions = read_file(path, &n_act);
    snprintf(path, sizeof path, DATA "%s.rewards.i8", name);
    t.rewards = (int8_t *)read_file(path, &n_rew);
    snprintf(path, sizeof path, DATA "%s.crc.u32", name);
    t.crc = (uint32_t *)read_file(path, &n_crc);
    snprintf(path, sizeof path, DATA "%s.ram.u8.gz", name);
    t.ram = read_file(path, &n_ram);
    t.frames = n_act;
    cr_assert(n_rew == n_act && n_crc == 4 * (n_act + 1) && n_ram == PONG_RAM_SIZE * (n_act + 1),
        "%s: inconsistent fixture sizes", name);
    return t;
}

static void trace_free(Trace *t) {
    free(t->actions);
    free(t->rewards);
    free(t->crc);
    free(t->ram);
}

// Karpathy's prepro on a full RGB frame: crop 35:195, [::2, ::2, 0], erase 144/109, binarise.
static void prepro(const uint8_t *rgb, uint8_t *obs) {
    for (int r = 0; r < PONG_OBS80; r++)
        for (int c = 0; c < PONG_OBS80; c++) {
            uint8_t red = rgb[((35 + 2 * r) * PONG_SCREEN_W + 2 * c) * 3];
            obs[r * PONG_OBS80 + c] = red != 144 && red != 109 && red != 0;
        }
}

// ----------------------------------------------------------------------------
// Replay: every frame's RGB crc32, RAM and reward, and the end of the game, through the C
// API a user calls (PongNoFrameskip-v4: one frame a step, no sticky actions, as recorded).

typedef struct {
    size_t frames, rgb_equal, ram_equal, reward_equal, obs_equal;
} ReplayCount;

static ReplayCount replay_flavour(const Trace *t, const char *name, int mode, int difficulty) {
    static uint8_t rgb[RGB_BYTES];
    uint8_t ram[PONG_RAM_SIZE], obs[PONG_OBS80 * PONG_OBS80], want_obs[PONG_OBS80 * PONG_OBS80];
    ReplayCount c = { 0 };
    Env env;
    cr_assert_eq(env_init_flavour(&env, "PongNoFrameskip-v4", mode, difficulty, 0), ENV_OK);
    for (size_t i = 0; i <= t->frames; i++) {
        if (i > 0) {
            EnvStep st;
            cr_assert_eq(env_step(&env, t->actions[i - 1], &st), ENV_OK, "%s frame %zu", name, i);
            c.reward_equal += st.reward == t->rewards[i - 1];
            // the game ends exactly on the last recorded frame
            cr_assert_eq(st.terminated, i == t->frames, "%s: terminated=%d at frame %zu of %zu", name, st.terminated, i,
                t->frames);
        }
        env_render_rgb(&env, rgb);
        c.rgb_equal += (uint32_t)crc32(0, rgb, RGB_BYTES) == t->crc[i];
        env_ram(&env, ram);
        c.ram_equal += memcmp(ram, t->ram + PONG_RAM_SIZE * i, PONG_RAM_SIZE) == 0;
        env_render_obs80(&env, obs);
        prepro(rgb, want_obs);
        c.obs_equal += memcmp(obs, want_obs, sizeof obs) == 0;
        c.frames++;
    }
    return c;
}

static ReplayCount replay(const Trace *t, const char *name) { return replay_flavour(t, name, 0, 0); }

Test(pong, real_traces_replay_frame_for_frame, .timeout = 300) {
    size_t total = 0;
    for (size_t k = 0; k < N_TRACES; k++) {
        Trace t = trace_load(TRACES[k]);
        ReplayCount c = replay(&t, TRACES[k]);
        fprintf(stderr, "%-9s %6zu frames: RGB %zu, RAM %zu, reward %zu, obs80 %zu identical\n", TRACES[k], c.frames,
            c.rgb_equal, c.ram_equal, c.reward_equal, c.obs_equal);
        cr_expect_eq(c.rgb_equal, c.frames, "%s: RGB frames differ", TRACES[k]);
        cr_expect_eq(c.ram_equal, c.frames, "%s: RAM differs", TRACES[k]);
        cr_expect_eq(c.reward_equal, t.frames, "%s: rewards differ", TRACES[k]);
        cr_expect_eq(c.obs_equal, c.frames, "%s: obs80 is not prepro(RGB)", TRACES[k]);
        total += c.frames;
        trace_free(&t);
    }
    cr_assert_geq(total, 30000);
}

// Every flavour ALE offers (modes 0 and 1, difficulties 0 to 3), two real episodes each
// (tests/data/ale-real/flavours: shared/reference/ale-real/flavours, recorded with ALE's
// setMode and setDifficulty): a random agent and a ball tracker.
Test(pong, real_flavour_traces_replay_frame_for_frame, .timeout = 300) {
    size_t total = 0;
    for (int mode = 0; mode < PONG_MODES; mode++)
        for (int difficulty = 0; difficulty < PONG_DIFFICULTIES; difficulty++)
            for (int policy = 0; policy < 2; policy++) {
                char name[64];
                snprintf(name, sizeof name, "flavours/%s-m%dd%d", policy ? "track" : "random", mode, difficulty);
                Trace t = trace_load(name);
                ReplayCount c = replay_flavour(&t, name, mode, difficulty);
                fprintf(stderr, "%-22s %6zu frames: RGB %zu, RAM %zu, reward %zu, obs80 %zu identical\n", name,
                    c.frames, c.rgb_equal, c.ram_equal, c.reward_equal, c.obs_equal);
                cr_expect_eq(c.rgb_equal, c.frames, "%s: RGB frames differ", name);
                cr_expect_eq(c.ram_equal, c.frames, "%s: RAM differs", name);
                cr_expect_eq(c.reward_equal, t.frames, "%s: rewards differ", name);
                cr_expect_eq(c.obs_equal, c.frames, "%s: obs80 is not prepro(RGB)", name);
                total += c.frames;
                trace_free(&t);
            }
    cr_assert_geq(total, 80000);
}

// The replay above would pass vacuously if the comparison could not see a difference: one
// pixel changed, or one byte of RAM, must change the crc32 and the RAM comparison.
Test(pong, replay_sees_one_pixel_and_one_byte) {
    Trace t = trace_load("random-1");
    static uint8_t rgb[RGB_BYTES];
    Env env;
    env_init(&env, "PongNoFrameskip-v4", 0);
    for (size_t i = 0; i < 300; i++) env_step(&env, t.actions[i], NULL);
    env_render_rgb(&env, rgb);
    cr_assert_eq((uint32_t)crc32(0, rgb, RGB_BYTES), t.crc[300]);
    rgb[3 * (100 * PONG_SCREEN_W + 80)] ^= 1;
    cr_assert_neq((uint32_t)crc32(0, rgb, RGB_BYTES), t.crc[300]);
    uint8_t ram[PONG_RAM_SIZE];
    env_ram(&env, ram);
    cr_assert(memcmp(ram, t.ram + 300 * PONG_RAM_SIZE, PONG_RAM_SIZE) == 0);
    trace_free(&t);
}

// The cartridge stops a game by itself when its 16-bit frame count wraps (65,210 frames
// after ALE's reset): the CPU's score becomes 1, the agent's digits go blank, the attract
// colours start. No whole trace gets there, so wrap-1 was recorded from ALE's reset with
// the count moved on to $FFC0 (setRAM), then 400 frames; the same two bytes are set here.
Test(pong, the_frame_count_wrap_stops_the_game_as_the_real_one_does) {
    Trace t = trace_load("wrap-1");
    static uint8_t rgb[RGB_BYTES];
    uint8_t ram[PONG_RAM_SIZE];
    Env env;
    env_init(&env, "PongNoFrameskip-v4", 0);
    env.game.ram[0x89 - 0x80] = 0xFF;
    env.game.ram[0x88 - 0x80] = 0xC0;
    size_t same = 0;
    int rewards = 0;
    for (size_t i = 1; i <= t.frames; i++) {
        EnvStep st;
        cr_assert_eq(env_step(&env, t.actions[i - 1], &st), ENV_OK);
        rewards += st.reward == t.rewards[i - 1];
        env_render_rgb(&env, rgb);
        env_ram(&env, ram);
        same += (uint32_t)crc32(0, rgb, RGB_BYTES) == t.crc[i] &&
            memcmp(ram, t.ram + PONG_RAM_SIZE * i, PONG_RAM_SIZE) == 0;
    }
    cr_assert_eq(same, t.frames, "%zu of %zu frames identical", same, t.frames);
    cr_assert_eq(rewards, (int)t.frames);
    cr_assert_eq(pong_score_cpu(&env.game), 1);
    trace_free(&t);
}

// ----------------------------------------------------------------------------
// A cloned state, restored into another env that has played elsewhere, goes on exactly as
// the real game did: clones at several points of a long real episode, each restored after a
// detour of random play, then the rest of the trace replayed frame for frame.

static size_t replay_from_clones(const char *name, int mode, int difficulty) {
    Trace t = trace_load(name);
    static uint8_t rgb[RGB_BYTES], state[ENV_STATE_BYTES];
    uint8_t ram[PONG_RAM_SIZE];
    const size_t at[] = { 0, 59, 1000, t.frames / 2, t.frames - 100 };
    Env env, other;
    cr_assert_eq(env_init_flavour(&env, "PongNoFrameskip-v4", mode, difficulty, 0), ENV_OK);
    cr_assert_eq(env_init_flavour(&other, "PongNoFrameskip-v4", mode, difficulty, 1), ENV_OK);
    size_t frame = 0, checked = 0;
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        for (; frame < at[k]; frame++) env_step(&env, t.actions[frame], NULL);
        env_clone(&env, k % 2, state);
        for (int i = 0; i < 500; i++) {
            EnvStep st;
            env_step(&other, (int)((i * 7 + k) % ACTION_COUNT), &st);
            if (st.terminated) env_reset(&other, i);
        }
        cr_assert_eq(env_restore(&other, state), ENV_OK);
        for (size_t i = at[k]; i < t.frames; i++) {
            EnvStep st;
            cr_assert_eq(env_step(&other, t.actions[i], &st), ENV_OK);
            env_render_rgb(&other, rgb);
            env_ram(&other, ram);
            cr_assert_eq(
                (uint32_t)crc32(0, rgb, RGB_BYTES), t.crc[i + 1], "%s, clone at %zu: frame %zu", name, at[k], i + 1);
            cr_assert(memcmp(ram, t.ram + PONG_RAM_SIZE * (i + 1), PONG_RAM_SIZE) == 0,
                "%s, clone at %zu: RAM of frame %zu", name, at[k], i + 1);
            cr_assert_eq(st.reward, t.rewards[i]);
            cr_assert_eq(st.terminated, i + 1 == t.frames);
            checked++;
        }
    }
    trace_free(&t);
    return checked;
}

Test(pong, a_restored_state_replays_the_real_trace, .timeout = 300) {
    size_t a = replay_from_clones("track-3", 0, 0);
    size_t b = replay_from_clones("flavours/track-m1d3", 1, 3);
    fprintf(stderr, "restored states: %zu frames (track-3) and %zu (track-m1d3) replayed identically\n", a, b);
}

// ----------------------------------------------------------------------------
// The reset state is the real one, and the game is a pure function of its inputs.

Test(pong, reset_is_the_real_first_frame) {
    Trace t = trace_load("v5-1");
    Pong g;
    pong_reset(&g);
    uint8_t ram[PONG_RAM_SIZE];
    pong_ram(&g, ram);
    cr_assert(memcmp(ram, t.ram, PONG_RAM_SIZE) == 0);
    static uint8_t rgb[RGB_BYTES];
    pong_render_rgb(&g, rgb);
    cr_assert_eq((uint32_t)crc32(0, rgb, RGB_BYTES), t.crc[0]);
    cr_assert_eq(pong_score_cpu(&g), 0);
    cr_assert_eq(pong_score_agent(&g), 0);
    cr_assert(!pong_game_over(&g));
    trace_free(&t);
}

Test(pong, same_inputs_same_bits) {
    Pong a, b;
    pong_reset(&a);
    pong_reset(&b);
    for (int i = 0; i < 5000; i++) {
        int r = PADDLE_RESISTANCE_MIN + (int)((i * 7919u) % (PADDLE_RESISTANCE_MAX - PADDLE_RESISTANCE_MIN));
        cr_assert_eq(pong_frame(&a, r, i % 3 == 0), pong_frame(&b, r, i % 3 == 0));
    }
    cr_assert(memcmp(&a, &b, sizeof a) == 0);
}

// RGB and palette indices are one picture: every pixel's colour is the ALE palette's
// entry for its index.
Test(pong, rgb_is_the_palette_of_the_indices) {
    // clang-format off
    static const struct { uint8_t index, r, g, b; } PAL[] = {
        {0x00, 0, 0, 0}, {0x22, 144, 72, 17}, {0x0E, 236, 236, 236}, {0xC8, 92, 186, 92},
        {0x38, 213, 130, 74}, {0xE4, 109, 118, 43}, {0xD2, 53, 95, 24},
        {0x8A, 101, 111, 228}, {0xFA, 210, 182, 86},
    };
    // clang-format on
    Env env;
    env_init(&env, "ALE/Pong-v5", 3);
    static uint8_t rgb[RGB_BYTES], idx[PONG_SCREEN_H * PONG_SCREEN_W];
    for (int step = 0; step < 200; step++) {
        env_render_rgb(&env, rgb);
        pong_render_indices(&env.game, idx);
        for (int i = 0; i < PONG_SCREEN_H * PONG_SCREEN_W; i++) {
            size_t k = 0;
            while (k < sizeof PAL / sizeof PAL[0] && PAL[k].index != idx[i]) k++;
            cr_assert(k < sizeof PAL / sizeof PAL[0], "index %02x", idx[i]);
            cr_assert(rgb[3 * i] == PAL[k].r && rgb[3 * i + 1] == PAL[k].g && rgb[3 * i + 2] == PAL[k].b);
        }
        env_step(&env, step % ACTION_COUNT, NULL);
    }
}
