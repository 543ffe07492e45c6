// test_env_repeat.c: env_set_repeat_prob, the repeat-action probability set between steps (PPO's
// --sticky-warmup): the next steps keep actions at the new rate, the draws come from the env's
// own stream (a v5 env set to 0 plays PongDeterministic-v4's game), a clone holds the
// probability, and values outside [0, 1] are refused with the env untouched.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "env/env.h"
#include "test_sticky.h"

// PongNoFrameskip-v0 (frameskip 1, 0.25 of its own) set to other probabilities
Test(env_repeat, the_rate_follows_the_setting) {
    cr_assert_eq(sticky_kept_fraction("PongNoFrameskip-v0", 0.0, 5000), 0.0);
    cr_assert_eq(sticky_kept_fraction("PongNoFrameskip-v0", 1.0, 5000), 1.0);
    // ~33,000 informative frames: the standard deviation of the fraction is ~0.0017 at 0.1
    double f = sticky_kept_fraction("PongNoFrameskip-v0", 0.1, 40000);
    cr_assert(f > 0.09 && f < 0.11, "set to 0.1: kept fraction %.4f", f);
}

Test(env_repeat, zero_plays_the_deterministic_game) {
    Env v5, det;
    cr_assert_eq(env_init(&v5, "ALE/Pong-v5", 7), ENV_OK);
    cr_assert_eq(env_init(&det, "PongDeterministic-v4", 7), ENV_OK);
    cr_assert(env_set_repeat_prob(&v5, 0.0));
    Rng ar;
    rng_seed(&ar, 5);
    uint8_t a80[6400], b80[6400];
    for (int i = 0; i < 3000 && !v5.terminated; i++) {
        int a = (int)rng_below(&ar, ACTION_COUNT);
        EnvStep s1, s2;
        cr_assert_eq(env_step(&v5, a, &s1), ENV_OK);
        cr_assert_eq(env_step(&det, a, &s2), ENV_OK);
        cr_assert_eq(s1.reward, s2.reward, "step %d", i);
        cr_assert_eq(s1.terminated, s2.terminated, "step %d", i);
        env_render_obs80(&v5, a80);
        env_render_obs80(&det, b80);
        cr_assert(memcmp(a80, b80, sizeof a80) == 0, "step %d: other frames", i);
    }
    // and back to its own 0.25: the stream (untouched while at 0) decides again
    cr_assert(env_set_repeat_prob(&v5, 0.25));
    cr_assert_eq(v5.preset.repeat_prob, 0.25);
}

Test(env_repeat, a_clone_holds_it) {
    Env a, b;
    uint8_t buf[ENV_STATE_BYTES];
    cr_assert_eq(env_init(&a, "ALE/Pong-v5", 1), ENV_OK);
    cr_assert_eq(env_init(&b, "ALE/Pong-v5", 2), ENV_OK);
    cr_assert(env_set_repeat_prob(&a, 0.125));
    env_clone(&a, true, buf);
    // a state of another probability is another preset's numbers
    cr_assert_eq(env_restore(&b, buf), ENV_ERR_STATE_OTHER);
    cr_assert(env_set_repeat_prob(&b, 0.125));
    cr_assert_eq(env_restore(&b, buf), ENV_OK);
}

Test(env_repeat, out_of_range_is_refused) {
    Env env;
    cr_assert_eq(env_init(&env, "ALE/Pong-v5", 1), ENV_OK);
    const double bad[] = { -0.0001, 1.0001, NAN, INFINITY, -INFINITY };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_not(env_set_repeat_prob(&env, bad[i]), "%g accepted", bad[i]);
        cr_assert_eq(env.preset.repeat_prob, 0.25);
    }
}
