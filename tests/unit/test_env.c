// test_env.c: the ALE/Gym layer: presets, frameskip, sticky actions, episode caps, rewards,
// errors, seeding, and the random-policy statistics published for ALE Pong.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env.h"
#include "test_sticky.h"

// ----------------------------------------------------------------------------
// helpers

// Agent actions come from their own stream, never the env's, so that the env's stream is
// the only thing a different env seed changes.
static int random_action(Rng *r) { return (int)rng_below(r, ACTION_COUNT); }

// Direction of an action on the resistance: -1 (RIGHT*, paddle up), +1 (LEFT*), 0.
static int action_dir(int a) {
    if (a == ACTION_RIGHT || a == ACTION_RIGHTFIRE) return -1;
    if (a == ACTION_LEFT || a == ACTION_LEFTFIRE) return +1;
    return 0;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

// Copies keep their padding bytes only when made with memcpy: compare such copies with memcmp.
static void env_copy(Env *dst, const Env *src) { memcpy(dst, src, sizeof *dst); }

// Plays one episode with random actions; returns its length in steps, the score difference
// in *score and a hash of every step's (reward, frames, obs80) in *hash.
static int64_t play_random(const char *id, uint64_t env_seed, uint64_t action_seed, int *score, uint64_t *hash) {
    Env env;
    cr_assert_eq(env_init(&env, id, env_seed), ENV_OK);
    Rng ar;
    rng_seed(&ar, action_seed);
    uint64_t h = 0xcbf29ce484222325ULL;
    uint8_t obs[PONG_OBS80 * PONG_OBS80];
    int total = 0;
    EnvStep st = { 0 };
    while (!st.terminated && !st.truncated) {
        cr_assert_eq(env_step(&env, random_action(&ar), &st), ENV_OK);
        total += st.reward;
        env_render_obs80(&env, obs);
        h = fnv1a(h, &st.reward, sizeof st.reward);
        h = fnv1a(h, &st.frames, sizeof st.frames);
        h = fnv1a(h, obs, sizeof obs);
    }
    if (score) *score = total;
    if (hash) *hash = h;
    return env.steps;
}

// ----------------------------------------------------------------------------
// presets

// ale-py's registration as rules of the id (docs/pong-spec.md §5), not a copy of the table:
// NoFrameskip repeats each action once, Deterministic and v5 4 times, the others 2, 3 or 4
// times at random; v4 has no sticky actions, v0 and v5 repeat the last action with p 0.25;
// every id caps an episode at 108,000 frames and none at a number of steps.
Test(env, presets_table) {
    static const char *const IDS[] = { "Pong-v0", "Pong-v4", "PongDeterministic-v0", "PongDeterministic-v4",
        "PongNoFrameskip-v0", "PongNoFrameskip-v4", "ALE/Pong-v5" };
    int n = (int)(sizeof IDS / sizeof IDS[0]);
    for (int i = 0; i < n; i++) {
        const char *id = IDS[i];
        const bool v4 = strstr(id, "-v4") != NULL, v5 = strstr(id, "-v5") != NULL;
        const int lo = strstr(id, "NoFrameskip") ? 1 : strstr(id, "Deterministic") || v5 ? 4 : 2;
        const int hi = lo == 1 ? 1 : 4;
        const EnvPreset *p = env_preset_find(id);
        cr_assert_not_null(p, "%s", id);
        cr_assert_str_eq(p->id, id);
        cr_assert_eq(p->frameskip_min, lo, "%s", id);
        cr_assert_eq(p->frameskip_max, hi, "%s", id);
        cr_assert_eq(p->repeat_prob, v4 ? 0.0 : 0.25, "%s", id);
        cr_assert_eq(p->max_steps, 0, "%s", id);
        cr_assert_eq(p->max_frames, 108000, "%s", id);
        cr_assert_str_eq(env_preset_id(i), id);
    }
    cr_assert_null(env_preset_id(n));
    cr_assert_null(env_preset_id(-1));
    cr_assert_null(ENV_PRESETS[n].id);
    cr_assert_null(env_preset_find("Pong-v5"));
    cr_assert_null(env_preset_find("ale/pong-v5"));
    cr_assert_null(env_preset_find(""));
    cr_assert_null(env_preset_find(NULL));
}

Test(env, unknown_preset_is_an_error) {
    Env env;
    memset(&env, 0xAB, sizeof env);
    Env copy;
    memcpy(&copy, &env, sizeof env);
    cr_assert_eq(env_init(&env, "Breakout-v4", 0), ENV_ERR_PRESET);
    cr_assert(memcmp(&env, &copy, sizeof env) == 0, "env_init touched the env on error");
    cr_assert_null(env_new("Breakout-v4", 0));
    cr_assert_null(env_new(NULL, 0));
}

// ----------------------------------------------------------------------------
// frameskip

static void count_frameskips(const char *id, int64_t nsteps, int64_t counts[6]) {
    Env env;
    cr_assert_eq(env_init(&env, id, 1), ENV_OK);
    Rng ar;
    rng_seed(&ar, 2);
    memset(counts, 0, 6 * sizeof counts[0]);
    for (int64_t i = 0; i < nsteps; i++) {
        EnvStep st;
        int64_t frames_before = env.frames;
        cr_assert_eq(env_step(&env, random_action(&ar), &st), ENV_OK);
        cr_assert_eq(env.frames - frames_before, st.frames);
        if (st.terminated || st.truncated) { // the last step may stop early
            cr_assert_leq(st.frames, 4);
            env_reset(&env, 100 + (uint64_t)i);
            continue;
        }
        cr_assert(st.frames >= 1 && st.frames <= 5, "%s: frameskip %d", id, st.frames);
        counts[st.frames]++;
    }
}

Test(env, noframeskip_steps_one_frame) {
    int64_t c[6];
    count_frameskips("PongNoFrameskip-v4", 5000, c);
    cr_assert_eq(c[2] + c[3] + c[4] + c[5], 0);
    cr_assert_gt(c[1], 4900);
    count_frameskips("PongNoFrameskip-v0", 5000, c);
    cr_assert_eq(c[2] + c[3] + c[4] + c[5], 0);
    cr_assert_gt(c[1], 4900);
}

Test(env, deterministic_and_v5_step_four_frames) {
    const char *ids[] = { "PongDeterministic-v0", "PongDeterministic-v4", "ALE/Pong-v5" };
    for (int k = 0; k < 3; k++) {
        int64_t c[6];
        count_frameskips(ids[k], 3000, c);
        cr_assert_eq(c[1] + c[2] + c[3] + c[5], 0, "%s", ids[k]);
        cr_assert_gt(c[4], 2900, "%s", ids[k]);
    }
}

Test(env, random_frameskip_is_uniform_on_2_3_4) {
    const char *ids[] = { "Pong-v4", "Pong-v0" };
    for (int k = 0; k < 2; k++) {
        int64_t c[6];
        count_frameskips(ids[k], 9000, c);
        cr_assert_eq(c[1] + c[5], 0, "%s", ids[k]);
        int64_t n = c[2] + c[3] + c[4];
        for (int f = 2; f <= 4; f++) {
            // 1/3 each; the standard deviation of a count is ~45 over 9000 draws
            double frac = (double)c[f] / (double)n;
            cr_assert(frac > 0.30 && frac < 0.37, "%s: frameskip %d in %.3f of steps", ids[k], f, frac);
        }
    }
}

Test(env, same_seed_same_frameskips_on_v4) {
    Env a, b;
    env_init(&a, "Pong-v4", 9);
    env_init(&b, "Pong-v4", 9);
    int differ = 0;
    for (int i = 0; i < 500; i++) {
        EnvStep sa, sb;
        env_step(&a, ACTION_NOOP, &sa);
        env_step(&b, ACTION_NOOP, &sb);
        cr_assert_eq(sa.frames, sb.frames);
    }
    env_reset(&b, 10);
    env_reset(&a, 9);
    for (int i = 0; i < 500; i++) {
        EnvStep sa, sb;
        env_step(&a, ACTION_NOOP, &sa);
        env_step(&b, ACTION_NOOP, &sb);
        differ += sa.frames != sb.frames;
    }
    cr_assert_gt(differ, 100, "different seeds gave nearly the same frameskips");
}

// ----------------------------------------------------------------------------
// sticky actions

Test(env, sticky_actions_per_frame) {
    // ~33,000 informative frames: the standard deviation of the fraction is ~0.0024
    double f = sticky_kept_fraction("PongNoFrameskip-v0", -1, 40000);
    cr_log_info("PongNoFrameskip-v0: kept fraction %.4f\n", f);
    cr_assert(f > 0.24 && f < 0.26, "PongNoFrameskip-v0 kept fraction %.4f", f);
    cr_assert_eq(sticky_kept_fraction("PongNoFrameskip-v4", -1, 5000), 0.0);
}

// On ALE/Pong-v5 (4 frames a step) the applied actions inside a step are not visible, but the
// resistance is: with no clamping, a step whose previous action p differs in direction from
// the chosen a moves it by (k * dir(p) + (4 - k) * dir(a)) * STEP, where k is the number of
// leading frames that kept p. Each of the k + 1 frames up to the switch is one trial with
// probability repeat_prob (k = 4: four trials, all kept).
Test(env, sticky_actions_v5) {
    Env env;
    cr_assert_eq(env_init(&env, "ALE/Pong-v5", 5), ENV_OK);
    Rng ar;
    rng_seed(&ar, 6);
    const int dirs[3] = { ACTION_NOOP, ACTION_RIGHT, ACTION_LEFT };
    // near a clamp, turn back
    const int margin = 8 * PADDLE_RESISTANCE_STEP;
    int64_t trials = 0, kept = 0, first_kept = 0, first_trials = 0;
    for (int i = 0; i < 40000; i++) {
        int a = dirs[rng_below(&ar, 3)];
        // keep clear of the clamps so the resistance shows every applied frame
        if (env.resistance < PADDLE_RESISTANCE_MIN + margin) a = ACTION_LEFT;
        if (env.resistance > PADDLE_RESISTANCE_MAX - margin) a = ACTION_RIGHT;
        int p = env.last_action, r0 = env.resistance;
        EnvStep st;
        cr_assert_eq(env_step(&env, a, &st), ENV_OK);
        if (st.terminated || st.truncated) {
            env_reset(&env, 7000 + (uint64_t)i);
            continue;
        }
        if (action_dir(p) == action_dir(a)) continue;
        // a rare run of sticky frames may still reach a clamp: leave out steps that could
        // (decided before the step's draws, so no bias)
        if (r0 - 4 * PADDLE_RESISTANCE_STEP < PADDLE_RESISTANCE_MIN ||
            r0 + 4 * PADDLE_RESISTANCE_STEP > PADDLE_RESISTANCE_MAX)
            continue;
        int moved = (env.resistance - r0) / PADDLE_RESISTANCE_STEP;
        cr_assert_eq(moved * PADDLE_RESISTANCE_STEP, env.resistance - r0, "step %d", i);
        // moved = k dp + (4 - k) da  =>  k = (moved - 4 da) / (dp - da)
        int dp = action_dir(p), da = action_dir(a);
        int num = moved - 4 * da, den = dp - da;
        cr_assert_eq(num % den, 0);
        int k = num / den;
        cr_assert(k >= 0 && k <= 4, "k = %d", k);
        kept += k;
        trials += k < 4 ? k + 1 : 4;
        first_trials++;
        first_kept += k > 0;
    }
    double f = (double)kept / (double)trials, f1 = (double)first_kept / (double)first_trials;
    cr_log_info("ALE/Pong-v5: kept fraction %.4f over %ld frames, first frame %.4f\n", f, (long)trials, f1);
    cr_assert(f > 0.24 && f < 0.26, "kept fraction %.4f", f);
    cr_assert(f1 > 0.235 && f1 < 0.265, "first-frame kept fraction %.4f", f1);
}

Test(env, no_sticky_actions_on_v4_presets) {
    const char *ids[] = { "Pong-v4", "PongDeterministic-v4" };
    for (int k = 0; k < 2; k++) {
        Env env;
        env_init(&env, ids[k], 0);
        Rng ar;
        rng_seed(&ar, 1);
        for (int i = 0; i < 3000; i++) {
            int a = random_action(&ar);
            EnvStep st;
            env_step(&env, a, &st);
            cr_assert_eq(env.last_action, a, "%s", ids[k]);
            if (st.terminated || st.truncated) env_reset(&env, (uint64_t)i);
        }
    }
}

// ----------------------------------------------------------------------------
// paddle resistance

Test(env, paddle_resistance) {
    Env env;
    env_init(&env, "PongNoFrameskip-v4", 0);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_DEFAULT);
    cr_assert_eq(env.last_action, ACTION_NOOP);
    env_step(&env, ACTION_RIGHT, NULL);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_DEFAULT - 23000);
    env_step(&env, ACTION_RIGHTFIRE, NULL);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_DEFAULT - 2 * 23000);
    env_step(&env, ACTION_LEFT, NULL);
    env_step(&env, ACTION_LEFTFIRE, NULL);
    env_step(&env, ACTION_LEFTFIRE, NULL);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_DEFAULT + 23000);
    env_step(&env, ACTION_FIRE, NULL);
    env_step(&env, ACTION_NOOP, NULL);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_DEFAULT + 23000);
    for (int i = 0; i < 100; i++) env_step(&env, ACTION_LEFT, NULL);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_MAX);
    for (int i = 0; i < 100; i++) env_step(&env, ACTION_RIGHT, NULL);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_MIN);
    env_reset(&env, 0);
    cr_assert_eq(env.resistance, PADDLE_RESISTANCE_DEFAULT);
}

// ----------------------------------------------------------------------------
// rewards, termination, caps

Test(env, reward_is_the_score_change) {
    Env env;
    env_init(&env, "ALE/Pong-v5", 11);
    Rng ar;
    rng_seed(&ar, 12);
    EnvStep st = { 0 };
    int total = 0;
    EnvState s;
    while (!st.terminated && !st.truncated) {
        env_state(&env, &s);
        int64_t before = s.score_agent - s.score_cpu;
        cr_assert_eq(env_step(&env, random_action(&ar), &st), ENV_OK);
        env_state(&env, &s);
        cr_assert_eq(st.reward, s.score_agent - s.score_cpu - before);
        cr_assert(st.reward >= -4 && st.reward <= 4);
        total += st.reward;
    }
    cr_assert(st.terminated);
    cr_assert(s.score_agent == PONG_WIN_SCORE || s.score_cpu == PONG_WIN_SCORE);
    cr_assert_eq(total, s.score_agent - s.score_cpu);
    cr_assert(pong_game_over(&env.game));
}

// After the terminal frame nothing more is emulated, not even the rest of the frameskip.
Test(env, terminal_stops_emulation) {
    for (uint64_t seed = 0; seed < 5; seed++) {
        Env env;
        env_init(&env, "ALE/Pong-v5", seed);
        Rng ar;
        rng_seed(&ar, seed);
        EnvStep st = { 0 };
        PongObjects o;
        pong_objects(&env.game, &o);
        int game_frame = o.frame;
        int64_t frames = 0;
        while (!st.terminated) {
            cr_assert_eq(env_step(&env, random_action(&ar), &st), ENV_OK);
            frames += st.frames;
        }
        cr_assert_eq(frames, env.frames);
        // the game's own counter advanced by exactly the frames the env reports
        pong_objects(&env.game, &o);
        cr_assert_eq((int64_t)((o.frame - game_frame) & 0xFFFF), env.frames & 0xFFFF);
        Pong before;
        memcpy(&before, &env.game, sizeof before);
        cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_ERR_DONE);
        cr_assert(memcmp(&before, &env.game, sizeof before) == 0);
    }
}

// gym 0.21's step caps (python's caps="gym-0.21"): a preset's max_steps truncates at that
// many agent steps, even on the terminal step.
Test(env, max_steps_truncates_at_the_step_count) {
    Env env;
    env_init(&env, "Pong-v0", 0);
    env.preset.max_steps = 10000;
    // a random policy loses long before 10,000 steps, so start the count near the cap
    EnvStep st;
    env.steps = 9998;
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    cr_assert(!st.truncated && !st.terminated);
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    cr_assert(st.truncated && !st.terminated);
    cr_assert_eq(env.steps, 10000);
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_ERR_DONE);
    env_reset(&env, 1);
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    cr_assert(!st.truncated);
}

// ale-py: every v0/v4 id caps 108,000 frames and has no step cap.
Test(env, frame_caps_of_the_other_presets) {
    const char *ids[] = { "Pong-v0", "Pong-v4", "PongDeterministic-v0", "PongDeterministic-v4", "PongNoFrameskip-v0",
        "PongNoFrameskip-v4" };
    for (int k = 0; k < 6; k++) {
        Env env;
        env_init(&env, ids[k], 0);
        EnvStep st;
        env.steps = 1000000;
        env.frames = 108000 - 5;
        env_step(&env, ACTION_NOOP, &st);
        cr_assert(!st.truncated, "%s", ids[k]);
        while (env_step(&env, ACTION_NOOP, &st) == ENV_OK && !st.truncated) {}
        cr_assert(st.truncated && !st.terminated, "%s", ids[k]);
        cr_assert_eq(env.frames, 108000, "%s", ids[k]);
        cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_ERR_DONE, "%s", ids[k]);
    }
}

// ALE/Pong-v5 caps emulated frames, mid-step if need be: 108,000 frames = 27,000 steps.
Test(env, v5_truncates_at_108000_frames) {
    Env env;
    env_init(&env, "ALE/Pong-v5", 0);
    EnvStep st;
    env.frames = 108000 - 6;
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    cr_assert(!st.truncated);
    cr_assert_eq(st.frames, 4);
    PongObjects o;
    pong_objects(&env.game, &o);
    int game_frame = o.frame;
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    cr_assert(st.truncated && !st.terminated);
    cr_assert_eq(st.frames, 2);
    cr_assert_eq(env.frames, 108000);
    pong_objects(&env.game, &o);
    cr_assert_eq((o.frame - game_frame) & 0xFFFF, 2);
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_ERR_DONE);
    // with no step cap, the step count alone never truncates v5
    env_reset(&env, 0);
    env.steps = 1000000;
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    cr_assert(!st.truncated);
}

// ----------------------------------------------------------------------------
// errors

Test(env, bad_action_is_an_error) {
    Env env;
    env_init(&env, "ALE/Pong-v5", 0);
    Env before;
    env_copy(&before, &env);
    EnvStep st;
    int bad[] = { -1, 6, 7, 18, -1000000, 2147483647 };
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(env_step(&env, bad[i], &st), ENV_ERR_ACTION);
        cr_assert(memcmp(&before, &env, sizeof env) == 0, "a bad action changed the env");
    }
    for (int a = 0; a < ACTION_COUNT; a++) cr_assert_eq(env_step(&env, a, &st), ENV_OK);
    cr_assert_eq(env_step(&env, ACTION_COUNT, NULL), ENV_ERR_ACTION);
}

Test(env, step_after_end_is_an_error) {
    Env env;
    env_init(&env, "ALE/Pong-v5", 0);
    EnvStep st = { 0 };
    while (!st.terminated) cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    Env before;
    env_copy(&before, &env);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_ERR_DONE);
        cr_assert_eq(st.frames, 0);
        cr_assert_eq(st.reward, 0);
    }
    cr_assert(memcmp(&before, &env, sizeof env) == 0);
    env_reset(&env, 0);
    cr_assert_eq(env_step(&env, ACTION_NOOP, &st), ENV_OK);
    cr_assert(!st.terminated);
}

// ----------------------------------------------------------------------------
// seeding

Test(env, same_seed_same_episode) {
    const char *ids[] = { "ALE/Pong-v5", "Pong-v0", "Pong-v4" };
    for (int k = 0; k < 3; k++) {
        int sa, sb, sc;
        uint64_t ha, hb, hc;
        int64_t la = play_random(ids[k], 42, 1, &sa, &ha);
        int64_t lb = play_random(ids[k], 42, 1, &sb, &hb);
        cr_assert_eq(la, lb, "%s", ids[k]);
        cr_assert_eq(sa, sb, "%s", ids[k]);
        cr_assert_eq(ha, hb, "%s", ids[k]);
        // only the env seed differs: sticky actions / frameskips change the episode
        int64_t lc = play_random(ids[k], 43, 1, &sc, &hc);
        cr_assert_neq(ha, hc, "%s: seeds 42 and 43 gave the same episode", ids[k]);
        (void)lc;
    }
}

// With neither sticky actions nor random frameskip there is nothing to seed: the episode is
// a function of the actions alone (the game has no RNG).
Test(env, deterministic_v4_ignores_the_seed) {
    uint64_t ha, hb;
    play_random("PongDeterministic-v4", 1, 5, NULL, &ha);
    play_random("PongDeterministic-v4", 2, 5, NULL, &hb);
    cr_assert_eq(ha, hb);
}

Test(env, reset_restarts_the_episode) {
    // reset(seed) after some play behaves exactly like a fresh init(seed): same state, same
    // random stream, same frames from then on (compared through what can be observed, since
    // the game struct is private to pong/)
    Env a, b;
    env_init(&a, "ALE/Pong-v5", 3);
    env_init(&b, "ALE/Pong-v5", 9);
    for (int i = 0; i < 300; i++) env_step(&b, i % ACTION_COUNT, NULL);
    env_reset(&b, 3);
    static uint8_t ra[PONG_SCREEN_H * PONG_SCREEN_W * 3], rb[sizeof ra];
    Rng ar;
    rng_seed(&ar, 1);
    for (int i = 0; i < 500; i++) {
        EnvState sa, sb;
        env_state(&a, &sa);
        env_state(&b, &sb);
        cr_assert(memcmp(&sa, &sb, sizeof sa) == 0, "step %d", i); // no padding: all int64
        cr_assert(memcmp(a.rng.s, b.rng.s, sizeof a.rng.s) == 0, "step %d", i);
        env_render_rgb(&a, ra);
        env_render_rgb(&b, rb);
        cr_assert(memcmp(ra, rb, sizeof ra) == 0, "step %d", i);
        int act = random_action(&ar);
        EnvStep x, y;
        env_step(&a, act, &x);
        env_step(&b, act, &y);
        cr_assert_eq(x.reward, y.reward);
        cr_assert_eq(x.frames, y.frames);
    }
}

// ----------------------------------------------------------------------------
// observation and the handle API

Test(env, obs80_is_the_preprocessed_rgb) {
    Env env;
    env_init(&env, "ALE/Pong-v5", 0);
    Rng ar;
    rng_seed(&ar, 0);
    static uint8_t rgb[PONG_SCREEN_H * PONG_SCREEN_W * 3];
    uint8_t obs[PONG_OBS80 * PONG_OBS80];
    for (int i = 0; i < 400; i++) {
        env_render_rgb(&env, rgb);
        env_render_obs80(&env, obs);
        // Karpathy's prepro: rows 35:195 step 2, columns step 2, red channel, erase 144 / 109
        for (int y = 0; y < PONG_OBS80; y++)
            for (int x = 0; x < PONG_OBS80; x++) {
                uint8_t r = rgb[((35 + 2 * y) * PONG_SCREEN_W + 2 * x) * 3];
                uint8_t want = (r != 144 && r != 109) ? 1 : 0;
                cr_assert_eq(obs[y * PONG_OBS80 + x], want, "step %d at (%d, %d)", i, y, x);
            }
        EnvStep st;
        env_step(&env, random_action(&ar), &st);
        if (st.terminated || st.truncated) break;
    }
}

Test(env, handle_api) {
    cr_assert_eq(env_sizeof(), sizeof(Env));
    Env *env = env_new("PongNoFrameskip-v4", 8);
    cr_assert_not_null(env);
    cr_assert_str_eq(env->preset.id, "PongNoFrameskip-v4");
    EnvState s;
    env_state(env, &s);
    cr_assert_eq(s.steps, 0);
    cr_assert_eq(s.frames, 0);
    cr_assert_eq(s.resistance, PADDLE_RESISTANCE_DEFAULT);
    for (int i = 0; i < 70; i++) env_step(env, ACTION_RIGHT, NULL);
    env_state(env, &s);
    cr_assert_eq(s.steps, 70);
    cr_assert_eq(s.frames, 70);
    PongObjects o;
    pong_objects(&env->game, &o);
    cr_assert_eq(s.ball_x, o.ball_x);
    cr_assert_eq(s.ball_y, o.ball_y);
    cr_assert_eq(s.agent_y, o.agent_y);
    cr_assert_eq(s.cpu_y, o.cpu_y);
    cr_assert_eq(s.game_frame, o.frame);
    cr_assert_eq(s.last_action, ACTION_RIGHT);
    cr_assert_eq(s.resistance, PADDLE_RESISTANCE_MIN);
    cr_assert_eq(s.terminated, 0);
    env_free(env);
    env_free(NULL);
}

// ----------------------------------------------------------------------------
// random-policy statistics, against the real game (shared/reference/ale-real/README.md:
// ALE/Pong-v5 with the real ROM, 1000 episodes: mean score -20.319, sd 0.859, mean length
// 926.0 agent steps). 100 episodes here: a standard error of about 0.09 in the mean.

Test(env, random_policy_statistics_v5, .timeout = 240) {
    const int episodes = 100;
    double score_sum = 0, len_sum = 0;
    int64_t len_min = INT64_MAX, len_max = 0;
    int score_min = 21, score_max = -21;
    for (int e = 0; e < episodes; e++) {
        int score;
        int64_t len = play_random(
            "ALE/Pong-v5", rng_key(2024, (uint64_t)e, 0, 0), rng_key(2024, (uint64_t)e, 1, 0), &score, NULL);
        score_sum += score;
        len_sum += (double)len;
        if (len < len_min) len_min = len;
        if (len > len_max) len_max = len;
        if (score < score_min) score_min = score;
        if (score > score_max) score_max = score;
    }
    double mean_score = score_sum / episodes, mean_len = len_sum / episodes;
    // printed for the record: these are the numbers to compare with ALE
    fprintf(stderr,
        "random policy on ALE/Pong-v5 over %d episodes: mean score %.2f "
        "(min %d, max %d), mean length %.1f steps (min %ld, max %ld)\n",
        episodes, mean_score, score_min, score_max, mean_len, (long)len_min, (long)len_max);
    cr_expect(mean_score >= -20.65 && mean_score <= -20.0,
        "mean random score %.2f, the real game's -20.32 (1000 episodes)", mean_score);
    cr_expect(
        mean_len >= 880 && mean_len <= 970, "mean random episode length %.1f steps, the real game's 926.0", mean_len);
}

// ----------------------------------------------------------------------------
// state cloning (env_clone / env_restore, ALE's cloneState / restoreState)

// Steps with random actions from ar, hashing every step's reward, frames, flags, RAM and
// obs80; resets on the end of an episode (reset seeds from the same stream).
static uint64_t play_hash(Env *env, Rng *ar, int nsteps) {
    uint64_t h = 0xcbf29ce484222325ULL;
    uint8_t obs[PONG_OBS80 * PONG_OBS80], ram[PONG_RAM_SIZE];
    for (int i = 0; i < nsteps; i++) {
        EnvStep st;
        cr_assert_eq(env_step(env, random_action(ar), &st), ENV_OK);
        env_render_obs80(env, obs);
        env_ram(env, ram);
        h = fnv1a(h, &st, sizeof st);
        h = fnv1a(h, ram, sizeof ram);
        h = fnv1a(h, obs, sizeof obs);
        if (st.terminated || st.truncated) env_reset(env, rng_next(ar));
    }
    return h;
}

// With its stream, a restored state (into another env, made with another seed and played
// elsewhere) plays exactly what followed the clone, on every preset; the env after the
// restore is the cloned env, byte for byte.
Test(env, a_restored_state_with_its_stream_replays_what_followed) {
    static uint8_t buf[ENV_STATE_BYTES];
    for (int k = 0; env_preset_id(k) != NULL; k++) {
        const char *id = env_preset_id(k);
        Env a, b, snapshot;
        cr_assert_eq(env_init(&a, id, 11), ENV_OK);
        cr_assert_eq(env_init(&b, id, 99), ENV_OK);
        Rng ar, br;
        rng_seed(&ar, 5);
        rng_seed(&br, 6);
        play_hash(&a, &ar, 700);
        play_hash(&b, &br, 333);
        env_clone(&a, true, buf);
        cr_assert(env_state_has_rng(buf));
        env_copy(&snapshot, &a);
        Rng ar2 = ar;
        uint64_t want = play_hash(&a, &ar, 1500);
        cr_assert_eq(env_restore(&b, buf), ENV_OK, "%s", id);
        cr_assert(memcmp(&b, &snapshot, sizeof b) == 0, "%s: the restored env is not the cloned one", id);
        cr_assert_eq(play_hash(&b, &ar2, 1500), want, "%s: the restored state played otherwise", id);
    }
}

// Without its stream, a restore leaves the env's own stream as it was (ALE's cloneState()
// with include_rng false): on a preset with no randomness the replay is still exact, and on
// a sticky one the env's stream is the one it had before the restore.
Test(env, a_restored_state_without_its_stream_keeps_the_envs_stream) {
    static uint8_t buf[ENV_STATE_BYTES];
    Env a, b;
    Rng ar, br;
    env_init(&a, "PongDeterministic-v4", 1);
    rng_seed(&ar, 3);
    play_hash(&a, &ar, 400);
    env_clone(&a, false, buf);
    cr_assert(!env_state_has_rng(buf));
    Rng ar2 = ar;
    uint64_t want = play_hash(&a, &ar, 800);
    env_init(&b, "PongDeterministic-v4", 2);
    cr_assert_eq(env_restore(&b, buf), ENV_OK);
    cr_assert_eq(play_hash(&b, &ar2, 800), want);

    env_init(&a, "ALE/Pong-v5", 1);
    env_init(&b, "ALE/Pong-v5", 2);
    rng_seed(&ar, 3);
    rng_seed(&br, 4);
    play_hash(&a, &ar, 400);
    play_hash(&b, &br, 100);
    env_clone(&a, false, buf);
    Rng before = b.rng;
    cr_assert_eq(env_restore(&b, buf), ENV_OK);
    cr_assert(memcmp(&b.rng, &before, sizeof before) == 0, "the stream was restored");
    cr_assert(memcmp(&b.game, &a.game, sizeof a.game) == 0);
    cr_assert_eq(b.frames, a.frames);
    cr_assert_eq(b.steps, a.steps);
    cr_assert_eq(b.last_action, a.last_action);
    cr_assert_eq(b.resistance, a.resistance);
    // with the stream, b's own is replaced
    env_clone(&a, true, buf);
    cr_assert_eq(env_restore(&b, buf), ENV_OK);
    cr_assert(memcmp(&b.rng, &a.rng, sizeof a.rng) == 0);
}

// Like ALE's restoreState, a restore brings back the episode frame number and the frame
// number (getFrameNumber, which a reset does not clear), and the end of the episode.
Test(env, restore_brings_back_the_counters_and_the_end) {
    static uint8_t buf[ENV_STATE_BYTES];
    Env env;
    Rng ar;
    env_init(&env, "ALE/Pong-v5", 1);
    rng_seed(&ar, 8);
    play_hash(&env, &ar, 300);
    int64_t frames = env.frames, steps = env.steps, total = env_frame_number(&env);
    cr_assert_eq(total, frames);
    env_clone(&env, false, buf);
    play_hash(&env, &ar, 100);
    env_reset(&env, 5);
    cr_assert_eq(env.frames, 0);
    cr_assert_gt(env_frame_number(&env), total); // a reset keeps ALE's frame number
    env_restore(&env, buf);
    cr_assert_eq(env.frames, frames);
    cr_assert_eq(env.steps, steps);
    cr_assert_eq(env_frame_number(&env), total);
    // a finished episode stays finished after a restore
    EnvStep st = { 0 };
    while (!st.terminated && !st.truncated) env_step(&env, ACTION_NOOP, &st);
    env_clone(&env, true, buf);
    env_reset(&env, 1);
    cr_assert_eq(env_restore(&env, buf), ENV_OK);
    cr_assert_eq(env_step(&env, ACTION_NOOP, NULL), ENV_ERR_DONE);
}

// Bytes that are not a state of this version, or a state of another preset or flavour, are
// refused and leave the env as it was.
Test(env, restore_refuses_corrupt_and_foreign_states) {
    static uint8_t buf[ENV_STATE_BYTES], bad[ENV_STATE_BYTES];
    cr_assert_eq(env_state_size(), ENV_STATE_BYTES);
    Env env, copy;
    Rng ar;
    env_init(&env, "ALE/Pong-v5", 1);
    rng_seed(&ar, 1);
    play_hash(&env, &ar, 50);
    env_clone(&env, true, buf);
    play_hash(&env, &ar, 50);
    env_copy(&copy, &env);
    // every single flipped bit
    for (size_t i = 0; i < ENV_STATE_BYTES; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, buf, sizeof bad);
            bad[i] ^= (uint8_t)(1u << bit);
            cr_assert_eq(env_restore(&env, bad), ENV_ERR_STATE, "byte %zu bit %d", i, bit);
        }
    memset(bad, 0, sizeof bad);
    cr_assert_eq(env_restore(&env, bad), ENV_ERR_STATE);
    cr_assert_eq(env_restore(&env, NULL), ENV_ERR_ARG);
    cr_assert(memcmp(&env, &copy, sizeof env) == 0, "a refused restore touched the env");
    // another preset, the same preset with other numbers
    Env other;
    env_init(&other, "Pong-v0", 1);
    cr_assert_eq(env_restore(&other, buf), ENV_ERR_STATE_OTHER);
    env_init(&other, "ALE/Pong-v5", 1);
    other.preset.repeat_prob = 0.0;
    cr_assert_eq(env_restore(&other, buf), ENV_ERR_STATE_OTHER);
    cr_assert_str_eq(env_strerror(ENV_ERR_STATE_OTHER), "an env state of another preset, mode or difficulty");
    cr_assert_eq(env_restore(&env, buf), ENV_OK);
}

// Through the opaque-handle API a binding uses: clone, play on, restore, play again.
Test(env, clone_through_the_handle_api) {
    uint8_t *buf = malloc(env_state_size());
    Env *env = env_new("Pong-v4", 4);
    cr_assert_not_null(env);
    Rng ar;
    rng_seed(&ar, 2);
    play_hash(env, &ar, 123);
    env_clone(env, true, buf);
    Rng ar2 = ar;
    uint64_t want = play_hash(env, &ar, 500);
    cr_assert_eq(env_restore(env, buf), ENV_OK);
    cr_assert_eq(play_hash(env, &ar2, 500), want);
    env_free(env);
    free(buf);
}

// ----------------------------------------------------------------------------
// flavours: ALE's modes and difficulties

Test(env, bad_flavours_are_errors) {
    const int bad[][2] = { { -1, 0 }, { 2, 0 }, { 0, -1 }, { 0, 4 }, { 7, 9 } };
    Env env, copy;
    memset(&env, 0xAB, sizeof env);
    memcpy(&copy, &env, sizeof env);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cr_assert_eq(env_init_flavour(&env, "ALE/Pong-v5", bad[k][0], bad[k][1], 0), ENV_ERR_FLAVOUR);
        cr_assert_null(env_new_flavour("ALE/Pong-v5", bad[k][0], bad[k][1], 0));
    }
    cr_assert(memcmp(&env, &copy, sizeof env) == 0, "env_init_flavour touched the env on error");
    cr_assert_eq(env_init_flavour(&env, "Breakout-v4", 0, 0, 0), ENV_ERR_PRESET);
    cr_assert_str_eq(env_strerror(ENV_ERR_FLAVOUR), "no such flavour: mode must be 0 or 1, difficulty 0 to 3");
    cr_assert_eq(env_num_modes(), 2);
    cr_assert_eq(env_num_difficulties(), 4);
    for (int m = 0; m < 2; m++)
        for (int d = 0; d < 4; d++) {
            Env *e = env_new_flavour("Pong-v4", m, d, 1);
            cr_assert_not_null(e);
            cr_assert_eq(e->mode, m);
            cr_assert_eq(e->difficulty, d);
            env_free(e);
        }
}

// ALE's reset presses SELECT once in mode 1 and counts that frame (StellaEnvironment::
// pressSelect): measured with ALE 0.12.1 and the real ROM, getEpisodeFrameNumber() is 1 and
// getFrameNumber() 1 after the first reset_game() in mode 1 (0 and 0 in mode 0), and 1 and
// 12 after 10 more frames and a second reset; with max_num_frames_per_episode 10 a mode-1
// episode is truncated after 9 act() calls, a mode-0 one after 10.
Test(env, mode_1_counts_its_select_press_as_ale_does) {
    Env env;
    for (int mode = 0; mode < 2; mode++) {
        env_init_flavour(&env, "PongNoFrameskip-v4", mode, 0, 0);
        cr_assert_eq(env.frames, mode);
        cr_assert_eq(env_frame_number(&env), mode);
        for (int i = 0; i < 10; i++) env_step(&env, ACTION_NOOP, NULL);
        env_reset(&env, 0);
        cr_assert_eq(env.frames, mode);
        cr_assert_eq(env_frame_number(&env), mode ? 12 : 10);
        env.preset.max_frames = 10;
        EnvStep st = { 0 };
        int acts = 0;
        while (!st.truncated && !st.terminated) {
            env_step(&env, ACTION_NOOP, &st);
            acts++;
        }
        cr_assert_eq(acts, mode ? 9 : 10);
        cr_assert_eq(env.frames, 10);
    }
}

// A state of one flavour is refused by an env of another; within a flavour it round-trips.
Test(env, states_belong_to_their_flavour) {
    static uint8_t buf[ENV_STATE_BYTES];
    Env a, b;
    Rng ar;
    rng_seed(&ar, 1);
    env_init_flavour(&a, "ALE/Pong-v5", 1, 2, 5);
    play_hash(&a, &ar, 200);
    env_clone(&a, true, buf);
    for (int m = 0; m < 2; m++)
        for (int d = 0; d < 4; d++) {
            env_init_flavour(&b, "ALE/Pong-v5", m, d, 5);
            cr_assert_eq(
                env_restore(&b, buf), (m == 1 && d == 2) ? ENV_OK : ENV_ERR_STATE_OTHER, "mode %d difficulty %d", m, d);
        }
    env_init_flavour(&b, "ALE/Pong-v5", 1, 2, 6);
    cr_assert_eq(env_restore(&b, buf), ENV_OK);
    cr_assert(memcmp(&a, &b, sizeof a) == 0);
}
