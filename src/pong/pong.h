// pong.h: Atari 2600 Video Olympics (Pong, game 1) as ALE presents it, re-created in C.
//
// The game is pure: a deterministic function of its inputs, with no random number
// generator (the real cartridge has none). One call of pong_frame() is one emulated
// 60 Hz frame. The caller (env/) owns everything ALE adds on top: actions, paddle
// resistance, frameskip, sticky actions, seeding.
//
// Coordinates are screen pixels of the 210x160 observation: x is the column (0..159),
// y is the row (0..209); positions name an object's top-left pixel.
#ifndef PONGRL_PONG_H
#define PONGRL_PONG_H

#include <stdbool.h>
#include <stdint.h>

#define PONG_SCREEN_H 210
#define PONG_SCREEN_W 160
#define PONG_OBS80 80              // the seed's preprocessed grid is 80x80
#define PONG_WIN_SCORE 21
#define PONG_RAM_SIZE 128          // the console RAM, $80..$FF, as ALEInterface::getRAM() returns it

// ALE paddle controller (ale_state.hpp): resistance range and per-frame step.
#define PADDLE_RESISTANCE_MIN 27450
#define PADDLE_RESISTANCE_MAX 790196
#define PADDLE_RESISTANCE_DEFAULT 408823   // (MIN+MAX)/2, ALE's reset value
#define PADDLE_RESISTANCE_STEP 23000

typedef struct {
    // ball: top-left corner on screen, velocity in px/frame; visible=false between points
    int ball_x, ball_y, ball_vx, ball_vy;
    bool ball_visible;
    // paddles: top row on screen (may lie outside the playfield, drawing is clipped)
    int cpu_y, agent_y;
    // agent paddle internals: the game's raw pot reading and its 2-tap filtered value
    int paddle_raw, paddle_filtered;
    int score_cpu, score_agent;
    int serve_timer;        // frames until the next serve while the ball is out
    int serve_dir;          // -1 towards the CPU (left), +1 towards the agent (right)
    uint32_t frame;         // game frame counter (paces the CPU skip and serves)
    bool alt_colors;        // reset colour set: the reset observation and frame 1 (xitari)
    // private state; treat the struct as read-only outside pong/
    int agent_dy;           // agent paddle movement this frame, px (fast bats hit harder)
} Pong;

// State of the game as ALE's reset() leaves it (60 NOOP frames, soft resets done):
// the next pong_frame() is frame 1 of xitari's pong_noop_10 trace.
void pong_reset(Pong *g);

// One emulated frame. resistance: the agent paddle's pot value (ALE units, clamped by the
// caller to [PADDLE_RESISTANCE_MIN, PADDLE_RESISTANCE_MAX]); fire: the paddle button.
// Returns the reward of this frame: +1 agent scored, -1 CPU scored, 0 otherwise.
int pong_frame(Pong *g, int resistance, bool fire);

// The 128 bytes of RAM as ALE's getRAM() returns them after the last frame.
void pong_ram(const Pong *g, uint8_t ram[PONG_RAM_SIZE]);

// True once either side has PONG_WIN_SCORE points.
bool pong_game_over(const Pong *g);

// Full RGB observation, (210, 160, 3) row-major uint8, exactly what ALE's getScreenRGB gives.
void pong_render_rgb(const Pong *g, uint8_t *rgb);

// The seed's preprocessing of that frame, drawn directly: (80, 80) uint8 in {0, 1},
// bit-identical to prepro(pong_render_rgb(g)) with prepro = crop 35:195, [::2, ::2, 0],
// erase 144 and 109, binarise.
void pong_render_obs80(const Pong *g, uint8_t *obs);

#endif
