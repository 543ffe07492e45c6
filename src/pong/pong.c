// pong.c: Atari 2600 Video Olympics (game 1, one player against the CPU) as ALE shows it.
//
// No disassembly of the cartridge is public, so the rules are empirical. Every constant
// names the evidence it was fitted to (docs/fidelity.md has the measurements):
//   xitari   bit-exact RAM trace and screen dump of the first 60 frames after reset
//   gif      ALE's documentation animation of ALE/Pong-v5: 286 agent steps, frameskip 4
//   ALE      the Arcade Learning Environment / Stella sources
//   inferred our own choice where the evidence is silent
//
// Positions are screen pixels. The game itself keeps the CPU bat and the ball in RAM
// units (ram[50] = top + 15, ram[54] = top + 14: OCAtari); the CPU compares those.
#include "pong.h"

#include <string.h>

// ----------------------------------------------------------------------------
// Screen layout (xitari screen dump; rows and columns inclusive)

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
#define PARKED_BALL_X 2           // reset observation only: ball sprite parked at
#define PARKED_BALL_Y 45          // columns 2..3, rows 45..48 (gif frame 0)

#define DIGIT_Y0 1                // score glyphs occupy rows 1..20 (xitari)
#define DIGIT_CELL 4              // one font cell is 4x4 px
#define CPU_UNITS_X 36            // units digit columns 36..47 (xitari)
#define AGENT_UNITS_X 116         // units digit columns 116..127 (xitari)
#define TENS_OFFSET_X 16          // tens digit: the next PF1 nibble to the left (inferred)

// ----------------------------------------------------------------------------
// Agent bat: ALE resistance -> TIA pot charge time -> the kernel's 2-line counter

#define POT_CYCLES_PER_MOHM 19040     // charge cycles = floor(0.019040 r): Stella TIA.cxx
#define POT_CYCLES_PER_COUNT 146      // one count of 2 lines every 146 cycles: 6.0 lines per
                                      // 23000-ohm step fits the gif (TIA's 76/line gives 5.76)
#define POT_OFFSET_CYCLES 319         // raw 110 at the default, 104 after one RIGHT (xitari,
                                      // jaxtari test): midpoint of the fitting range [246, 392)
#define PADDLE_RAW_RESET 110          // $84 after reset (xitari)
#define PADDLE_FILT_RESET 109         // $BC after reset (xitari)
#define AGENT_RAM_OFFSET 13           // screen top = ram[51] - 13 (OCAtari)
#define AGENT_Y_MIN 24                // top row limits (gif)
#define AGENT_Y_MAX 190
#define AGENT_FAST_PX 4               // a bat moving >= 4 px/frame adds speed (gif, 2 hits)

// ----------------------------------------------------------------------------
// CPU player, in RAM units

#define CPU_RAM_OFFSET 15             // screen top = ram[50] - 15 (OCAtari)
#define BALL_RAM_OFFSET 14            // screen top = ram[54] - 14 (OCAtari)
#define CPU_STEP 2                    // drift 6,6,4,2,0 (xitari); tops always odd (gif)
#define CPU_SKIP_PHASE 2              // no move on frames with (frame & 7) == 2 (xitari)
#define CPU_RAM_RESET 8               // ram[50] = 6 after frame 1 (xitari)

// ----------------------------------------------------------------------------
// Ball, serves, scoring

#define SERVE_X 79                    // the serve places the ball at (79,114) and moves it
#define SERVE_Y 114                   // once: (78,115) at the first serve (xitari)
#define FIRST_SERVE_FRAMES 59         // ram[11] = 58 after frame 1, ball after frame 59 (xitari)
#define SERVE_DELAY_FRAMES 63         // point -> serve: within the gif's bounds for 5 of 5
#define BALL_Y_MIN 32                 // the ball bounces 2 rows inside each wall, giving
#define BALL_Y_MAX 191                // back one row: 5 wall bounces (gif)
#define OUT_LEFT_X 1                  // gone at x <= 1 or x >= 157 (gif: 156 still drawn,
#define OUT_RIGHT_X 157               // 158 gone; the left side mirrored)
#define BALL_VX_MAX 3                 // |vx| in {1,2,3} (gif)

// ----------------------------------------------------------------------------
// Colours: ALE NTSC palette entries (Palettes.hpp)

typedef struct { uint8_t r, g, b; } Rgb;

typedef struct { Rgb background, wall, agent, cpu; } Palette;

static const Palette PALETTE_NORMAL = {
    {144, 72, 17}, {236, 236, 236}, {92, 186, 92}, {213, 130, 74},    // 0x22 0x0E 0xC8 0x38
};
static const Palette PALETTE_RESET = {                                 // xitari, gif
    {109, 118, 43}, {53, 95, 24}, {101, 111, 228}, {210, 182, 86},    // 0xE4 0xD2 0x8A 0xFA
};
static const Rgb BLACK = {0, 0, 0};

// 3x5 glyphs, one row per byte, bit 2 = left cell (JAXAtari crops of ALE; gif for 0..4)
static const uint8_t DIGIT_GLYPHS[10][5] = {
    {7, 5, 5, 5, 7}, {2, 2, 2, 2, 2}, {7, 1, 7, 4, 7}, {7, 1, 3, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {4, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 1},
};

// ----------------------------------------------------------------------------
// Reset

void pong_reset(Pong *g) {
    memset(g, 0, sizeof(*g));
    g->cpu_y = CPU_RAM_RESET - CPU_RAM_OFFSET;
    g->paddle_raw = PADDLE_RAW_RESET;
    g->paddle_filtered = PADDLE_FILT_RESET;
    g->agent_y = PADDLE_FILT_RESET - AGENT_RAM_OFFSET;
    g->serve_timer = FIRST_SERVE_FRAMES;
    g->serve_dir = -1;                      // the first serve goes to the CPU (xitari)
    g->alt_colors = true;
}

// Interim: the exact game keeps its state as this RAM (issue 12, in progress).
void pong_ram(const Pong *g, uint8_t ram[PONG_RAM_SIZE]) {
    (void)g;
    memset(ram, 0, PONG_RAM_SIZE);
}

bool pong_game_over(const Pong *g) {
    return g->score_cpu >= PONG_WIN_SCORE || g->score_agent >= PONG_WIN_SCORE;
}

// ----------------------------------------------------------------------------
// One frame

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// The kernel counts pairs of lines until the pot has charged; the game averages the new
// reading with the old one (PORTING.md 3.3) and draws the bat on even rows only (gif:
// every agent top and every move is even).
static void paddle_update(Pong *g, int resistance) {
    int64_t cycles = (int64_t)resistance * POT_CYCLES_PER_MOHM / 1000000;
    g->paddle_raw = 2 * (int)((cycles + POT_OFFSET_CYCLES) / POT_CYCLES_PER_COUNT);
    g->paddle_filtered = (g->paddle_raw + g->paddle_filtered) >> 1;
    int y = clampi((g->paddle_filtered - AGENT_RAM_OFFSET) & ~1, AGENT_Y_MIN, AGENT_Y_MAX);
    g->agent_dy = y - g->agent_y;
    g->agent_y = y;
}

// Two RAM units a frame towards the ball, one frame in eight resting, never stopping in
// between: the bat stays on even RAM values and dithers around an odd ball (gif). With
// no ball in play the target is 0, above the screen (xitari).
static void cpu_move(Pong *g) {
    if ((g->frame & 7) == CPU_SKIP_PHASE) return;
    int cpu = g->cpu_y + CPU_RAM_OFFSET;
    int ball = g->ball_visible ? g->ball_y + BALL_RAM_OFFSET : 0;
    if (cpu < ball) g->cpu_y += CPU_STEP;
    else if (cpu > ball) g->cpu_y -= CPU_STEP;
}

// vy is +1 on odd frames and -1 on even ones: 6 of 6 serves (xitari, gif).
static void ball_serve(Pong *g) {
    g->ball_visible = true;
    g->ball_vx = g->serve_dir;
    g->ball_vy = (g->frame & 1) ? 1 : -1;
    g->ball_x = SERVE_X + g->ball_vx;
    g->ball_y = SERVE_Y + g->ball_vy;
    g->cpu_y = ((g->ball_y + BALL_RAM_OFFSET + 1) & ~1) - CPU_RAM_OFFSET;   // 129 -> 130 (xitari)
}

// Where the ball meets the bat sets the new vertical speed. offset = ball top - bat top,
// -3..15. Fitted to the gif's five returns (+1 -> -2 twice, +2 -> -1, +4 -> 0, +12..14 -> +2),
// the rest mirrored about the bat's centre (inferred).
static int bounce_vy(int offset) {
    static const int VY_BY_OFFSET[19] = {
        -2, -2, -2, -2, -2, -1, -1, 0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2,
    };
    return VY_BY_OFFSET[clampi(offset + BALL_H - 1, 0, 18)];
}

static bool ball_touches(const Pong *g, int bat_x, int bat_y) {
    return g->ball_x + BALL_W > bat_x && g->ball_x < bat_x + PADDLE_W &&
           g->ball_y + BALL_H > bat_y && g->ball_y < bat_y + PADDLE_H;
}

// CPU returns keep |vx|; agent returns add 1, or 2 from a fast-moving bat (gif: 1 -> 2 from
// a bat moving 2 px/frame, 1 -> 3 from one at full speed), up to 3.
static void ball_bounce_bats(Pong *g) {
    if (g->ball_vx < 0 && ball_touches(g, CPU_X, g->cpu_y)) {
        g->ball_vx = -g->ball_vx;
        g->ball_vy = bounce_vy(g->ball_y - g->cpu_y);
    } else if (g->ball_vx > 0 && ball_touches(g, AGENT_X, g->agent_y)) {
        int fast = g->agent_dy >= AGENT_FAST_PX || g->agent_dy <= -AGENT_FAST_PX;
        g->ball_vx = -clampi(g->ball_vx + 1 + fast, 1, BALL_VX_MAX);
        g->ball_vy = bounce_vy(g->ball_y - g->agent_y);
    }
}

static void ball_bounce_walls(Pong *g) {
    if (g->ball_y < BALL_Y_MIN) {
        g->ball_y += 1;
        g->ball_vy = -g->ball_vy;
    } else if (g->ball_y > BALL_Y_MAX) {
        g->ball_y -= 1;
        g->ball_vy = -g->ball_vy;
    }
}

// The point ends the frame the ball leaves; the serve goes to whoever lost it (gif, 5 of 5).
static int ball_score(Pong *g) {
    int reward = g->ball_x <= OUT_LEFT_X ? 1 : g->ball_x >= OUT_RIGHT_X ? -1 : 0;
    if (reward == 0) return 0;
    if (reward > 0) g->score_agent++;
    else g->score_cpu++;
    g->ball_visible = false;
    g->serve_timer = SERVE_DELAY_FRAMES;
    g->serve_dir = reward > 0 ? -1 : 1;
    return reward;
}

static int ball_step(Pong *g) {
    g->ball_x += g->ball_vx;
    g->ball_y += g->ball_vy;
    ball_bounce_walls(g);
    ball_bounce_bats(g);
    return ball_score(g);
}

// fire: unused. The serve is automatic (xitari) and no FIRE effect shows in the evidence.
int pong_frame(Pong *g, int resistance, bool fire) {
    (void)fire;
    g->frame++;
    g->alt_colors = g->frame < 2;           // frame 1 still uses the reset colours (xitari)
    paddle_update(g, resistance);
    if (pong_game_over(g)) return 0;
    if (!g->ball_visible) {
        if (--g->serve_timer == 0) {
            ball_serve(g);
            return 0;                       // the CPU rests on the serve frame (xitari)
        }
        cpu_move(g);
        return 0;
    }
    int reward = ball_step(g);
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

// Bats and ball are drawn inside the playfield only (OCAtari; in the walls the ball would
// be the wall's colour anyway).
static void rgb_object(uint8_t *rgb, int x, int y, int w, int h, Rgb c) {
    int y0 = y < FIELD_Y0 ? FIELD_Y0 : y;
    int y1 = y + h - 1 > FIELD_Y1 ? FIELD_Y1 : y + h - 1;
    if (y0 <= y1) rgb_fill(rgb, y0, y1, x, x + w - 1, c);
}

static void rgb_digit(uint8_t *rgb, int digit, int x, Rgb c) {
    for (int row = 0; row < 5; row++) {
        int y = DIGIT_Y0 + row * DIGIT_CELL;
        for (int col = 0; col < 3; col++)
            if (DIGIT_GLYPHS[digit][row] & (4 >> col))
                rgb_fill(rgb, y, y + DIGIT_CELL - 1, x + col * DIGIT_CELL,
                         x + (col + 1) * DIGIT_CELL - 1, c);
    }
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
    rgb_object(rgb, CPU_X, g->cpu_y, PADDLE_W, PADDLE_H, pal->cpu);
    rgb_object(rgb, AGENT_X, g->agent_y, PADDLE_W, PADDLE_H, pal->agent);
    if (g->ball_visible)
        rgb_object(rgb, g->ball_x, g->ball_y, BALL_W, BALL_H, pal->wall);
    if (g->frame == 0)
        rgb_object(rgb, PARKED_BALL_X, PARKED_BALL_Y, BALL_W, BALL_H, pal->wall);
}

// ----------------------------------------------------------------------------
// The seed's 80x80 observation, drawn directly
//
// prepro keeps rows 35, 37, ..., 193 and columns 0, 2, ..., 158 of the red channel and
// zeroes both background reds (144, 109). Walls and scores lie outside those rows, so only
// the bats and the ball remain, each a rectangle of ones.

#define OBS_Y0 35

static void obs_fill(uint8_t *obs, int x, int y, int w, int h) {
    int y0 = y < OBS_Y0 ? OBS_Y0 : y;
    int y1 = y + h - 1 > FIELD_Y1 ? FIELD_Y1 : y + h - 1;
    int r0 = (y0 - OBS_Y0 + 1) >> 1, r1 = (y1 - OBS_Y0) >> 1;   // kept rows 35 + 2r
    int c0 = (x + 1) >> 1, c1 = (x + w - 1) >> 1;              // kept columns 2c
    if (y0 > y1 || c0 > c1) return;
    for (int r = r0; r <= r1; r++) memset(obs + r * PONG_OBS80 + c0, 1, (size_t)(c1 - c0 + 1));
}

void pong_render_obs80(const Pong *g, uint8_t *obs) {
    memset(obs, 0, PONG_OBS80 * PONG_OBS80);
    obs_fill(obs, CPU_X, g->cpu_y, PADDLE_W, PADDLE_H);
    obs_fill(obs, AGENT_X, g->agent_y, PADDLE_W, PADDLE_H);
    if (g->ball_visible) obs_fill(obs, g->ball_x, g->ball_y, BALL_W, BALL_H);
    if (g->frame == 0) obs_fill(obs, PARKED_BALL_X, PARKED_BALL_Y, BALL_W, BALL_H);
}
