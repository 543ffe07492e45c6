// logic.c: the cartridge's logic of Video Olympics games 1 and 2 (Pong against the
// computer): the rules that change the RAM each frame, the end of the frame's bookkeeping,
// and the state ALE's reset leaves. The picture is the kernel's (kernel.c), drawn by
// render.c.
//
// Evidence. The rules below are the cartridge's own program (cartridge.h), specialised to
// games 1 and 2 (ALE's modes 0 and 1) and the four positions of the difficulty switches.
// tests/unit/test_pong.c replays real ALE episodes (tests/data/ale-real/) and checks every
// frame's RGB crc32, RAM and reward.
//
// A frame, as ALE cuts them (a frame ends when the program turns VSYNC off):
//   1. game logic ($F0CE..$F21F): serve, scoring, wall and bat contacts, ball motion, the
//      CPU bat, object positions. Reads the collision latches of the previous frame.
//   2. kernel ($F5B8, $F585 score, $F5D0 field, kernel.c): draws the picture, reads the
//      paddle (the line on which its capacitor charges) and latches the collisions.
//   3. end of frame ($F00C..$F0C9): score digit pointers, sound timer, colours for the next
//      frame ($F23A), frame counters, paddle buttons.
#include <string.h>

#include "cartridge.h"
#include "kernel.h"

// What the cartridge stores in SOUND ($8C): the effect (bits 6-7) and its timer (bits 0-5).
enum { SOUND_SERVE = 0x48, SOUND_POINT = 0x0F, SOUND_WALL = 0x84, SOUND_BAT = 0xC4, SOUND_TIMER_BITS = 0x3F };
#define SERVE_DELAY_AFTER_POINT 0x3F // $F3AB: frames from a point to the next serve
#define HOLD_BALL               0x40 // HOLD bit 6: the ball is held (other games' catching)
#define HOLD_WALL               0x80 // HOLD bit 7: the last move was a wall contact
#define HIT_WALL                0x40 // HIT_FLAGS after a wall contact
#define RUNNING_BIT             0x80 // RUNNING bit 7: a game runs

// The bats' height masks ($A5, $A6).
#define BAT_MASK_LONG  0xF0 // $A5/$A6 with the difficulty switch at B: 16 counter values
#define BAT_MASK_SHORT 0xF8 // at A: 8 ($F6A4 + 1)
#define BAT_SHORT_BIT  0x08 // the bit of the mask that says which ($F4D0)

// Colours of game 1 ($F659 row 0: $9C, $9E, $A0, $A2), before the attract shift.
static const uint8_t GAME_COLORS[4] = { 0x38, 0xC8, 0x0F, 0x22 }; // CPU, agent, walls, field

// ----------------------------------------------------------------------------
// The state ALE's reset leaves, recorded from the real game (tests/data/ale-real: frame 0
// of every trace is this RAM and this picture).

// clang-format off
static const uint8_t RESET_RAM[PONG_RAM_SIZE] = {
    0xc0, 0x00, 0x00, 0x00, 0x6e, 0x26, 0x00, 0x07, 0x47, 0x01, 0x3c, 0x3b, 0x00, 0x00, 0x00, 0x3e,
    0xff, 0x00, 0xff, 0xfd, 0x00, 0x16, 0x00, 0x18, 0x80, 0x20, 0x01, 0x56, 0xf7, 0x56, 0xf7, 0x56,
    0xf7, 0x86, 0xf3, 0xf5, 0xf3, 0xf0, 0xf0, 0xf2, 0xf2, 0x20, 0x20, 0x40, 0x40, 0x40, 0xbc, 0x41,
    0xbd, 0x00, 0x16, 0x6d, 0x25, 0x25, 0x3c, 0x00, 0x00, 0x00, 0x00, 0x6d, 0x6d, 0x25, 0x25, 0xc0,
    0xc0, 0xc0, 0xc0, 0x01, 0xc0, 0xca, 0xf7, 0xca, 0xf7, 0xca, 0xf7, 0xca, 0xf7, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x36, 0xec, 0xf2, 0x79, 0xf0,
};
// clang-format on
// The first observation: the ball where the reset sequence left it (rows 45..48, columns
// 2..3), the CPU bat above the field, the reset sequence's colours.
#define RESET_BALL_X 2
#define RESET_BALL_V 59

// The switches ALE holds (SWCHB): colour, no select, no reset; bit 6 the left difficulty
// switch (A when set), bit 7 the right one. ALE's difficulty d sets the left one to A when
// d & 1, the right one when d & 2 (ALEState::setDifficultySwitches).
#define SWITCHES_DEFAULT 0x3F
#define SWITCH_RESET     0x01
#define SWITCH_LEFT_A    0x40
#define SWITCH_RIGHT_A   0x80

// Game 2's bytes of the reset state, frame 0 of every mode-1 trace (ALE presses SELECT once
// after the first soft reset: the press and its release restart the frame count, and the
// CPU bat's drift while the ball is hidden follows the count).
#define RESET_MODE1_FRAME 0x09
#define RESET_MODE1_CPU_V 0x14

// ----------------------------------------------------------------------------
// 6502 arithmetic, where the carry or the flags reach the RAM

static uint8_t sbc(uint8_t a, uint8_t m, int *carry) {
    int r = (int)a - (int)m - (1 - *carry);
    *carry = r >= 0;
    return (uint8_t)r;
}

static uint8_t adc(uint8_t a, uint8_t m, int *carry) {
    int r = (int)a + (int)m + *carry;
    *carry = r > 0xFF;
    return (uint8_t)r;
}

static uint8_t negate(uint8_t a) { return (uint8_t)(0u - a); } // $F432

static uint8_t swap_nibbles(uint8_t a) { return (uint8_t)((a << 4) | (a >> 4)); } // BRK: $F438

// ----------------------------------------------------------------------------
// Reset

static void colors_for_next_frame(Pong *g);

// $F23A: the game's configuration bytes from its number and the switches, as the end of
// every frame writes them: flags ($F712/$F713, both games share row 0; game 2 keeps $97's
// top bits and clears $98's), the bats' and missiles' masks ($F6A4/$F6AC, one row further
// for a switch at A), and $81, the CPU bat's row index, left in RAM.
static void configure(Pong *g) {
    static const uint8_t F712[2] = { 0x98, 0x80 }; // $F712, $F713: row ($96 & $3E) = 0
    uint8_t game = RAM(g, GAME);
    RAM(g, FLAGS) = F712[0];
    RAM(g, FLAGS2) = F712[1];
    RAM(g, FLAGS + (game & 1)) &= 0x3F;
    bool left_a = g->switches & SWITCH_LEFT_A, right_a = g->switches & SWITCH_RIGHT_A;
    RAM(g, BAT_MASK) = left_a ? BAT_MASK_SHORT : BAT_MASK_LONG;
    RAM(g, BAT_MASK + 1) = right_a ? BAT_MASK_SHORT : BAT_MASK_LONG;
    RAM(g, MISSILE_MASK) = left_a ? 0xFA : 0xF2;
    RAM(g, MISSILE_MASK + 1) = right_a ? 0xFA : 0xF2;
    RAM(g, TMP1) = left_a;
}

int pong_select_presses(int mode) { return mode; } // from $96 = 0, one press a game

void pong_reset(Pong *g) { pong_reset_flavour(g, 0, 0); }

bool pong_reset_flavour(Pong *g, int mode, int difficulty) {
    if (!g) return false;
    if (mode < 0 || mode >= PONG_MODES || difficulty < 0 || difficulty >= PONG_DIFFICULTIES) return false;
    memset(g, 0, sizeof *g);
    memcpy(g->ram, RESET_RAM, sizeof g->ram);
    g->switches =
        (uint8_t)(SWITCHES_DEFAULT | ((difficulty & 1) ? SWITCH_LEFT_A : 0) | ((difficulty & 2) ? SWITCH_RIGHT_A : 0));
    RAM(g, SWITCHES) = g->switches & ~SWITCH_RESET; // RESET still held on the last frame
    RAM(g, GAME) = (uint8_t)mode;
    if (mode == 1) {
        RAM(g, FRAME) = RESET_MODE1_FRAME;
        RAM(g, CPU_TARGET) = RAM(g, BAT_V) = RESET_MODE1_CPU_V;
    }
    configure(g);
    g->colors_of = (uint8_t)~RAM(g, ATTRACT);
    colors_for_next_frame(g);
    g->digits_of[0] = RAM(g, SCORE_CPU); // the reset RAM's pointers show 0 : 0
    g->digits_of[1] = RAM(g, SCORE_AGENT);
    g->default_line = kernel_paddle_line(PADDLE_RESISTANCE_DEFAULT);
    g->pot_resistance = PADDLE_RESISTANCE_DEFAULT;
    g->pot_line = g->default_line;
    g->ball_x = RESET_BALL_X;
    g->vdel = 0;
    g->collisions = 0;
    kernel_take_picture(g);
    // the ball as ALE's reset sequence left it: rows 45..48, without the delay register
    g->pic.ball_v = RESET_BALL_V;
    g->pic.paddle_line = RAM(g, PADDLE_RAW);
    return true;
}

// ----------------------------------------------------------------------------
// 1. Game logic

// $F445, called for the ball: position it at counter h. The picture needs only its column
// (h - 49); the RAM keeps the status byte that the BRK inside pushes, when the call is
// three levels deep (from $F554): $F9 = flags, $FA = $55 (return address $F455).
// The routine subtracts $2F, then 15 until it borrows, then computes 7 - (remainder mod
// 15) with sbc #$06: in closed form, with m that remainder, N = m > 7, Z = m == 7,
// C = m <= 7 and V = 0 (the operands are both below $80).
static void position_ball(Pong *g, uint8_t h) {
    unsigned a = h >= 0x2F ? h - 0x2Fu : h + 0x100u - 0x2Fu - 0x10u; // the first borrow
    unsigned m = a - 15 * ((a * 0x8889u) >> 19);                     // a % 15, a < 512
    RAM(g, STACK_FA) = 0x55;
    RAM(g, STACK_F9) = (uint8_t)(((m > 7) << 7) | 0x34 | ((m == 7) << 1) | (m <= 7));
    g->ball_x = (uint8_t)(h - BALL_X_OFFSET);
}

// $F554: move the ball by its speed and position it.
static void ball_move(Pong *g) {
    uint8_t h = RAM(g, BALL_X);
    if (!(RAM(g, HOLD) & HOLD_BALL)) {
        int c = 0;
        RAM(g, BALL_V_FRAC) = adc(RAM(g, BALL_DV_FRAC), RAM(g, BALL_V_FRAC), &c);
        // the step: the speed plus the fraction's carry (the carry out is cleared, clc)
        uint8_t step = (uint8_t)(RAM(g, BALL_DV) + c);
        // game 2: while the button of the last bat to touch the ball ($C3) is held, the
        // ball steps twice its vertical speed
        if (__builtin_expect(RAM(g, FLAGS) & 0x80, 0) && !(RAM(g, SCORER_BUTTON) & 0x80))
            step = (uint8_t)(step + RAM(g, BALL_DV));
        uint8_t a = (uint8_t)(RAM(g, BALL_V) + step);
        RAM(g, BALL_V) = a;
        g->vdel = (a ^ 1) & 1;
        h = (uint8_t)(RAM(g, BALL_X) - RAM(g, BALL_DX));
        RAM(g, BALL_X) = h;
    }
    position_ball(g, h);
}

// $F422: reverse the vertical speed (16-bit negation of BALL_DV:BALL_DV_FRAC).
static void reverse_vertical(Pong *g) {
    uint8_t frac = RAM(g, BALL_DV_FRAC);
    int c = frac == 0;
    RAM(g, BALL_DV_FRAC) = negate(frac);
    RAM(g, BALL_DV) = adc((uint8_t)~RAM(g, BALL_DV), 0, &c);
}

// $F510: one step more speed, away from zero, |speed| <= 4.
static uint8_t speed_up(uint8_t v) {
    if (v & 0x80) return (uint8_t)(v - 1) >= 0xFC ? (uint8_t)(v - 1) : 0xFC;
    v++;
    return (int8_t)(v - 5) < 0 ? v : 4;
}

// $F6BC: game 2 speeds the ball up when the contact count has these bits clear ($9A & 3 = 1:
// every 4th contact)
static const uint8_t SPEEDUP_EVERY[4] = { 0xFF, 0x03, 0x07, 0x0F };

// $F45F: the ball met a bat (collision latch of the last frame). Bat x: 0 CPU, 1 agent.
// The contact itself: a few frames a rally, kept out of the frame's hot path.
__attribute__((noinline, cold)) static void bat_hit(Pong *g, int x);

static void bat_contact(Pong *g) {
    if (g->collisions & CX_P1_BALL)
        bat_hit(g, 1);
    else if (g->collisions & CX_P0_BALL)
        bat_hit(g, 0);
    else
        RAM(g, HOLD) = 0;
}

static void bat_hit(Pong *g, int x) {
    // $F4A2: sound, count, who touched last
    RAM(g, SOUND) = SOUND_BAT;
    RAM(g, HITS)++;
    RAM(g, LAST_SCORER) = (uint8_t)x;
    // $F4AC: game 1 ($98 bit 7): a bat whose button is held speeds the ball up ($F4BE);
    // game 2: every 4th contact does
    bool faster;
    if (RAM(g, FLAGS2) & 0x80)
        faster = RAM(g, BUTTONS + x) == 0;
    else
        faster = RAM(g, HITS) != 0 && (RAM(g, HITS) & SPEEDUP_EVERY[RAM(g, RULES) & 3]) == 0;
    if (faster) {
        RAM(g, BALL_DX) = speed_up(RAM(g, BALL_DX));
        RAM(g, BALL_DV) = speed_up(RAM(g, BALL_DV));
    }
    // $F4D0: the new vertical speed from where the ball met the bat; a short bat (switch
    // at A) measures from 4 counters higher and keeps the full slope (no halving)
    bool short_bat = RAM(g, BAT_MASK + x) & BAT_SHORT_BIT;
    int c = 0;
    uint8_t a = adc(short_bat ? 3 : 7, RAM(g, BAT_V + x), &c);
    a = sbc(a, RAM(g, BALL_V), &c);
    a = (uint8_t)((a & 0x3F) >> 1);
    if (a >= 0x10) a |= 0xE0;
    a = negate(a);
    if (!short_bat) a = (uint8_t)((a >> 1) | (a & 0x80)); // cmp #$80; ror: halve, keep the sign
    RAM(g, BALL_DV) = a;
    // $F4F6: send the ball back if it moves towards the bat
    uint8_t dx = RAM(g, BALL_DX);
    if ((x & 1) ? (dx & 0x80) : !(dx & 0x80)) RAM(g, BALL_DX) = negate(dx);
}

// $F12F: `cpx #$14; bmi` against a score, a signed compare: true for 0..20, which is where
// the rules run (ALE ends the episode at 21). Kept signed: a score set out of range by
// setRAM (148..255) reads as at most 20 too, as on the console.
static bool score_at_most_20(uint8_t score) { return (int8_t)(0x14 - score) >= 0; }

// $F0CE..$F21F
static void game_logic(Pong *g) {
    // $F0CE: console switches. ALE holds SWCHB (no reset or select, colour, the difficulty
    // switches of its flavour); a changed select would restart the frame count.
    const uint8_t swchb = g->switches;
    uint8_t changed = swchb ^ RAM(g, SWITCHES);
    RAM(g, SWITCHES) = swchb;
    if (changed & 0x02) RAM(g, FRAME) = 0;

    if (!(RAM(g, RUNNING) & RUNNING_BIT) || RAM(g, FRAME_HI) == 0) {
        // $F0F8 / $F109: no game running (after 65536 frames the game stops itself)
        if (!(RAM(g, RUNNING) & RUNNING_BIT)) {
            RAM(g, SOUND) = 0;
            RAM(g, BALL_V) = 0;
        }
        RAM(g, RUNNING) = 0;
        RAM(g, SCORE_CPU) = (uint8_t)(RAM(g, GAME) + 1);
    } else if (score_at_most_20(RAM(g, SCORE_CPU)) && score_at_most_20(RAM(g, SCORE_AGENT))) {
        RAM(g, ATTRACT) = 0;
        if (RAM(g, SERVE_TIMER) != 0) {
            RAM(g, BALL_V) = 0;
            if (--RAM(g, SERVE_TIMER) == 0) {
                // $F153: serve from the centre, towards the side that lost the point
                RAM(g, HITS) = 0;
                RAM(g, BALL_DV_FRAC) = 0;
                RAM(g, SOUND) = SOUND_SERVE;
                RAM(g, BALL_X) = 0x80;
                RAM(g, CPU_TARGET) = 0x80;
                RAM(g, BALL_V) = 0x80;
                RAM(g, BALL_DV) = (RAM(g, BALL_DV) & 0x80) ? 0xFF : 0x01;
                RAM(g, BALL_DX) = (RAM(g, LAST_SCORER) & 1) ? 0x01 : 0xFF;
                ball_move(g);
            }
        } else {
            // $F181: distance of the ball from the goal lines (counter 0) and walls
            uint8_t a = (uint8_t)(RAM(g, BALL_X) - 1);
            if (a & 0x80) a ^= 0xFF;
            uint8_t dist_x = a >> 2;
            RAM(g, TMP0) = dist_x;
            a = (uint8_t)(RAM(g, BALL_V) + 2);
            if (a & 0x80) a ^= 0xFF;
            uint8_t dist_y = a >> 3;
            if (dist_x < 13) {
                // $F38A: a point; the side the ball left on loses it
                int x = (RAM(g, BALL_X) & 0x80) ? 0 : 1;
                RAM(g, SCORE_CPU + x)++;
                RAM(g, LAST_SCORER) = (uint8_t)x;
                RAM(g, SERVE_TIMER) = SERVE_DELAY_AFTER_POINT;
                RAM(g, SOUND) = SOUND_POINT;
            } else if ((g->collisions & CX_BALL_PF) && dist_y < 6) {
                // $F3F5: a wall: one step back into the field, vertical speed reversed
                uint8_t y = RAM(g, BALL_V);
                RAM(g, BALL_V) = (y & 0x80) ? (uint8_t)(y - 1) : (uint8_t)(y + 1);
                RAM(g, HIT_FLAGS) = HIT_WALL;
                RAM(g, HOLD) = HOLD_WALL;
                reverse_vertical(g);
                RAM(g, SOUND) = SOUND_WALL;
                ball_move(g);
            } else {
                if (g->collisions & CX_BALL_PF) {
                    RAM(g, HIT_FLAGS) = 0;
                    RAM(g, HOLD) = 0;
                }
                bat_contact(g);
                ball_move(g);
            }
        }
    }

    // $F1AD: the bats follow their paddles; the CPU bat ($F1E3) steps 2 towards the ball
    // on 7 frames of 8.
    RAM(g, PADDLE_RAW) = 0;                      // $98 << 1: a scratch use of $84
    memcpy(&RAM(g, BAT_V), &RAM(g, PADDLES), 4); // $B2..$B5 = $BB..$BE
    uint8_t frame = RAM(g, FRAME);
    RAM(g, TMP0) = frame & 1;
    uint8_t cpu = RAM(g, CPU_TARGET);
    if ((frame & 7) != 0 && cpu != RAM(g, BALL_V)) {
        int c = cpu > RAM(g, BALL_V);
        if (!c) cpu = adc(cpu, 5, &c);
        cpu = sbc(cpu, 2, &c);
    }
    RAM(g, CPU_TARGET) = cpu;
    RAM(g, BAT_V) = cpu;
    RAM(g, OTHER) = RAM(g, LAST_SCORER) ^ 2;
}

// ----------------------------------------------------------------------------
// 3. End of frame

// $F23A: the colours of the next frame, shifted by the attract counter.
static void colors_for_next_frame(Pong *g) {
    if (RAM(g, ATTRACT) == g->colors_of) return; // unchanged since the last frame
    g->colors_of = RAM(g, ATTRACT);
    uint8_t shift = swap_nibbles(RAM(g, ATTRACT));
    for (int i = 0; i < 4; i++) g->colors[i] = (uint8_t)((GAME_COLORS[i] + shift) & 0xFE);
}

// Units and tens of a score as the cartridge computes them (signed compare with 10).
static void digit_pointers(Pong *g, int x) {
    uint8_t s = RAM(g, SCORE_CPU + x), tens = 0;
    while ((int8_t)(s - 10) >= 0) {
        s = (uint8_t)(s - 10);
        tens++;
    }
    RAM(g, DIGIT_PTRS + 2 * x) = (uint8_t)(5 * s + DIGIT_FONT_LO);
    RAM(g, DIGIT_PTRS + 4 + 2 * x) = (uint8_t)(5 * tens + DIGIT_FONT_LO);
}

static void end_of_frame(Pong *g, bool fire) {
    // $F00C: digit pointers of each score (recomputed every frame by the cartridge; here
    // when a score changed, which gives the same bytes)
    if (RAM(g, SCORE_CPU) != g->digits_of[0] || RAM(g, SCORE_AGENT) != g->digits_of[1]) {
        digit_pointers(g, 1);
        digit_pointers(g, 0);
        g->digits_of[0] = RAM(g, SCORE_CPU);
        g->digits_of[1] = RAM(g, SCORE_AGENT);
    }
    // sound timer
    if (RAM(g, SOUND) & SOUND_TIMER_BITS) RAM(g, SOUND)--;
    // $F23A: game constants (already in RAM: configure() at reset), colours; the scratch
    // bytes $80/$81 (used by the digit loop and the kernel too) end every frame as $C0 and
    // the CPU bat's row index (1 with the left switch at A)
    colors_for_next_frame(g);
    RAM(g, TMP0) = 0xC0;
    RAM(g, TMP1) = (g->switches & SWITCH_LEFT_A) ? 1 : 0;
    // $F07A: frame counters
    if (++RAM(g, FRAME) == 0) {
        RAM(g, FRAME_HI)++;
        RAM(g, ATTRACT)++;
    }
    // $F0A1: paddle buttons (SWCHA bits 7, 6, 3, 2): only the agent's (1) can be pressed
    uint8_t b1 = fire ? 0x00 : 0xC0;
    RAM(g, BUTTONS) = RAM(g, BUTTONS + 2) = RAM(g, BUTTONS + 3) = 0xC0;
    RAM(g, BUTTONS + 1) = b1;
    uint8_t scorer = RAM(g, LAST_SCORER), other = RAM(g, OTHER);
    if (scorer <= 3) RAM(g, SCORER_BUTTON) = scorer == 1 ? b1 : 0xC0;
    if (other <= 3) RAM(g, OTHER_BUTTON) = other == 1 ? b1 : 0xC0;
}

int pong_frame(Pong *g, int resistance, bool fire) {
    if (!g) return 0;
    int before = RAM(g, SCORE_AGENT) - RAM(g, SCORE_CPU);
    game_logic(g);
    kernel_frame(g, resistance);
    end_of_frame(g, fire);
    return (RAM(g, SCORE_AGENT) - RAM(g, SCORE_CPU)) - before;
}
