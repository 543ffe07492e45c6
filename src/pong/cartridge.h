// cartridge.h: what the three parts of the game share (inside src/pong/ only): the RAM map,
// the digit font, and where the picture puts the walls and the objects.
//
// Evidence. Everything here is the cartridge's own program (CX2621 Video Olympics, md5
// 60e0ea3cbe0913d39803477945e9e5ec, disassembled with cc65's da65; $Fxxx names the routine)
// or was measured on the real traces (tests/data/ale-real/). docs/pong-spec.md describes
// the game in words. The parts:
//   logic.c   the cartridge's logic ($F0CE..$F21F, $F00C..$F0C9): the rules, the RAM, reset;
//   kernel.h, kernel.c  the picture kernel ($F5B8, $F585, $F5D0): the paddle reading, which
//             counter each row shows, the collisions;
//   render.c  the picture as RGB, palette indices, grayscale and the 80x80 grid;
//   state.c   the game as bytes (cloning) and what tools read of it.
#ifndef PONGRL_PONG_CARTRIDGE_H
#define PONGRL_PONG_CARTRIDGE_H

#include <stdint.h>

#include "pong.h"

// ----------------------------------------------------------------------------
// RAM map ($80..$FF). Names are ours; the addresses and uses are the cartridge's.

#define RAM(g, addr) ((g)->ram[(addr)-0x80])

enum {
    TMP0 = 0x80,          // scratch; the kernel reads it as the paddle pair (frame & 1)
    TMP1 = 0x81,          // scratch; the kernel saves the stack pointer here
    HIT_FLAGS = 0x82,     // wall contact flags of the last contact ($F404)
    PADDLE_RAW = 0x84,    // line counter when the paddle's capacitor charged (this frame)
    PADDLE_RAW2 = 0x85,   // same for the right jack's pair (nothing plugged: stays $26)
    SCORE_ROW = 0x87,     // scratch of the score kernel ($F585)
    FRAME = 0x88,         // frame counter, low byte
    FRAME_HI = 0x89,      // frames / 256 since the game began; 0 ends the game ($F12B)
    ATTRACT = 0x8A,       // colour shift of the attract mode, 0 while a game runs
    SERVE_TIMER = 0x8B,   // frames until the serve; 0 while the ball is in play
    SOUND = 0x8C,         // sound effect and its timer
    SCORE_CPU = 0x8D,     // ALE: readRam(13)
    SCORE_AGENT = 0x8E,   // ALE: readRam(14)
    SWITCHES = 0x8F,      // console switches (SWCHB) of the last frame
    RUNNING = 0x90,       // $FF while a game runs
    HITS = 0x91,          // bat contacts since the serve
    LAST_SCORER = 0x92,   // 0 CPU, 1 agent; $FF before the first point
    OTHER = 0x93,         // LAST_SCORER ^ 2
    HOLD = 0x94,          // bit 6: the ball is held (other games); bit 7: wall contact
    CPU_TARGET = 0x95,    // the CPU bat's vertical counter
    GAME = 0x96,          // game number - 1 (0: game 1): ALE's mode
    FLAGS = 0x97,         // game flags ($F712); bit 7: the last bat's button doubles the
                          // ball's vertical step (game 2)
    FLAGS2 = 0x98,        // game flags ($F713); bit 7: a held button speeds the ball up at a
                          // contact (game 1), else every 4th contact does (game 2)
    RULES = 0x9A,         // $F6C5: bits 0-1 pick the contact speed-up mask ($F6BC)
    BAT_MASK = 0xA5,      // $A5 CPU bat, $A6 agent bat: height masks, $F0 (16 lines) or $F8
    MISSILE_MASK = 0xA7,  // $A7, $A8: the missiles' masks, $F2 or $FA (they never show)
    BALL_X = 0xB1,        // ball horizontal counter: column = BALL_X - 49
    BAT_V = 0xB2,         // $B2 CPU bat, $B3 agent bat, $B4/$B5 missiles (unused here)
    BALL_V = 0xB6,        // ball vertical counter
    BALL_V_FRAC = 0xB7,   // ball vertical fraction
    BALL_DV = 0xB8,       // ball vertical speed, signed, -4..4
    BALL_DV_FRAC = 0xB9,  // its fraction (0 in game 1)
    BALL_DX = 0xBA,       // ball horizontal speed, signed: BALL_X -= BALL_DX each frame
    PADDLES = 0xBB,       // $BB..$BE filtered paddle readings (0 and 1: left jack)
    BUTTONS = 0xBF,       // $BF..$C2: paddle buttons, 0 pressed, $C0 released
    SCORER_BUTTON = 0xC3, // the button of LAST_SCORER
    OTHER_BUTTON = 0xC4,  // the button of OTHER
    DIGIT_PTRS = 0xC5,    // $C5,$C7 units glyphs (CPU, agent), $C9,$CB tens; high bytes $F7
    STACK_F9 = 0xF9,      // stack: the status byte pushed by the BRK in $F445 under $F554
    STACK_FA = 0xFA,      // stack: that BRK's return address, low byte
};

// ----------------------------------------------------------------------------
// The score's digits (tables at $F659..$F7FF)

// Digit glyphs ($F7CA): five rows a digit, both nibbles drawn (the tens digit uses the high
// nibble, so a leading 0 is blank).
// clang-format off
static const uint8_t DIGIT_FONT[50] = {
    0x07, 0x05, 0x05, 0x05, 0x07, 0x22, 0x22, 0x22, 0x22, 0x22, 0x77, 0x11, 0x77, 0x44, 0x77,
    0x77, 0x11, 0x33, 0x11, 0x77, 0x55, 0x55, 0x77, 0x11, 0x11, 0x77, 0x44, 0x77, 0x11, 0x77,
    0x44, 0x44, 0x77, 0x55, 0x77, 0x77, 0x11, 0x11, 0x11, 0x11, 0x77, 0x55, 0x77, 0x55, 0x77,
    0x77, 0x55, 0x77, 0x11, 0x11,
};
// clang-format on
#define DIGIT_FONT_LO 0xCA // $F7CA: pointer low byte of the glyph of 0

// Row `row` of the glyph a digit pointer points at. The cartridge only ever points at the ten
// glyphs; a pointer or score poked by setRAM can point past them, where the console reads
// other ROM bytes that are not re-created here: such rows are blank, never a read past the table.
static inline uint8_t digit_glyph_row(uint8_t ptr, int row) {
    unsigned i = (uint8_t)(ptr - DIGIT_FONT_LO) + (unsigned)row;
    return i < sizeof DIGIT_FONT ? DIGIT_FONT[i] : 0;
}

// ----------------------------------------------------------------------------
// Where the picture puts things

// Wall rows of the playfield ($F756 indexed by (counter + 1) / 8: $FF at 4, 5 and 26, 27).
#define WALL_TOP_ROW0    24
#define WALL_TOP_ROW1    33
#define WALL_BOTTOM_ROW0 194

// Objects' columns. The cartridge positions a counter h with $F445; the object's left
// column is h - 48 for the players and h - 49 for the ball (measured on every frame of
// the real traces; the difference is the TIA's one-clock later start of player graphics).
#define CPU_BAT_X     16  // $AD = $40
#define AGENT_BAT_X   140 // $AE = $BC
#define BAT_W         4   // GRP = $F0, single width
#define BALL_W        2   // CTRLPF $15: ball size 2
#define BALL_X_OFFSET 49  // the ball's column is its counter h - 49

// The field between the walls: rows 34..193.
#define FIELD_ROW0 (WALL_TOP_ROW1 + 1)
#define FIELD_ROW1 (WALL_BOTTOM_ROW0 - 1)

#endif
