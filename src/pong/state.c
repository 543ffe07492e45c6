// state.c: the game as bytes (env_clone, env_restore) and what tools and bindings read of it
// (the RAM, the scores, where the last picture shows the objects).
#include <stdio.h>
#include <string.h>

#include "../util/bytes.h"
#include "cartridge.h"
#include "kernel.h"

void pong_ram(const Pong *g, uint8_t ram[PONG_RAM_SIZE]) {
    if (g && ram) memcpy(ram, g->ram, PONG_RAM_SIZE);
}

// ----------------------------------------------------------------------------
// The state as bytes: every field of Pong in declaration order, pot_resistance as 4 bytes
// little-endian. A field added to Pong must be added here (and PONG_STATE_BYTES grown).

static void picture_put(ByteWriter *w, const PongPicture *p) {
    bytes_put_u8(w, p->cpu_v);
    bytes_put_u8(w, p->agent_v);
    bytes_put_u8(w, p->cpu_mask);
    bytes_put_u8(w, p->agent_mask);
    bytes_put_u8(w, p->ball_v);
    bytes_put_u8(w, p->ball_x);
    bytes_put_u8(w, p->vdel);
    bytes_put_u8(w, p->paddle_line);
    bytes_put(w, p->digits, 4);
    bytes_put_u8(w, p->agent_digits_mask);
    bytes_put(w, p->colors, 4);
}
static void picture_get(ByteReader *r, PongPicture *p) {
    p->cpu_v = bytes_get_u8(r);
    p->agent_v = bytes_get_u8(r);
    p->cpu_mask = bytes_get_u8(r);
    p->agent_mask = bytes_get_u8(r);
    p->ball_v = bytes_get_u8(r);
    p->ball_x = bytes_get_u8(r);
    p->vdel = bytes_get_u8(r);
    p->paddle_line = bytes_get_u8(r);
    bytes_get(r, p->digits, 4);
    p->agent_digits_mask = bytes_get_u8(r);
    bytes_get(r, p->colors, 4);
}

void pong_state_save(const Pong *g, uint8_t buf[PONG_STATE_BYTES]) {
    if (!g || !buf) return;
    ByteWriter w = { buf, 0 };
    bytes_put(&w, g->ram, PONG_RAM_SIZE);
    bytes_put_u8(&w, g->switches);
    bytes_put(&w, g->colors, 4);
    bytes_put_u8(&w, g->collisions);
    bytes_put_u8(&w, g->ball_x);
    bytes_put_u8(&w, g->vdel);
    picture_put(&w, &g->pic);
    bytes_put(&w, g->digits_of, 2);
    bytes_put_u8(&w, g->colors_of);
    bytes_put_u32(&w, (uint32_t)g->pot_resistance);
    bytes_put_u8(&w, g->pot_line);
    bytes_put_u8(&w, g->default_line);
    memset(buf + w.pos, 0, PONG_STATE_BYTES - w.pos);
}

void pong_state_load(Pong *g, const uint8_t buf[PONG_STATE_BYTES]) {
    if (!g || !buf) return;
    ByteReader r = { buf, PONG_STATE_BYTES, 0, false };
    memset(g, 0, sizeof *g);
    bytes_get(&r, g->ram, PONG_RAM_SIZE);
    g->switches = bytes_get_u8(&r);
    bytes_get(&r, g->colors, 4);
    g->collisions = bytes_get_u8(&r);
    g->ball_x = bytes_get_u8(&r);
    g->vdel = bytes_get_u8(&r);
    picture_get(&r, &g->pic);
    bytes_get(&r, g->digits_of, 2);
    g->colors_of = bytes_get_u8(&r);
    g->pot_resistance = (int)bytes_get_u32(&r);
    g->pot_line = bytes_get_u8(&r);
    g->default_line = bytes_get_u8(&r);
}

// ----------------------------------------------------------------------------
// What a real game can hold (pong_state_check). A state is untrusted input (a file, a pickle,
// another process), so every field that the game counts or positions with is held to the
// range the cartridge keeps it in: each range below follows from its rules (logic.c, kernel.c)
// and agrees with the real recordings (shared/reference/ale-real and tests/data/ale-real's
// firetrack-1 and wrap-1: 32 episodes, 224,334 frames of every mode and difficulty; "recorded"
// gives what they hold):
//   scores $8D, $8E       0..21: from 0, one point at a time while both are at most 20
//                         (score_at_most_20); a stopped game sets the CPU's to $96 + 1.
//                         Recorded: the CPU's 0..21, the agent's 0..11.
//   game $96              0..1: ALE's mode, set at reset and never written again. Recorded 0..1.
//   serve timer $8B       0..63: $3F after a point, counted down to 0; 59 at reset. Recorded 0..63.
//   ball counter $B1      0 (reset, before the first serve) or 49..208: the ball stops with a point
//                         as soon as it leaves 53..204 ($F181) and moves at most 4 a frame.
//                         Recorded 0 and 50..208.
//   ball speed $BA        -4..4: +-1 at a serve, $F510 stops at 4, a contact only negates it.
//                         Recorded -4..4.
//   ball column           0..159 (the game's and the picture's): the counter - 49 ($F445), 2 at
//                         reset.
//   agent's bat $B3, $BC  38..203 (and the picture's): the paddle's reading filtered, (reading +
//                         last) / 2 from 109 at reset, of a reading that ALE's resistance range
//                         puts in 38..204 (kernel_paddle_line). Recorded 38..203.
//   paddle caches         the reading of the last resistance, which is in ALE's range, and of
//                         ALE's default resistance (the other jack): kernel_paddle_line of them.
// A real game reaches every value of the others. The ball's vertical counter $B6 (and so the
// CPU's bat $B2/$95, which follows it): in game 2 with the agent's bat short the ball can slip
// through a wall and come round the other side (our game, 100 M frames of random and tracking
// play over the flavours: $B6 went on past 213 to 250 and round to 3; the recordings, 0..211,
// are too short to show it). The frame count $88/$89 wraps, and the game stops itself there.

#define SERVE_TIMER_MAX 0x3F // $F3AB: where a point sets it (logic.c's SERVE_DELAY_AFTER_POINT)
#define BALL_DX_MAX     4    // $F510: the speed-up stops at 4 either way
#define BALL_X_PLAY_LO  53   // $F181: a point once BALL_X - 1 leaves 52..203 (dist_x < 13)
#define BALL_X_PLAY_HI  204

static int state_refuse(char *err, size_t errlen, const char *what, int value, int lo, int hi) {
    if (err == NULL || errlen == 0) return -1;
    if (lo == hi)
        snprintf(err, errlen, "%s is %d, must be %d", what, value, lo);
    else
        snprintf(err, errlen, "%s is %d, must be %d..%d", what, value, lo, hi);
    return -1;
}

int pong_state_check(const uint8_t buf[PONG_STATE_BYTES], char *err, size_t errlen) {
    if (!buf) {
        if (err && errlen) snprintf(err, errlen, "no state (NULL)");
        return -1;
    }
    Pong g;
    pong_state_load(&g, buf);
    const int bat_lo = kernel_paddle_line(PADDLE_RESISTANCE_MIN);
    const int bat_hi = kernel_paddle_line(PADDLE_RESISTANCE_MAX) - 1;
    const struct {
        const char *what;
        int value, lo, hi;
    } ranges[] = {
        { "the CPU's score (RAM $8D)", RAM(&g, SCORE_CPU), 0, PONG_WIN_SCORE },
        { "the agent's score (RAM $8E)", RAM(&g, SCORE_AGENT), 0, PONG_WIN_SCORE },
        { "the game number (RAM $96)", RAM(&g, GAME), 0, PONG_MODES - 1 },
        { "the serve timer (RAM $8B)", RAM(&g, SERVE_TIMER), 0, SERVE_TIMER_MAX },
        { "the ball's horizontal speed (RAM $BA)", (int8_t)RAM(&g, BALL_DX), -BALL_DX_MAX, BALL_DX_MAX },
        { "the ball's column", g.ball_x, 0, PONG_SCREEN_W - 1 },
        { "the picture's ball column", g.pic.ball_x, 0, PONG_SCREEN_W - 1 },
        { "the agent's bat (RAM $B3)", RAM(&g, BAT_V + 1), bat_lo, bat_hi },
        { "the agent's paddle reading (RAM $BC)", RAM(&g, PADDLES + 1), bat_lo, bat_hi },
        { "the picture's agent bat", g.pic.agent_v, bat_lo, bat_hi },
        { "the paddle cache's resistance", g.pot_resistance, PADDLE_RESISTANCE_MIN, PADDLE_RESISTANCE_MAX },
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (ranges[i].value < ranges[i].lo || ranges[i].value > ranges[i].hi)
            return state_refuse(err, errlen, ranges[i].what, ranges[i].value, ranges[i].lo, ranges[i].hi);
    const int bx = RAM(&g, BALL_X);
    if (bx != 0 && (bx < BALL_X_PLAY_LO - BALL_DX_MAX || bx > BALL_X_PLAY_HI + BALL_DX_MAX)) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "the ball's horizontal counter (RAM $B1) is %d, must be 0 or %d..%d", bx,
                BALL_X_PLAY_LO - BALL_DX_MAX, BALL_X_PLAY_HI + BALL_DX_MAX);
        return -1;
    }
    const int pot = kernel_paddle_line(g.pot_resistance), def = kernel_paddle_line(PADDLE_RESISTANCE_DEFAULT);
    if (g.pot_line != pot) return state_refuse(err, errlen, "the paddle cache's reading", g.pot_line, pot, pot);
    if (g.default_line != def) return state_refuse(err, errlen, "the default paddle reading", g.default_line, def, def);
    return 0;
}

int pong_score_cpu(const Pong *g) { return g ? RAM(g, SCORE_CPU) : 0; }
int pong_score_agent(const Pong *g) { return g ? RAM(g, SCORE_AGENT) : 0; }

void pong_objects(const Pong *g, PongObjects *o) {
    if (!g || !o) return;
    const PongPicture *p = &g->pic;
    o->ball_x = p->ball_x;
    o->ball_y = (int)p->ball_v - 14;
    o->ball_vx = -(int8_t)RAM(g, BALL_DX);
    o->ball_vy = (int8_t)RAM(g, BALL_DV);
    // its rows (counter - 14 .. counter - 11) reach the field, rows 34..193
    o->ball_visible = p->ball_v >= WALL_TOP_ROW1 + 1 + 11 && p->ball_v <= WALL_BOTTOM_ROW0 - 1 + 14;
    o->cpu_y = (int)p->cpu_v - 15;
    o->agent_y = (int)(p->agent_v + 1) / 2 * 2 - 14;
    o->frame = RAM(g, FRAME_HI) << 8 | RAM(g, FRAME);
}
