// pong.c: Atari 2600 Video Olympics (game 1, one player against the CPU) as ALE shows it.
//
// No disassembly of the cartridge is public, so the rules below are empirical: every
// constant names the evidence it was fitted to (see docs/fidelity.md and
// /work/shared/pong-spec.md):
//   xitari   the bit-exact RAM trace and screen dump of the first 60 frames after reset
//   gif      ALE's own documentation animation of ALE/Pong-v5 (286 agent steps)
//   ALE      the Arcade Learning Environment / Stella sources
//   inferred our own choice where the evidence is silent
#include "pong.h"

#include <string.h>

// ----------------------------------------------------------------------------
// Screen layout (xitari screen dump, rows and columns are inclusive)

#define WALL_TOP_Y0 24            // top wall rows 24..33
#define FIELD_Y0 34               // playfield rows 34..193
#define FIELD_Y1 193
#define WALL_BOTTOM_Y0 194        // bottom wall rows 194..209
#define COMB_W 8                  // row 0, columns 0..7 black: the HMOVE comb

#define PADDLE_W 4
#define PADDLE_H 16
#define CPU_X 16                  // columns 16..19 (gif)
#define AGENT_X 140               // columns 140..143 (xitari)
#define BALL_W 2
#define BALL_H 4

#define DIGIT_Y0 1                // score glyphs occupy rows 1..20 (xitari)
#define DIGIT_CELL 4              // one font cell is 4x4 px
#define CPU_UNITS_X 36            // units digit columns 36..47 (xitari)
#define AGENT_UNITS_X 116         // units digit columns 116..127 (xitari)
#define TENS_OFFSET_X 16          // tens digit one PF1 nibble further left (inferred)

// ----------------------------------------------------------------------------
// Agent paddle: ALE resistance -> TIA pot charge time -> the kernel's 2-line counter

#define POT_CYCLES_PER_OHM_E6 19040   // charge cycles = floor(0.019040 r): Stella TIA.cxx
#define CYCLES_PER_LINE 76
#define POT_OFFSET_CYCLES 643         // raw 110 at the default, 104 after one RIGHT (xitari,
                                      // jaxtari test); midpoint of the fitting range [576, 710)
#define PADDLE_RAW_RESET 110          // $84 after reset (xitari)
#define PADDLE_FILT_RESET 109         // $BC after reset (xitari)
#define AGENT_RAM_OFFSET 13           // screen top = ram[51] - 13 (OCAtari)
#define AGENT_Y_MIN 24                // top row limits (gif)
#define AGENT_Y_MAX 190

// ----------------------------------------------------------------------------
// CPU player

#define CPU_STEP_PX 2                 // 6,6,4,2,0 drift in the xitari trace
#define CPU_SKIP_PHASE 2              // no move when (frame & 7) == 2: xitari frame 2
#define CPU_Y_RESET (8 - 15)          // ram[50] = 6 after frame 1 (xitari); screen = ram - 15
#define CPU_Y_OFF (0 - 15)            // ram[50] = 0: drifted off the top (xitari)
#define CPU_TRACK_OFFSET (-1)         // top row = ball top - 1 while tracking (gif)

// ----------------------------------------------------------------------------
// Ball, serves, scoring

#define SERVE_X 78                    // (78,115) at the first serve (xitari)
#define SERVE_Y 115
#define FIRST_SERVE_FRAMES 59         // countdown ram[11] = 58 at frame 1, ball at frame 59 (xitari)
#define SERVE_DELAY_FRAMES 62         // 60..66 frames after a point (gif)
#define BALL_Y_MIN 34                 // ball top row stays in [34, 189] (gif)
#define BALL_Y_MAX 189
#define CPU_HIT_X 20                  // ball's left edge reaching column 19/20 (gif)
#define AGENT_HIT_X 138               // ball's right edge reaching column 140 (gif)
#define OUT_LEFT_X 4                  // ball gone past the CPU (gif)
#define OUT_RIGHT_X 156               // ball gone past the agent (gif)
#define BALL_VX_MAX 3                 // |vx| in {1,2,3} (gif)

// ----------------------------------------------------------------------------
// Colours: ALE NTSC palette entries (Palettes.hpp) as RGB

typedef struct { uint8_t r, g, b; } Rgb;

typedef struct {
    Rgb background, wall, agent, cpu;
} Palette;

static const Palette PALETTE_NORMAL = {
    {144, 72, 17},    // 0x22
    {236, 236, 236},  // 0x0E
    {92, 186, 92},    // 0xC8
    {213, 130, 74},   // 0x38
};
static const Palette PALETTE_RESET = {   // the reset observation and frame 1 (xitari, gif)
    {109, 118, 43},   // 0xE4
    {53, 95, 24},     // 0xD2
    {101, 111, 228},  // 0x8A
    {210, 182, 86},   // 0xFA
};
static const Rgb BLACK = {0, 0, 0};

// 3x5 glyphs, one row per byte, bit 2 = left cell (spec 1.3: JAXAtari crops, gif 0..4)
static const uint8_t DIGIT_GLYPHS[10][5] = {
    {7, 5, 5, 5, 7}, {2, 2, 2, 2, 2}, {7, 1, 7, 4, 7}, {7, 1, 3, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {4, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 1},
};

// ----------------------------------------------------------------------------
// Reset

void pong_reset(Pong *g) {
    memset(g, 0, sizeof(*g));
    g->cpu_y = CPU_Y_RESET;
    g->paddle_raw = PADDLE_RAW_RESET;
    g->paddle_filtered = PADDLE_FILT_RESET;
    g->agent_y = PADDLE_FILT_RESET - AGENT_RAM_OFFSET;
    g->serve_timer = FIRST_SERVE_FRAMES;
    g->serve_dir = -1;                      // first serve goes to the CPU (xitari)
    g->serve_vy = 1;
    g->alt_colors = true;
}

bool pong_game_over(const Pong *g) {
    return g->score_cpu >= PONG_WIN_SCORE || g->score_agent >= PONG_WIN_SCORE;
}

// ----------------------------------------------------------------------------
// One frame

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// The kernel counts lines in pairs until the pot has charged; the game then averages the
// new reading with the old one (PORTING.md 3.3: filtered = (raw + filtered) >> 1).
static void paddle_update(Pong *g, int resistance) {
    int64_t cycles = (int64_t)resistance * POT_CYCLES_PER_OHM_E6 / 1000000;
    g->paddle_raw = 2 * (int)((cycles + POT_OFFSET_CYCLES) / (2 * CYCLES_PER_LINE));
    g->paddle_filtered = (g->paddle_raw + g->paddle_filtered) >> 1;
    g->agent_y = clampi(g->paddle_filtered - AGENT_RAM_OFFSET, AGENT_Y_MIN, AGENT_Y_MAX);
}

// Up to 2 px per frame towards its target, resting one frame in eight.
static void cpu_move(Pong *g) {
    if ((g->frame & 7) == CPU_SKIP_PHASE) return;
    int target = g->ball_visible ? g->ball_y + CPU_TRACK_OFFSET : CPU_Y_OFF;
    g->cpu_y += clampi(target - g->cpu_y, -CPU_STEP_PX, CPU_STEP_PX);
}

static void ball_serve(Pong *g) {
    g->ball_visible = true;
    g->ball_x = SERVE_X;
    g->ball_y = SERVE_Y;
    g->ball_vx = g->serve_dir;
    g->ball_vy = g->serve_vy;
    g->cpu_y = g->ball_y;                   // the CPU snaps to the new ball (xitari 0 -> 130)
}

// Where on the bat the ball meets it decides the new vertical speed (gif, approximate).
static int bounce_vy(int offset) {
    static const int VY_BY_SECTION[5] = {-2, -1, 0, 1, 2};
    int section = clampi((offset + BALL_H) * 5 / (PADDLE_H + BALL_H), 0, 4);
    return VY_BY_SECTION[section];
}

static bool ball_meets(int ball_y, int paddle_y) {
    return ball_y + BALL_H > paddle_y && ball_y < paddle_y + PADDLE_H;
}

static void ball_bounce_paddles(Pong *g) {
    if (g->ball_vx < 0 && g->ball_x <= CPU_HIT_X && g->ball_x > CPU_HIT_X - 4 &&
        ball_meets(g->ball_y, g->cpu_y)) {
        g->ball_vx = -g->ball_vx;
        g->ball_vy = bounce_vy(g->ball_y - g->cpu_y);
    } else if (g->ball_vx > 0 && g->ball_x >= AGENT_HIT_X && g->ball_x < AGENT_HIT_X + 4 &&
               ball_meets(g->ball_y, g->agent_y)) {
        int speed = -g->ball_vx - 1;
        g->ball_vx = speed < -BALL_VX_MAX ? -BALL_VX_MAX : speed;
        g->ball_vy = bounce_vy(g->ball_y - g->agent_y);
    }
}

static void ball_bounce_walls(Pong *g) {
    if (g->ball_y < BALL_Y_MIN) {
        g->ball_y = 2 * BALL_Y_MIN - g->ball_y;
        g->ball_vy = -g->ball_vy;
    } else if (g->ball_y > BALL_Y_MAX) {
        g->ball_y = 2 * BALL_Y_MAX - g->ball_y;
        g->ball_vy = -g->ball_vy;
    }
}

// Returns +1 when the agent scored, -1 when the CPU scored, 0 while the ball is in play.
static int ball_score(Pong *g) {
    int reward = g->ball_x < OUT_LEFT_X ? 1 : g->ball_x > OUT_RIGHT_X ? -1 : 0;
    if (reward == 0) return 0;
    if (reward > 0) g->score_agent++;
    else g->score_cpu++;
    g->ball_visible = false;
    g->serve_timer = SERVE_DELAY_FRAMES;
    g->serve_dir = reward > 0 ? -1 : 1;     // the serve goes to whoever lost the point (gif)
    g->serve_vy = -g->serve_vy;             // inferred: the gif shows both signs
    return reward;
}

static int ball_step(Pong *g) {
    g->ball_x += g->ball_vx;
    g->ball_y += g->ball_vy;
    ball_bounce_walls(g);
    ball_bounce_paddles(g);
    return ball_score(g);
}

int pong_frame(Pong *g, int resistance, bool fire) {
    (void)fire;
    g->frame++;
    g->alt_colors = g->frame < 2;           // frame 1 is still in the reset colours (xitari)
    paddle_update(g, resistance);
    if (pong_game_over(g)) return 0;
    int reward = 0;
    if (g->ball_visible) {
        reward = ball_step(g);
    } else if (--g->serve_timer == 0) {
        ball_serve(g);
        return 0;
    }
    cpu_move(g);
    return reward;
}

// ----------------------------------------------------------------------------
// RGB observation (210, 160, 3)

static void rgb_fill(uint8_t *rgb, int y0, int y1, int x0, int x1, Rgb c) {
    for (int y = y0; y <= y1; y++) {
        uint8_t *p = rgb + (y * PONG_SCREEN_W + x0) * 3;
        for (int x = x0; x <= x1; x++, p += 3) { p[0] = c.r; p[1] = c.g; p[2] = c.b; }
    }
}

// Paddles are drawn only inside the playfield (OCAtari's clipping, xitari/gif frames).
static void rgb_paddle(uint8_t *rgb, int x, int y, Rgb c) {
    int y0 = y < FIELD_Y0 ? FIELD_Y0 : y;
    int y1 = y + PADDLE_H - 1 > FIELD_Y1 ? FIELD_Y1 : y + PADDLE_H - 1;
    if (y0 <= y1) rgb_fill(rgb, y0, y1, x, x + PADDLE_W - 1, c);
}

static void rgb_digit(uint8_t *rgb, int digit, int x, Rgb c) {
    for (int row = 0; row < 5; row++)
        for (int col = 0; col < 3; col++)
            if (DIGIT_GLYPHS[digit][row] & (4 >> col))
                rgb_fill(rgb, DIGIT_Y0 + row * DIGIT_CELL, DIGIT_Y0 + row * DIGIT_CELL + 3,
                         x + col * DIGIT_CELL, x + col * DIGIT_CELL + 3, c);
}

static void rgb_score(uint8_t *rgb, int score, int units_x, Rgb c) {
    rgb_digit(rgb, score % 10, units_x, c);
    if (score >= 10) rgb_digit(rgb, score / 10 % 10, units_x - TENS_OFFSET_X, c);
}

void pong_render_rgb(const Pong *g, uint8_t *rgb) {
    const Palette *pal = g->alt_colors ? &PALETTE_RESET : &PALETTE_NORMAL;
    rgb_fill(rgb, 0, PONG_SCREEN_H - 1, 0, PONG_SCREEN_W - 1, pal->background);
    rgb_fill(rgb, 0, 0, 0, COMB_W - 1, BLACK);
    rgb_fill(rgb, WALL_TOP_Y0, FIELD_Y0 - 1, 0, PONG_SCREEN_W - 1, pal->wall);
    rgb_fill(rgb, WALL_BOTTOM_Y0, PONG_SCREEN_H - 1, 0, PONG_SCREEN_W - 1, pal->wall);
    rgb_score(rgb, g->score_cpu, CPU_UNITS_X, pal->cpu);
    rgb_score(rgb, g->score_agent, AGENT_UNITS_X, pal->agent);
    rgb_paddle(rgb, CPU_X, g->cpu_y, pal->cpu);
    rgb_paddle(rgb, AGENT_X, g->agent_y, pal->agent);
    if (g->ball_visible)
        rgb_fill(rgb, g->ball_y, g->ball_y + BALL_H - 1, g->ball_x, g->ball_x + BALL_W - 1, pal->wall);
}

// ----------------------------------------------------------------------------
// The seed's 80x80 observation, drawn directly
//
// prepro keeps rows 35, 37, ..., 193 and columns 0, 2, ..., 158 of the red channel and
// zeroes the two background reds (144, 109). Walls and scores fall outside those rows, so
// only paddles and the ball remain, each a rectangle of ones.

#define OBS_Y0 35

static void obs_fill(uint8_t *obs, int y0, int y1, int x0, int x1) {
    if (y0 < OBS_Y0) y0 = OBS_Y0;
    if (y1 > FIELD_Y1) y1 = FIELD_Y1;
    int r0 = (y0 - OBS_Y0 + 1) >> 1, r1 = (y1 - OBS_Y0) >> 1;   // sampled rows 35 + 2r
    int c0 = (x0 + 1) >> 1, c1 = x1 >> 1;                       // sampled columns 2c
    if (y1 < y0 || c1 < c0) return;
    for (int r = r0; r <= r1; r++) memset(obs + r * PONG_OBS80 + c0, 1, (size_t)(c1 - c0 + 1));
}

void pong_render_obs80(const Pong *g, uint8_t *obs) {
    memset(obs, 0, PONG_OBS80 * PONG_OBS80);
    obs_fill(obs, g->cpu_y, g->cpu_y + PADDLE_H - 1, CPU_X, CPU_X + PADDLE_W - 1);
    obs_fill(obs, g->agent_y, g->agent_y + PADDLE_H - 1, AGENT_X, AGENT_X + PADDLE_W - 1);
    if (g->ball_visible)
        obs_fill(obs, g->ball_y, g->ball_y + BALL_H - 1, g->ball_x, g->ball_x + BALL_W - 1);
}
