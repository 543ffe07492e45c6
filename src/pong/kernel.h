// kernel.h: the picture kernel ($F5B8, $F585 score, $F5D0 field), what the rest of the game
// needs of it: the frame's kernel (the paddle reading, the collisions it latches), and the
// rule the kernel draws by, which counter value each object shows on each row, as inline
// functions: the collisions (kernel.c) and every output (render.c) test them row by row, and
// a call per test would cost more than the test.
//
// The kernel's field loop runs 91 iterations of two lines, its counter c from $26 to $DC in
// steps of 2; the iteration of counter c draws rows c - 15 and c - 14 (row = counter - 15).
// docs/pong-spec.md §4 has the cycle table of one iteration.
#ifndef PONGRL_PONG_KERNEL_H
#define PONGRL_PONG_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "cartridge.h"

// The kernel counts lines in pairs from $26 to $DC; row = counter - 15.
#define KERNEL_FIRST 0x26
#define KERNEL_LAST  0xDC

// The TIA's collision latches the kernel leaves in Pong.collisions (CXP0FB, CXP1FB, CXBLPF),
// read by the next frame's logic.
enum { CX_P0_BALL = 1, CX_P1_BALL = 2, CX_BALL_PF = 4 };

// The kernel of one frame: the picture of the RAM as it is now (Pong.pic), the paddle
// reading (resistance: the agent paddle's, ALE units), the collisions, and what the kernel
// leaves in RAM.
void kernel_frame(Pong *g, int resistance);
// What the kernel is about to draw, taken from the RAM and the TIA registers into Pong.pic.
void kernel_take_picture(Pong *g);
// The line counter at which a paddle of this resistance reads as charged.
uint8_t kernel_paddle_line(int resistance);

// Cycle timing of the kernel's loop (counted from the start of the line of the paddle
// read at counter c, the WSYNC before it): the bottom half takes 38 cycles, 40 when the
// read finds the capacitor uncharged (bmi not taken, stx $84); each bat test takes 3
// cycles when the bat is on (beq taken), 4 when off. GRP1 (and the VDELBL copy of the
// ball) is written at cycle bottom + 30 + bat1; ENABL (php) at bottom + 96 + bat1 + bat0,
// i.e. on the next line. A write at cycle T shows from colour clock 3T on, column
// 3T - 68 + a delay (measured on the real traces: the first column of a ball
// straddling the write that shows the new value).
#define ENABL_WRITE_DELAY 3 // colour clocks, ENABL (php)
#define GRP1_WRITE_DELAY  4 // colour clocks, GRP1 (the VDELBL copy)

// Which counter value each object shows on row r (rows 24..209). The kernel's loop spans
// two lines: GRP1 (agent bat) and the VDELBL copy change at the end of line c-15, GRP0
// (CPU bat) at the start of line c-15, the playfield before line c-14, ENABL at cycle 68
// of line c-16. Past the kernel's end the last values stay.
static inline int row_counter_p0(int r) {
    int c = (r + 15) & ~1;
    return c > KERNEL_LAST ? KERNEL_LAST : c;
}
static inline int row_counter_p1(int r) {
    int c = (r + 14) & ~1;
    return c > KERNEL_LAST - 2 ? KERNEL_LAST - 2 : c;
}

static inline bool bat_on(uint8_t v, uint8_t mask, int c, int first) { return c >= first && ((c - v) & mask) == 0; }
static inline bool ball_counter_on(uint8_t v, int c, int first) { return c >= first && ((c - v) & 0xFC) == 0; }

// Cycles of the loop's bottom half on the line of the read at counter c.
static inline int bottom_cycles(const PongPicture *p, int c) {
    return (p->paddle_line >= KERNEL_FIRST + 2 && c <= p->paddle_line) ? 40 : 38;
}
static inline int bat_test_cycles(uint8_t v, uint8_t mask, int c) { return ((c - v) & mask) == 0 ? 3 : 4; }

// The first column showing the VDELBL copy taken at the end of line c-15.
static inline int vdel_split_x(const PongPicture *p, int c) {
    int t = bottom_cycles(p, c) + 30 + bat_test_cycles(p->agent_v, p->agent_mask, c);
    return 3 * t - 68 + GRP1_WRITE_DELAY;
}
// The first column showing ENABL(c+2), written during line c-14.
static inline int enabl_split_x(const PongPicture *p, int c) {
    int t = bottom_cycles(p, c) + 96 + bat_test_cycles(p->agent_v, p->agent_mask, c) +
        bat_test_cycles(p->cpu_v, p->cpu_mask, c + 2) - 76;
    return 3 * t - 68 + ENABL_WRITE_DELAY;
}

// Is the ball drawn at row r, column x? (its enable, not its horizontal extent)
static inline bool ball_on(const PongPicture *p, int r, int x) {
    int c;
    if (p->vdel) {
        c = (r + 14) & ~1;
        if ((r & 1) && c + 2 <= KERNEL_LAST - 2 && x >= vdel_split_x(p, c + 2)) c += 2;
        if (c > KERNEL_LAST - 2) c = KERNEL_LAST - 2;
        return ball_counter_on(p->ball_v, c, KERNEL_FIRST + 2);
    }
    if (r & 1)
        c = r + 15;
    else {
        c = r + 14;
        if (c <= KERNEL_LAST - 2 && x >= enabl_split_x(p, c)) c += 2;
    }
    if (c > KERNEL_LAST) c = KERNEL_LAST;
    return ball_counter_on(p->ball_v, c, KERNEL_FIRST + 2);
}

// The ball's k-th pixel: the TIA's horizontal positions wrap round the 160 columns, so a
// ball at column 159 shows its second pixel at column 0 (measured: ALE, serve-side frames
// with the ball counter at 208).
static inline int ball_column(int bx, int k) { return (bx + k) % PONG_SCREEN_W; }

// Is each bat drawn at row r? (in its columns)
static inline bool cpu_bat_on(const PongPicture *p, int r) {
    return bat_on(p->cpu_v, p->cpu_mask, row_counter_p0(r), KERNEL_FIRST + 2);
}
static inline bool agent_bat_on(const PongPicture *p, int r) {
    return bat_on(p->agent_v, p->agent_mask, row_counter_p1(r), KERNEL_FIRST);
}

// ----------------------------------------------------------------------------
// The rows an object can show on, from the kernel's one rule: the iteration of counter c
// draws rows c - 15 and c - 14 (row_of_counter(c) and the next). Each object's range is the
// rows of its first and last counters, widened by where its register is written in the pair
// (the outputs then test every row of the range, not every row of the screen).

typedef struct {
    int row0, row1;
} RowRange;

static inline int clamp_row(int r, int lo, int hi) { return r < lo ? lo : r > hi ? hi : r; }
static inline int row_of_counter(int c) { return c - 15; }
// The counters a bat covers: 16 for the mask $F0, 8 for $F8.
static inline int bat_counters(uint8_t mask) { return (uint8_t)~mask + 1; }

static inline RowRange counter_rows(int first, int last, int before, int after) {
    return (RowRange){ clamp_row(row_of_counter(first) - before, FIELD_ROW0, FIELD_ROW1 + 1),
        clamp_row(row_of_counter(last) + after, FIELD_ROW0 - 1, FIELD_ROW1) };
}
// GRP0 at the start of the pair: counter c on rows c - 15 and c - 14 (one row either side:
// the pair of an odd counter starts a row earlier)
static inline RowRange cpu_rows(const PongPicture *p) {
    return counter_rows(p->cpu_v, p->cpu_v + bat_counters(p->cpu_mask) - 1, 1, 1);
}
// GRP1 at the end of the pair's first row: counter c on rows c - 14 and c - 13
static inline RowRange agent_rows(const PongPicture *p) {
    return counter_rows(p->agent_v, p->agent_v + bat_counters(p->agent_mask) - 1, 0, 2);
}
// ENABL and its VDELBL copy, written mid-line: a counter can show a row earlier right of the
// split, and the delayed copy a row later
static inline RowRange ball_rows(const PongPicture *p) { return counter_rows(p->ball_v, p->ball_v + 3, 2, 2); }

#endif
