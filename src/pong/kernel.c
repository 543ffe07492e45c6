// kernel.c: the picture kernel of a frame ($F5B8, $F585 score, $F5D0 field): it reads the
// paddle (the line on which its capacitor charges) and latches the collisions the ball makes
// while the picture is drawn. The picture itself is kept as the few numbers that decide it
// (PongPicture); render.c draws it, by the same rule (kernel.h) the collisions are found by.
#include "kernel.h"

#include <string.h>

// Stella's TIA (ALE emucore TIA.cxx, INPT0..3): the capacitor has charged once more than
// `needed` CPU cycles have passed since VBLANK released the dump transistors.
static uint32_t pot_cycles(int resistance) {
    double t = 1.6 * resistance * 0.01E-6;
    return (uint32_t)(t * 1.19E6);
}

// The kernel reads INPT1 on the line of counter x (40, 42, ..., 220) at cycle 23; VBLANK
// was released on the line 32 lines above counter 40's, at cycle 6. It stores the counter
// of every read that finds the capacitor uncharged.
#define POT_FIRST_READ_CYCLES (32 * 76 + 23 - 6)
#define POT_CYCLES_PER_READ   (2 * 76)

uint8_t kernel_paddle_line(int resistance) {
    uint32_t needed = pot_cycles(resistance);
    if (needed < POT_FIRST_READ_CYCLES) return KERNEL_FIRST;
    uint32_t reads = (needed - POT_FIRST_READ_CYCLES) / POT_CYCLES_PER_READ + 1;
    uint32_t max_reads = (KERNEL_LAST - KERNEL_FIRST) / 2;
    if (reads > max_reads) reads = max_reads;
    return (uint8_t)(KERNEL_FIRST + 2 * reads);
}

// The reading depends on the resistance alone; ALE moves it in steps of 23,000, so the
// last one is kept.
static uint8_t paddle_line(Pong *g, int resistance) {
    if (resistance != g->pot_resistance) {
        g->pot_resistance = resistance;
        g->pot_line = kernel_paddle_line(resistance);
    }
    return g->pot_line;
}

// What the kernel is about to draw: the bats' and the ball's counters and positions, the
// digit pointers, the colours (the end of the frame changes the last two for the next one).
void kernel_take_picture(Pong *g) {
    PongPicture *p = &g->pic;
    p->cpu_v = RAM(g, BAT_V);
    p->agent_v = RAM(g, BAT_V + 1);
    p->cpu_mask = RAM(g, BAT_MASK);
    p->agent_mask = RAM(g, BAT_MASK + 1);
    p->ball_v = RAM(g, BALL_V);
    p->ball_x = g->ball_x;
    p->vdel = g->vdel;
    for (int i = 0; i < 4; i++) p->digits[i] = RAM(g, DIGIT_PTRS + 2 * i);
    p->agent_digits_mask = RAM(g, RUNNING);
    memcpy(p->colors, g->colors, sizeof p->colors);
}

static bool row_is_wall(int r) { return (r >= WALL_TOP_ROW0 && r <= WALL_TOP_ROW1) || r >= WALL_BOTTOM_ROW0; }

// The collisions the ball makes while this picture is drawn (CXP0FB, CXP1FB, CXBLPF).
// Rows past 209 repeat row 209 until VBLANK, so they add nothing.
static uint8_t picture_collisions(const PongPicture *p) {
    uint8_t cx = 0;
    int bx = p->ball_x;
    // Most frames the ball is in mid-field, far from the walls' rows and the bats' columns.
    bool near_wall = p->ball_v <= WALL_TOP_ROW1 + 16 || p->ball_v >= WALL_BOTTOM_ROW0 + 11;
    bool near_bat = bx + BALL_W > PONG_SCREEN_W || (bx + BALL_W > CPU_BAT_X && bx < CPU_BAT_X + BAT_W) ||
        (bx + BALL_W > AGENT_BAT_X && bx < AGENT_BAT_X + BAT_W);
    if (!near_wall && !near_bat) return 0;
    // the rows the ball can occupy: its counter +-16 lines
    int r0 = (int)p->ball_v - 18, r1 = (int)p->ball_v - 9;
    if (r0 < WALL_TOP_ROW0) r0 = WALL_TOP_ROW0;
    if (r1 > PONG_SCREEN_H - 1) r1 = PONG_SCREEN_H - 1;
    if (p->ball_v >= KERNEL_LAST - 4) r1 = PONG_SCREEN_H - 1;
    for (int r = r0; r <= r1; r++) {
        for (int k = 0; k < BALL_W; k++) {
            int x = ball_column(bx, k);
            if (!ball_on(p, r, x)) continue;
            if (row_is_wall(r)) cx |= CX_BALL_PF;
            if (x >= CPU_BAT_X && x < CPU_BAT_X + BAT_W && cpu_bat_on(p, r)) cx |= CX_P0_BALL;
            if (x >= AGENT_BAT_X && x < AGENT_BAT_X + BAT_W && agent_bat_on(p, r)) cx |= CX_P1_BALL;
        }
    }
    return cx;
}

void kernel_frame(Pong *g, int resistance) {
    PongPicture *p = &g->pic;
    kernel_take_picture(g);

    // $F5D0: paddle 0 (player B, ALE's default resistance) on even frames, paddle 1 (the
    // agent) on odd ones; the right jack reads as charged at once. Each filtered reading
    // is the mean of the new and the old one.
    int pair = RAM(g, TMP0) & 1;
    uint8_t raw = pair ? paddle_line(g, resistance) : g->default_line;
    p->paddle_line = raw;
    g->collisions = picture_collisions(p);
    RAM(g, PADDLE_RAW) = raw;
    RAM(g, PADDLE_RAW2) = KERNEL_FIRST;
    uint8_t *f = &RAM(g, PADDLES + pair);
    *f = (uint8_t)((raw + *f) >> 1);
    f = &RAM(g, PADDLES + 2 + pair);
    *f = (uint8_t)((KERNEL_FIRST + *f) >> 1);
    // $F585 leaves in $87 the low nibble of the agent's last units glyph row
    RAM(g, SCORE_ROW) = digit_glyph_row(p->digits[1], 4) & 0x0F;
}
