// pong.h: Atari 2600 Video Olympics (games 1 and 2: one player against the computer)
// as ALE presents it, in every mode and difficulty ALE offers, re-created in C from the
// cartridge's own program.
//
// The state is the console's 128 bytes of RAM, byte for byte what ALE's getRAM() returns,
// plus the few TIA registers that outlive a frame. One call of pong_frame() is one 60 Hz
// frame, as ALE cuts them (from the end of one VSYNC to the end of the next): the game
// logic, the picture the kernel draws (and the collisions and paddle reading it makes
// while drawing), then the bookkeeping of the frame's end. The game is pure: a
// deterministic function of the paddle's resistance and button, with no random number
// generator (the cartridge has none). The caller (env/) owns everything ALE adds on top:
// actions, paddle resistance, frameskip, sticky actions, seeding.
//
// Flavours (ALE's setMode/setDifficulty): mode 0 is the cartridge's game 1, mode 1 its game 2
// (RAM $96 = mode). Difficulty bit 0 is the left switch (the CPU's bat), bit 1 the right one
// (the agent's): switch A halves that bat, 8 lines instead of 16.
//
// Screen coordinates: x is the column (0..159), y the row (0..209) of the 210x160
// observation.
#ifndef PONGRL_PONG_H
#define PONGRL_PONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus // a C++ program links the C names
extern "C" {
#endif

#define PONG_SCREEN_H     210
#define PONG_SCREEN_W     160
#define PONG_OBS80        80 // Karpathy's preprocessed grid is 80x80
#define PONG_WIN_SCORE    21
#define PONG_RAM_SIZE     128 // the console RAM, $80..$FF, as ALEInterface::getRAM() returns it
#define PONG_MODES        2   // ALE PongSettings: getNumModes() = 2 (modes 0, 1)
#define PONG_DIFFICULTIES 4   // ALE PongSettings::getAvailableDifficulties(): 0..3

// ALE's paddle controller (ale_state.hpp): resistance range and per-frame step.
#define PADDLE_RESISTANCE_MIN     27450
#define PADDLE_RESISTANCE_MAX     790196
#define PADDLE_RESISTANCE_DEFAULT 408823 // (MAX-MIN)/2 + MIN, ALE's reset value
#define PADDLE_RESISTANCE_STEP    23000

// What the kernel drew in the last frame: enough to redraw the picture exactly.
typedef struct {
    uint8_t cpu_v, agent_v;       // the bats' vertical counters (RAM $B2, $B3)
    uint8_t cpu_mask, agent_mask; // their height masks (RAM $A5, $A6): $F0 16 lines, $F8 8
    uint8_t ball_v;               // the ball's vertical counter (RAM $B6)
    uint8_t ball_x;               // the ball's column (TIA position of the ball)
    uint8_t vdel;                 // TIA VDELBL: the ball drawn through the delay register
    uint8_t paddle_line;          // the paddle reading of this frame (it sets the loop's timing)
    uint8_t digits[4];            // glyph offsets: CPU units, agent units, CPU tens, agent tens
    uint8_t agent_digits_mask;    // RAM $90: $FF while a game runs, 0 blanks the agent's score
    uint8_t colors[4];            // NTSC colours: CPU (COLUP0), agent (COLUP1), walls and ball
                                  // (COLUPF), background (COLUBK)
} PongPicture;

typedef struct {
    uint8_t ram[PONG_RAM_SIZE]; // RAM $80..$FF
    // TIA registers that outlive a frame
    uint8_t colors[4];  // set at the end of a frame for the next frame's kernel
    uint8_t collisions; // latched while drawing, read by the next frame's logic
    uint8_t ball_x;     // the ball keeps its position when not repositioned
    uint8_t vdel;       // VDELBL, written only when the ball moves
    PongPicture pic;    // the picture of the last frame
    // caches: the scores the digit pointers were made for, the attract shift of the
    // colours, the paddle reading (a function of the resistance alone)
    uint8_t digits_of[2], colors_of;
    int pot_resistance;
    uint8_t pot_line, default_line;
    uint8_t switches; // the console switches (SWCHB) as ALE holds them
} Pong;

// The state ALE's reset() leaves (power-on, 60 NOOP frames, the soft resets, SELECT pressed
// until RAM $96 holds the mode): the RAM and the picture of the real game's first
// observation. pong_reset is mode 0, difficulty 0. pong_reset_flavour returns false (g
// untouched) for a mode outside [0, PONG_MODES) or a difficulty outside
// [0, PONG_DIFFICULTIES).
void pong_reset(Pong *g);
bool pong_reset_flavour(Pong *g, int mode, int difficulty);
// The SELECT presses ALE's reset makes to reach a mode (each one counts one frame in ALE's
// frame numbers: StellaEnvironment::pressSelect).
int pong_select_presses(int mode);

// One frame. resistance: the agent paddle's resistance (ALE units, clamped by the caller to
// [PADDLE_RESISTANCE_MIN, PADDLE_RESISTANCE_MAX]); fire: the paddle's button.
// Returns the reward of this frame as ALE computes it: the change of (agent - CPU) score.
int pong_frame(Pong *g, int resistance, bool fire);

// True once either side has PONG_WIN_SCORE points (ALE's PongSettings::isTerminal: RAM $8D
// and $8E, the CPU's and the agent's score). Inline: the env asks after every frame.
static inline bool pong_game_over(const Pong *g) {
    return g->ram[0x8D - 0x80] == PONG_WIN_SCORE || g->ram[0x8E - 0x80] == PONG_WIN_SCORE;
}

// The whole game as bytes, for cloning (env_clone): the RAM, the TIA registers that outlive
// a frame, the last picture and the caches, in a fixed order with no padding, so the bytes
// are the same on every platform. pong_state_load takes what pong_state_save wrote.
#define PONG_STATE_BYTES 163
void pong_state_save(const Pong *g, uint8_t buf[PONG_STATE_BYTES]);
void pong_state_load(Pong *g, const uint8_t buf[PONG_STATE_BYTES]);
// Whether such bytes could come from a real game: 0, or -1 with one line in err (when not
// NULL) naming the first field outside the range the cartridge keeps it in, its value and
// that range. The ranges and their evidence are state.c's; a field a real game can set to
// any value (the ball's vertical counter, the CPU's bat, the frame count) is not checked.
int pong_state_check(const uint8_t buf[PONG_STATE_BYTES], char *err, size_t errlen);

// The 128 bytes of RAM as ALE's getRAM() returns them after the last frame.
void pong_ram(const Pong *g, uint8_t ram[PONG_RAM_SIZE]);

// Scores, and where the last picture shows the objects, for tools and bindings.
int pong_score_cpu(const Pong *g);
int pong_score_agent(const Pong *g);
typedef struct {
    int ball_x, ball_y;   // the ball's top-left pixel (when visible)
    int ball_vx, ball_vy; // its speed in counter units a frame (+x right, +y down)
    bool ball_visible;    // drawn in the field
    int cpu_y, agent_y;   // the bats' top rows (may lie under the walls)
    int frame;            // the game's frame counter (16 bits)
} PongObjects;
void pong_objects(const Pong *g, PongObjects *o);

// Full RGB observation, (210, 160, 3) row-major uint8, exactly what ALE's getScreenRGB gives.
void pong_render_rgb(const Pong *g, uint8_t *rgb);

// NTSC palette indices, (210, 160), as ALE's getScreen() gives them.
void pong_render_indices(const Pong *g, uint8_t *screen);
// Grayscale, (210, 160), as ALE's getScreenGrayscale() gives it: each pixel's colour as
// round(0.2989 r + 0.5870 g + 0.1140 b) of its RGB (ALE's ColourPalette::convertGrayscale).
void pong_render_gray(const Pong *g, uint8_t *gray);
// The RGB of an NTSC palette index (ALE's palette; the TIA ignores bit 0).
void pong_palette_rgb(uint8_t index, uint8_t rgb[3]);

// Karpathy's preprocessing of that frame, drawn directly: (80, 80) uint8 in {0, 1},
// bit-identical to prepro(pong_render_rgb(g)) with prepro = crop 35:195, [::2, ::2, 0],
// erase 144 and 109, binarise.
void pong_render_obs80(const Pong *g, uint8_t *obs);

#ifdef __cplusplus
}
#endif

#endif
