// test_capi_null.c: every function of the installed headers (env.h, vecenv.h, atari_prep.h,
// pong.h) given NULL where a caller can pass one: refused with its documented answer, never
// followed (this runs under ASan+UBSan, where a followed NULL is a crash). test_capi_list.py
// checks that every function those headers declare is called here.
#include <criterion/criterion.h>
#include <string.h>

#include "env/atari_prep.h"
#include "env/env.h"
#include "env/vecenv.h"
#include "pong/pong.h"

Test(capi_null, env_functions_refuse_null) {
    uint8_t buf[ENV_STATE_BYTES], rgb[210 * 160 * 3];
    EnvStep st;
    EnvState es;
    cr_expect_null(env_preset_find(NULL));
    cr_expect_eq(env_init(NULL, "ALE/Pong-v5", 1), ENV_ERR_ARG);
    Env e;
    cr_expect_eq(env_init(&e, NULL, 1), ENV_ERR_PRESET);
    cr_expect_eq(env_init_flavour(NULL, "ALE/Pong-v5", 0, 0, 1), ENV_ERR_ARG);
    env_reset(NULL, 1);
    cr_expect_eq(env_step(NULL, 0, &st), ENV_ERR_ARG);
    cr_expect_eq(env_act(NULL, 0, 1, &st), ENV_ERR_ARG);
    env_clone(NULL, true, buf);
    cr_expect_eq(env_restore(NULL, buf), ENV_ERR_ARG);
    cr_expect_not(env_state_has_rng(NULL));
    cr_expect_null(env_new(NULL, 1));
    cr_expect_null(env_new_flavour(NULL, 0, 0, 1));
    env_free(NULL);
    env_state(NULL, &es);
    env_render_rgb(NULL, rgb);
    env_render_grayscale(NULL, rgb);
    env_render_obs80(NULL, rgb);
    env_render_indices(NULL, rgb);
    env_render_obs(NULL, OBS_RGB, rgb);
    env_ram(NULL, rgb);
    cr_expect_not(env_set_ram(NULL, 0, 0));
    cr_expect_not(env_set_repeat_prob(NULL, 0.25));
    cr_expect_eq(env_set_flavour(NULL, 0, 0), ENV_ERR_ARG);
    cr_expect_eq(env_preset_check(NULL), VECENV_ERR_ARG);
    cr_expect_str_eq(env_preset_problem(NULL), "no preset (NULL)");
    cr_expect_null(env_new_preset(NULL, 1));
    // a real env: each of its buffers NULL
    Env *env = env_new("ALE/Pong-v5", 1);
    cr_assert_not_null(env);
    cr_expect_eq(env_step(env, 0, NULL), ENV_OK); // out may be NULL: documented
    env_clone(env, true, NULL);
    cr_expect_eq(env_restore(env, NULL), ENV_ERR_ARG);
    char err[128];
    cr_expect_eq(env_state_check(env, NULL, err, sizeof(err)), ENV_ERR_ARG);
    cr_expect_str_eq(err, "no state (NULL)");
    cr_expect_eq(env_state_check(NULL, buf, NULL, 0), ENV_ERR_ARG);
    env_state(env, NULL);
    env_render_rgb(env, NULL);
    env_render_grayscale(env, NULL);
    env_render_obs80(env, NULL);
    env_render_indices(env, NULL);
    env_render_obs(env, OBS_RGB, NULL);
    env_ram(env, NULL);
    env_free(env);
}

Test(capi_null, a_bad_preset_says_what_is_wrong) {
    EnvPreset p = *env_preset_find("ALE/Pong-v5");
    cr_expect_null(env_preset_problem(&p));
    p.frameskip_min = 0;
    cr_expect_str_eq(env_preset_problem(&p), "frameskip_min must be >= 1, got 0");
    p = *env_preset_find("ALE/Pong-v5");
    p.repeat_prob = 1.5;
    cr_expect_str_eq(env_preset_problem(&p), "repeat_prob must be in [0, 1], got 1.5");
    p = *env_preset_find("ALE/Pong-v5");
    p.max_frames = -3;
    cr_expect_str_eq(env_preset_problem(&p), "max_frames must be >= 0 (0: none), got -3");
    const char *why = NULL;
    VecConfig c = { .num_envs = 2, .num_threads = 1 };
    cr_expect_null(vecenv_create(&p, &c, &why));
    cr_expect_str_eq(why, "max_frames must be >= 0 (0: none), got -3");
}

Test(capi_null, vecenv_functions_refuse_null) {
    uint8_t buf[ENV_STATE_BYTES];
    VecEnvCounters k;
    VecEnvStep vs;
    int32_t actions[2] = { 0, 0 };
    bool mask[2] = { true, true };
    const char *why = NULL;
    const EnvPreset *p = env_preset_find("ALE/Pong-v5");
    VecConfig c = { .num_envs = 2, .num_threads = 1 };
    cr_expect_null(vecenv_create(NULL, &c, &why));
    cr_expect_str_eq(why, "no preset (NULL)");
    cr_expect_null(vecenv_create(p, NULL, &why));
    cr_expect_str_eq(why, "no configuration (NULL)");
    cr_expect_null(vecenv_create(p, NULL, NULL));
    cr_expect_null(vecenv_new(NULL, 2, 1, OBS_RGB));
    vecenv_free(NULL);
    cr_expect_eq(vecenv_num_threads(NULL), 0);
    cr_expect_eq(vecenv_batch_size(NULL), 0);
    cr_expect_eq(vecenv_obs_size(NULL), 0);
    cr_expect_null(vecenv_env(NULL, 0));
    cr_expect_eq(vecenv_clone(NULL, 0, true, buf), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_restore(NULL, 0, buf), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_set_repeat_prob(NULL, 0, 0.25), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_env_counters(NULL, 0, &k), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_set_counters(NULL, 0, &k), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_reset_env(NULL, 0, 1), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_step_env(NULL, 0, 0, &vs), VECENV_ERR_ARG);
    VecEnv *v = vecenv_create(p, &c, &why);
    cr_assert_not_null(v, "%s", why ? why : "");
    size_t n = vecenv_obs_size(v);
    uint8_t *obs = calloc(2, n);
    double rew[2];
    bool term[2], trunc[2];
    VecOut out = { .obs = obs, .rewards = rew, .terminated = term, .truncated = trunc };
    cr_expect_eq(vecenv_reset(NULL, 1, &out), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_reset(v, 1, NULL), VECENV_ERR_ARG);
    VecOut holes = out;
    holes.obs = NULL;
    cr_expect_eq(vecenv_reset(v, 1, &holes), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_reset(v, 1, &out), ENV_OK);
    cr_expect_eq(vecenv_reset_mask(NULL, mask, NULL, &out), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_reset_mask(v, mask, NULL, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_step(NULL, actions, &out, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_step(v, NULL, &out, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_step(v, actions, NULL, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_step(v, actions, &holes, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_clone(v, 0, true, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_restore(v, 0, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_env_counters(v, 0, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_set_counters(v, 0, NULL), VECENV_ERR_ARG);
    cr_expect_eq(vecenv_step(v, actions, &out, NULL), ENV_OK);
    vecenv_free(v);
    free(obs);
    VecConfig cc = { .num_envs = 1, .num_threads = 1, .caller_stepped = true, .autoreset = VECENV_SAME_STEP };
    v = vecenv_create(p, &cc, &why);
    cr_assert_not_null(v, "%s", why ? why : "");
    cr_expect_eq(vecenv_reset_env(v, 0, 1), ENV_OK);
    cr_expect_eq(vecenv_step_env(v, 0, 0, NULL), VECENV_ERR_ARG);
    vecenv_free(v);
}

Test(capi_null, atari_and_pong_functions_refuse_null) {
    uint8_t b[PONG_STATE_BYTES], rgb[210 * 160 * 3];
    char err[64];
    cr_expect_str_eq(atari_config_check(NULL), "no configuration (NULL)");
    cr_expect_eq(atari_obs_size(NULL), 0);
    mt19937_seed(NULL, 1);
    cr_expect_eq(mt19937_next(NULL), 0);
    cr_expect_eq(mt19937_uniform(NULL, 5), 0);
    cr_expect_eq(area_resize_init(NULL, 210, 160, 84, 84, 1), -1);
    area_resize_free(NULL);
    area_resize_run(NULL, rgb, rgb, NULL);
    float hsum[4];
    area_resize_update(NULL, rgb, rgb, hsum, rgb, rgb);
    AtariConfig cfg = { 0 };
    cr_expect_eq(atari_env_init(NULL, &cfg, NULL, 1), -1);
    atari_env_free(NULL);
    cr_expect_eq(atari_scratch_init(NULL, &cfg), -1);
    atari_scratch_free(NULL);
    atari_env_reset(NULL, 1, NULL);
    atari_env_step(NULL, 0, NULL);
    cr_expect_not(atari_env_terminated(NULL));
    cr_expect_not(atari_env_truncated(NULL));
    atari_env_obs(NULL, rgb);
    pong_reset(NULL);
    cr_expect_not(pong_reset_flavour(NULL, 0, 0));
    cr_expect_eq(pong_frame(NULL, 100, false), 0);
    pong_state_save(NULL, b);
    pong_state_load(NULL, b);
    cr_expect_eq(pong_state_check(NULL, err, sizeof(err)), -1);
    cr_expect_str_eq(err, "no state (NULL)");
    pong_ram(NULL, b);
    cr_expect_eq(pong_score_cpu(NULL), 0);
    cr_expect_eq(pong_score_agent(NULL), 0);
    PongObjects o;
    pong_objects(NULL, &o);
    pong_render_rgb(NULL, rgb);
    pong_render_indices(NULL, rgb);
    pong_render_gray(NULL, rgb);
    pong_render_obs80(NULL, rgb);
    pong_palette_rgb(0, NULL);
    Pong g;
    pong_reset(&g);
    pong_render_rgb(&g, NULL);
    pong_ram(&g, NULL);
    pong_objects(&g, NULL);
}
