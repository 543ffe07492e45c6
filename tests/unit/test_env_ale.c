// test_env_ale.c: ALE's low level on one env (env_act, env_set_ram, env_render_indices), the
// C side of python/pongrl/ale.py's ALEInterface.
#include <criterion/criterion.h>
#include <string.h>

#include "env/env.h"

Test(env_ale, act_emulates_the_frames_asked_and_keeps_the_preset) {
    Env a, b;
    cr_assert_eq(env_init(&a, "PongNoFrameskip-v4", 1), ENV_OK);
    cr_assert_eq(env_init(&b, "ALE/Pong-v5", 1), ENV_OK);
    b.preset.repeat_prob = 0.0; // no stickiness: the two must emulate the same frames
    EnvStep s;
    for (int t = 0; t < 200; t++) {
        int act = (t / 7) % ACTION_COUNT;
        for (int k = 0; k < 3; k++) cr_assert_eq(env_step(&a, act, &s), ENV_OK);
        cr_assert_eq(env_act(&b, act, 3, &s), ENV_OK);
        cr_assert_eq(s.frames, 3);
    }
    cr_assert_eq(memcmp(a.game.ram, b.game.ram, PONG_RAM_SIZE), 0);
    cr_assert_eq(a.frames, b.frames);
    cr_assert_eq(b.preset.frameskip_min, 4);
    cr_assert_eq(b.preset.frameskip_max, 4);
    cr_assert_eq(env_step(&b, 0, &s), ENV_OK);
    cr_assert_eq(s.frames, 4);
    cr_assert_eq(env_act(&b, 0, 0, &s), ENV_ERR_ACTION);
    cr_assert_eq(env_act(&b, 6, 1, &s), ENV_ERR_ACTION);
}

Test(env_ale, set_ram_pokes_one_byte_and_the_game_reads_it) {
    Env e;
    env_init(&e, "PongNoFrameskip-v4", 0);
    uint8_t ram[PONG_RAM_SIZE], before[PONG_RAM_SIZE];
    env_ram(&e, before);
    cr_assert(!env_set_ram(&e, 128, 1));
    cr_assert(!env_set_ram(&e, -1, 1));
    env_ram(&e, ram);
    cr_assert_eq(memcmp(ram, before, PONG_RAM_SIZE), 0);
    // the agent's score (RAM $8E, pong.h) set to 21: the next frame ends the game
    cr_assert(env_set_ram(&e, 0x8E - 0x80, PONG_WIN_SCORE));
    env_ram(&e, ram);
    cr_assert_eq(ram[0x0E], PONG_WIN_SCORE);
    ram[0x0E] = before[0x0E];
    cr_assert_eq(memcmp(ram, before, PONG_RAM_SIZE), 0);
    EnvStep s;
    cr_assert_eq(env_act(&e, ACTION_NOOP, 1, &s), ENV_OK);
    cr_assert(s.terminated);
}

Test(env_ale, indices_are_the_rgb_screen_through_the_palette) {
    Env e;
    env_init(&e, "ALE/Pong-v5", 3);
    for (int t = 0; t < 300; t++) env_step(&e, t % ACTION_COUNT, NULL);
    static uint8_t idx[PONG_SCREEN_H * PONG_SCREEN_W], rgb[PONG_SCREEN_H * PONG_SCREEN_W * 3];
    env_render_indices(&e, idx);
    env_render_rgb(&e, rgb);
    int colours = 0;
    uint8_t seen[256] = { 0 };
    for (int i = 0; i < PONG_SCREEN_H * PONG_SCREEN_W; i++) {
        uint8_t c[3];
        pong_palette_rgb(idx[i], c);
        cr_assert_eq(memcmp(c, rgb + 3 * i, 3), 0, "pixel %d", i);
        if (!seen[idx[i]]++) colours++;
    }
    cr_assert_geq(colours, 4); // background, walls, two bats (and digits)
}

Test(env_ale, set_flavour_takes_effect_at_the_next_reset) {
    Env a, b;
    env_init(&a, "ALE/Pong-v5", 5);
    cr_assert_eq(env_init_flavour(&b, "ALE/Pong-v5", 1, 3, 5), ENV_OK);
    cr_assert_eq(env_set_flavour(&a, 2, 0), ENV_ERR_FLAVOUR);
    cr_assert_eq(env_set_flavour(&a, 0, 4), ENV_ERR_FLAVOUR);
    cr_assert_eq(env_set_flavour(&a, 1, 3), ENV_OK);
    cr_assert_neq(memcmp(a.game.ram, b.game.ram, PONG_RAM_SIZE), 0); // not before the reset
    env_reset(&a, 5);
    env_reset(&b, 5);
    cr_assert_eq(memcmp(a.game.ram, b.game.ram, PONG_RAM_SIZE), 0);
    cr_assert_eq(a.frames, b.frames);
}

// setRAM may write any byte ALE's would: whatever the game then reads from its RAM (digit
// pointers, scores, positions) must stay inside the game's tables. Under ASan this test
// fails on any read past them.
Test(env_ale, any_ram_byte_set_to_any_value_is_safe) {
    static const uint8_t values[] = { 0x00, 0x14, 0x7F, 0x80, 0xC9, 0xFF };
    static uint8_t rgb[PONG_SCREEN_H * PONG_SCREEN_W * 3], idx[PONG_SCREEN_H * PONG_SCREEN_W], obs[80 * 80];
    Env base;
    env_init(&base, "PongNoFrameskip-v4", 5);
    for (int t = 0; t < 200; t++) env_step(&base, t % ACTION_COUNT, NULL);
    for (int i = 0; i < PONG_RAM_SIZE; i++)
        for (size_t v = 0; v < sizeof values; v++) {
            Env e = base;
            cr_assert(env_set_ram(&e, i, values[v]));
            for (int t = 0; t < 8; t++) {
                EnvStep s;
                if (env_act(&e, t % ACTION_COUNT, 1, &s) != ENV_OK) break;
            }
            env_render_rgb(&e, rgb);
            env_render_indices(&e, idx);
            env_render_obs80(&e, obs);
        }
}
