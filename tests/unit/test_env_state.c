// test_env_state.c: a state is untrusted input, refused unless a real game could hold it.
//
// Each bad field is crafted into an env, whose clone then carries a right crc32, so only the
// range checks of env_state_check can catch it: it must be refused with a line naming the
// field, by env_restore too, and leave the env it was restored into as it was. States of real
// play must still pass: every frame of the real recordings (tests/data/ale-real, RAM equal to
// the real game's on every frame), an episode the agent wins 21:0, one that runs to the
// 108,000-frame cap, one that reaches a step cap, and the boundaries of every range.
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "env/env.h"
#include "env/vecenv.h"
#include "test_files.h"

#define DATA "tests/data/ale-real/"

// RAM addresses of pong/cartridge.h (a test may not include the game's private header).
enum { SCORE_CPU = 0x0D, SCORE_AGENT = 0x0E, SERVE_TIMER = 0x0B, GAME = 0x16, BALL_X = 0x31, AGENT_BAT = 0x33 };
enum { BALL_DX = 0x3A, AGENT_PADDLE = 0x3C };
#define RAM_AT(e, i) ((e)->game.ram[(i)])

// A state's bytes, rewritten and sealed again with a right crc32, as an attacker would.
static void put_u64(uint8_t *buf, size_t at, uint64_t v) {
    for (int i = 0; i < 8; i++) buf[at + i] = (uint8_t)(v >> (8 * i));
}
static void seal(uint8_t *buf) {
    uint32_t c = (uint32_t)crc32(0, buf, ENV_STATE_BYTES - 4);
    for (int i = 0; i < 4; i++) buf[ENV_STATE_BYTES - 4 + i] = (uint8_t)(c >> (8 * i));
}

// Steps with actions from a fixed sequence; resets at the end of an episode.
static void play(Env *env, int steps, int salt) {
    for (int i = 0; i < steps; i++) {
        EnvStep st;
        cr_assert_eq(env_step(env, (i * 7 + salt) % ACTION_COUNT, &st), ENV_OK);
        if (st.terminated || st.truncated) env_reset(env, (uint64_t)i);
    }
}

// The state of src is refused by an env of the same settings that has played elsewhere:
// env_state_check names `field` and env_restore leaves the env byte for byte as it was.
static void expect_refused(const Env *settings, const uint8_t *buf, const char *field, const char *what) {
    Env dst, before;
    memcpy(&dst, settings, sizeof dst);
    play(&dst, 77, 3);
    memcpy(&before, &dst, sizeof before);
    char err[256] = "";
    cr_assert_eq(env_state_check(&dst, buf, err, sizeof err), ENV_ERR_STATE, "%s: not refused", what);
    cr_assert(strstr(err, field) != NULL, "%s: the message \"%s\" does not name %s", what, err, field);
    cr_assert(strchr(err, '\n') == NULL, "%s: more than one line", what);
    cr_assert(strstr(err, "must be") != NULL, "%s: the message \"%s\" gives no range", what, err);
    cr_assert(strstr(err, "crc") == NULL, "%s: refused by its crc, not its range", what);
    cr_assert_eq(env_restore(&dst, buf), ENV_ERR_STATE, "%s: restored", what);
    cr_assert(memcmp(&dst, &before, sizeof dst) == 0, "%s: a refused restore changed the env", what);
}

static void expect_accepted(const Env *settings, const uint8_t *buf, const char *what) {
    Env dst;
    memcpy(&dst, settings, sizeof dst);
    char err[256] = "";
    cr_assert_eq(env_state_check(&dst, buf, err, sizeof err), ENV_OK, "%s: refused: %s", what, err);
    cr_assert_eq(env_restore(&dst, buf), ENV_OK, "%s", what);
}

// ----------------------------------------------------------------------------
// every crafted field

// One bad value of one field, written into a copy of a real env (the clone seals it).
typedef struct {
    const char *what, *field;
    void (*edit)(Env *e);
} BadCase;

static void steps_max(Env *e) { e->steps = INT64_MAX; }
static void steps_negative(Env *e) { e->steps = -1; }
static void steps_past_frames(Env *e) { e->steps = e->frames + 1; }
static void steps_past_2_53(Env *e) { e->steps = e->frames = ENV_COUNT_MAX + 1; }
static void frames_past_cap(Env *e) { e->frames = e->preset.max_frames + 1; }
static void frames_negative(Env *e) { e->frames = -5; }
static void frame_number_negative(Env *e) { e->frames_before = -12345 - e->frames; }
static void frame_number_max(Env *e) { e->frames_before = INT64_MAX - e->frames; }
static void frame_number_below_frames(Env *e) { e->frames_before = -1; }
static void resistance_high(Env *e) { e->resistance = PADDLE_RESISTANCE_MAX + 1; }
static void resistance_low(Env *e) { e->resistance = PADDLE_RESISTANCE_MIN - 1; }
static void last_action_7(Env *e) { e->last_action = 7; }
static void score_cpu_22(Env *e) { RAM_AT(e, SCORE_CPU) = 22; }
static void score_agent_255(Env *e) { RAM_AT(e, SCORE_AGENT) = 255; }
static void game_2(Env *e) { RAM_AT(e, GAME) = 2; }
static void serve_timer_64(Env *e) { RAM_AT(e, SERVE_TIMER) = 64; }
static void ball_speed_5(Env *e) { RAM_AT(e, BALL_DX) = 5; }
static void ball_speed_minus_5(Env *e) { RAM_AT(e, BALL_DX) = (uint8_t)-5; }
static void ball_counter_48(Env *e) { RAM_AT(e, BALL_X) = 48; }
static void ball_counter_209(Env *e) { RAM_AT(e, BALL_X) = 209; }
static void ball_column_160(Env *e) { e->game.ball_x = 160; }
static void picture_ball_column_255(Env *e) { e->game.pic.ball_x = 255; }
static void agent_bat_37(Env *e) { RAM_AT(e, AGENT_BAT) = 37; }
static void agent_bat_204(Env *e) { RAM_AT(e, AGENT_BAT) = 204; }
static void agent_paddle_250(Env *e) { RAM_AT(e, AGENT_PADDLE) = 250; }
static void picture_agent_bat_0(Env *e) { e->game.pic.agent_v = 0; }
static void pot_resistance_0(Env *e) { e->game.pot_resistance = 0; }
static void pot_line_off(Env *e) { e->game.pot_line = (uint8_t)(e->game.pot_line + 2); }
static void default_line_off(Env *e) { e->game.default_line = 220; }

static const BadCase BAD[] = {
    { "steps at INT64_MAX", "steps", steps_max },
    { "negative steps", "steps", steps_negative },
    { "more steps than frames", "steps", steps_past_frames },
    { "steps and frames past 2^53 (no cap here)", "frames", steps_past_2_53 },
    { "frames past the preset's cap", "episode frames", frames_past_cap },
    { "negative frames", "episode frames", frames_negative },
    { "frame number -12345", "frame number", frame_number_negative },
    { "frame number INT64_MAX", "frame number", frame_number_max },
    { "frame number below the episode's frames", "frame number", frame_number_below_frames },
    { "resistance above ALE's", "paddle resistance", resistance_high },
    { "resistance below ALE's", "paddle resistance", resistance_low },
    { "last action 7", "last action", last_action_7 },
    { "CPU score 22", "CPU's score", score_cpu_22 },
    { "agent score 255", "agent's score", score_agent_255 },
    { "game number 2", "game number", game_2 },
    { "serve timer 64", "serve timer", serve_timer_64 },
    { "ball speed 5", "horizontal speed", ball_speed_5 },
    { "ball speed -5", "horizontal speed", ball_speed_minus_5 },
    { "ball counter 48", "horizontal counter", ball_counter_48 },
    { "ball counter 209", "horizontal counter", ball_counter_209 },
    { "ball column 160", "ball's column", ball_column_160 },
    { "picture's ball column 255", "picture's ball column", picture_ball_column_255 },
    { "agent bat 37", "agent's bat", agent_bat_37 },
    { "agent bat 204", "agent's bat", agent_bat_204 },
    { "agent paddle reading 250", "paddle reading", agent_paddle_250 },
    { "picture's agent bat 0", "picture's agent bat", picture_agent_bat_0 },
    { "paddle cache's resistance 0", "resistance", pot_resistance_0 },
    { "paddle cache's reading off its resistance", "paddle cache's reading", pot_line_off },
    { "default paddle reading 220", "default paddle reading", default_line_off },
};

// On ALE/Pong-v5 (a frame cap) and on a preset with no cap at all, with and without the
// random stream.
Test(env_state, every_crafted_field_is_refused_naming_it) {
    static uint8_t buf[ENV_STATE_BYTES];
    for (int uncapped = 0; uncapped < 2; uncapped++) {
        Env base;
        cr_assert_eq(env_init(&base, "ALE/Pong-v5", 3), ENV_OK);
        if (uncapped) base.preset.max_frames = 0;
        Env settings = base;
        play(&base, 400, 1);
        for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++) {
            if (!uncapped && BAD[k].edit == steps_past_2_53) continue; // the frame cap refuses it first
            if (uncapped && BAD[k].edit == frames_past_cap) continue;  // no cap to pass
            Env e = base;
            BAD[k].edit(&e);
            env_clone(&e, k % 2, buf);
            expect_refused(&settings, buf, BAD[k].field, BAD[k].what);
        }
        // the unedited state goes in
        env_clone(&base, true, buf);
        expect_accepted(&settings, buf, "the real state");
    }
}

// Fields a struct cannot hold wrong are crafted in the bytes, then sealed.
Test(env_state, crafted_bytes_are_refused_naming_the_field) {
    static uint8_t buf[ENV_STATE_BYTES], bad[ENV_STATE_BYTES];
    Env e;
    env_init(&e, "PongNoFrameskip-v4", 1);
    play(&e, 300, 2);
    env_clone(&e, false, buf);
    const size_t flags_at = ENV_STATE_FRAME_NUMBER_AT + 8; // terminated, then truncated
    for (int k = 0; k < 2; k++) {
        memcpy(bad, buf, sizeof bad);
        bad[flags_at + k] = 2;
        seal(bad);
        expect_refused(&e, bad, "end flags", k ? "truncated 2" : "terminated 2");
    }
    // the counters as an attacker writes them straight into the bytes
    const struct {
        size_t at;
        uint64_t value;
        const char *field;
    } counters[] = {
        { ENV_STATE_STEPS_AT, (uint64_t)INT64_MAX, "steps" },
        { ENV_STATE_STEPS_AT, UINT64_MAX, "steps" },
        { ENV_STATE_FRAMES_AT, (uint64_t)1 << 62, "episode frames" },
        { ENV_STATE_FRAME_NUMBER_AT, (uint64_t)-12345, "frame number" },
        { ENV_STATE_FRAME_NUMBER_AT, (uint64_t)ENV_COUNT_MAX + 1, "frame number" },
    };
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++) {
        memcpy(bad, buf, sizeof bad);
        put_u64(bad, counters[k].at, counters[k].value);
        seal(bad);
        expect_refused(&e, bad, counters[k].field, counters[k].field);
    }
    // a random stream of zeros, which no seed makes
    env_clone(&e, true, bad);
    memset(bad + ENV_STATE_FRAME_NUMBER_AT + 10, 0, 32);
    seal(bad);
    Env dst = e;
    char err[256];
    cr_assert_eq(env_state_check(&dst, bad, err, sizeof err), ENV_ERR_STATE);
    cr_assert(strstr(err, "random stream") != NULL, "%s", err);
}

// The steps past the step cap of a preset that has one (gym 0.21's caps, python/pongrl/env.py).
Test(env_state, steps_past_the_step_cap_are_refused) {
    static uint8_t buf[ENV_STATE_BYTES];
    Env settings;
    env_init(&settings, "PongNoFrameskip-v4", 1);
    settings.preset.max_steps = 500;
    settings.preset.max_frames = 0;
    Env e = settings;
    play(&e, 200, 0);
    e.steps = 501;
    e.frames = 900;
    env_clone(&e, true, buf);
    expect_refused(&settings, buf, "steps", "steps past a cap of 500");
}

// Each range's ends are accepted: they are values a real game holds (see pong/state.c).
Test(env_state, the_ends_of_every_range_are_accepted) {
    static uint8_t buf[ENV_STATE_BYTES];
    Env base;
    env_init(&base, "ALE/Pong-v5", 3);
    Env settings = base;
    play(&base, 300, 4);
    const struct {
        int at, value;
    } ends[] = {
        { SCORE_CPU, 0 },
        { SCORE_CPU, 21 },
        { SCORE_AGENT, 21 },
        { GAME, 1 },
        { SERVE_TIMER, 63 },
        { BALL_DX, 4 },
        { BALL_DX, 0xFC },
        { BALL_X, 0 },
        { BALL_X, 49 },
        { BALL_X, 208 },
        { AGENT_BAT, 38 },
        { AGENT_BAT, 203 },
        { AGENT_PADDLE, 38 },
        { AGENT_PADDLE, 203 },
    };
    for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
        Env e = base;
        RAM_AT(&e, ends[k].at) = (uint8_t)ends[k].value;
        env_clone(&e, true, buf);
        char what[64];
        snprintf(what, sizeof what, "RAM %#x = %d", ends[k].at, ends[k].value);
        expect_accepted(&settings, buf, what);
    }
    Env e = base;
    e.game.ball_x = e.game.pic.ball_x = 159;
    e.game.pic.agent_v = 203;
    e.resistance = PADDLE_RESISTANCE_MAX;
    e.frames = 108000; // v5's cap, as a truncated episode ends
    e.steps = e.frames;
    e.frames_before = ENV_COUNT_MAX - e.frames;
    env_clone(&e, true, buf);
    expect_accepted(&settings, buf, "the ends of the counters and positions");
}

// ----------------------------------------------------------------------------
// states of real play

// Every frame of every real recording: the env replays it (its RAM the real one, frame for
// frame) and its state passes.
static size_t real_trace_states(const char *name, int mode, int difficulty) {
    static uint8_t buf[ENV_STATE_BYTES];
    char path[256];
    size_t n_act, n_ram;
    snprintf(path, sizeof path, DATA "%s.actions.u8", name);
    uint8_t *actions = read_all(path, &n_act);
    snprintf(path, sizeof path, DATA "%s.ram.u8.gz", name);
    gzFile f = gzopen(path, "rb");
    cr_assert(f, "missing fixture %s", path);
    n_ram = PONG_RAM_SIZE * (n_act + 1);
    uint8_t *ram = malloc(n_ram);
    cr_assert_eq((size_t)gzread(f, ram, (unsigned)n_ram), n_ram, "%s: short", path);
    gzclose(f);
    Env env;
    env_init_flavour(&env, "PongNoFrameskip-v4", mode, difficulty, 0);
    char err[256] = "";
    for (size_t t = 0; t <= n_act; t++) {
        if (t > 0) cr_assert_eq(env_step(&env, actions[t - 1], NULL), ENV_OK);
        cr_assert(
            memcmp(env.game.ram, ram + PONG_RAM_SIZE * t, PONG_RAM_SIZE) == 0, "%s: not the real RAM at %zu", name, t);
        env_clone(&env, t % 2, buf);
        cr_assert_eq(env_state_check(&env, buf, err, sizeof err), ENV_OK, "%s frame %zu: %s", name, t, err);
    }
    cr_assert(env.terminated, "%s: the game did not end", name);
    free(actions);
    free(ram);
    return n_act + 1;
}

Test(env_state, every_frame_of_the_real_recordings_is_accepted, .timeout = 300) {
    static const char *const TRACES[] = { "random-1", "hold-2", "v5-1", "track-3", "model-2", "firetrack-1" };
    size_t n = 0;
    for (size_t k = 0; k < sizeof TRACES / sizeof TRACES[0]; k++) n += real_trace_states(TRACES[k], 0, 0);
    for (int policy = 0; policy < 2; policy++)
        for (int mode = 0; mode < PONG_MODES; mode++)
            for (int d = 0; d < PONG_DIFFICULTIES; d++) {
                char name[64];
                snprintf(name, sizeof name, "flavours/%s-m%dd%d", policy ? "track" : "random", mode, d);
                n += real_trace_states(name, mode, d);
            }
    fprintf(stderr, "real recordings: %zu states accepted\n", n);
}

// A bat that meets the ball `offset` counters from its middle (RAM $B6 ball, $B3 bat).
static int aim(const Env *e, int offset) {
    int target = RAM_AT(e, 0x36) + offset, bat = RAM_AT(e, AGENT_BAT);
    return bat > target + 1 ? ACTION_RIGHT : bat < target - 1 ? ACTION_LEFT : ACTION_NOOP;
}

// Whole episodes, every step's state checked: one the agent wins 21:0 (its score at 21), one
// that runs to v5's 108,000-frame cap (the game stops itself at its frame count's wrap, 65,210
// frames in, and the episode goes on to the cap), and one that ends at a step cap.
Test(env_state, long_episodes_and_both_scores_at_21_are_accepted, .timeout = 300) {
    static uint8_t buf[ENV_STATE_BYTES];
    char err[256] = "";
    const struct {
        int offset;
        int64_t max_steps;
        const char *what;
    } runs[] = { { -4, 0, "agent wins 21:0" }, { 0, 0, "to the frame cap" }, { 0, 5000, "to a step cap" } };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        Env env;
        env_init(&env, "PongNoFrameskip-v4", 1);
        env.preset.max_steps = runs[k].max_steps;
        EnvStep st = { 0 };
        while (!st.terminated && !st.truncated) {
            cr_assert_eq(env_step(&env, aim(&env, runs[k].offset), &st), ENV_OK);
            env_clone(&env, st.reward != 0, buf);
            cr_assert_eq(env_state_check(&env, buf, err, sizeof err), ENV_OK, "%s, step %lld: %s", runs[k].what,
                (long long)env.steps, err);
        }
        Env other;
        env_init(&other, "PongNoFrameskip-v4", 9);
        other.preset.max_steps = runs[k].max_steps;
        cr_assert_eq(env_restore(&other, buf), ENV_OK);
        switch (k) {
            case 0: cr_assert(st.terminated && RAM_AT(&env, SCORE_AGENT) == 21 && RAM_AT(&env, SCORE_CPU) == 0); break;
            case 1: cr_assert(st.truncated && env.frames == 108000 && env.steps == 108000); break;
            default: cr_assert(st.truncated && env.steps == 5000);
        }
    }
}

// ----------------------------------------------------------------------------
// the vector of envs

// vecenv_restore refuses what env_restore refuses and leaves the env and its counters as they
// were; vecenv_set_counters holds the counters to a real run's.
Test(env_state, vecenv_restore_and_counters_are_checked) {
    static uint8_t good[ENV_STATE_BYTES], bad[ENV_STATE_BYTES], before[ENV_STATE_BYTES], after[ENV_STATE_BYTES];
    const EnvPreset *p = env_preset_find("ALE/Pong-v5");
    const VecConfig c = { .num_envs = 2,
        .obs_type = OBS_OBS80,
        .autoreset = VECENV_SAME_STEP,
        .thread_affinity_offset = -1,
        .caller_stepped = true };
    VecEnv *v = vecenv_create(p, &c, NULL);
    cr_assert_not_null(v);
    for (int i = 0; i < 2; i++) cr_assert_eq(vecenv_reset_env(v, i, 5), ENV_OK);
    VecEnvStep st;
    for (int t = 0; t < 200; t++)
        for (int i = 0; i < 2; i++) vecenv_step_env(v, i, (t + i) % ACTION_COUNT, &st);
    cr_assert_eq(vecenv_clone(v, 0, true, good), ENV_OK);
    memcpy(bad, good, sizeof bad);
    put_u64(bad, ENV_STATE_STEPS_AT, (uint64_t)INT64_MAX);
    seal(bad);
    VecEnvCounters k0, k1;
    vecenv_env_counters(v, 1, &k0);
    vecenv_clone(v, 1, true, before);
    cr_assert_eq(vecenv_restore(v, 1, bad), ENV_ERR_STATE);
    vecenv_clone(v, 1, true, after);
    vecenv_env_counters(v, 1, &k1);
    cr_assert(memcmp(before, after, sizeof before) == 0, "a refused restore changed env 1");
    cr_assert(k0.episode == k1.episode && k0.ep_return == k1.ep_return && k0.ep_length == k1.ep_length);
    cr_assert_eq(vecenv_restore(v, 1, good), ENV_OK);

    const VecEnvCounters refused[] = {
        { ENV_COUNT_MAX + 1, 0.0, 0 },
        { INT64_MAX, 0.0, 0 },
        { 0, 0.0, INT64_MAX },
        { 0, 0.0, ENV_COUNT_MAX + 1 },
        { 0, 22.0, 0 },
        { 0, -21.5, 0 },
        { 0, NAN, 0 },
        { 0, INFINITY, 0 },
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
        cr_assert_eq(vecenv_set_counters(v, 1, &refused[k]), VECENV_ERR_ARG, "counters %zu accepted", k);
    vecenv_env_counters(v, 1, &k1);
    cr_assert_eq(k1.ep_length, 200, "a refused set changed the counters");
    cr_assert_eq(vecenv_set_counters(v, 1, &(VecEnvCounters){ ENV_COUNT_MAX, -21.0, ENV_COUNT_MAX }), ENV_OK);
    cr_assert_eq(vecenv_set_counters(v, 1, &(VecEnvCounters){ 3, 21.0, 200 }), ENV_OK);
    vecenv_free(v);
}
