// render.c: the picture of the last frame (PongPicture: what the kernel drew) in each
// output: RGB as ALE's getScreenRGB, palette indices as its getScreen, grayscale as its
// getScreenGrayscale, and Karpathy's 80x80 grid. The walls and the score are drawn by rows;
// the objects by one loop that every output shares (draw_objects), which asks the kernel's
// rule (kernel.h) which rows each object shows on, as the collisions do.
#include <math.h>
#include <string.h>

#include "kernel.h"
// The NTSC palette ALE uses (ALE common/Palettes.hpp, Stella's NTSC palette): the RGB of
// TIA colour 2k. Game 1 shows 9 of them while it runs; the attract mode after a game
// stops cycles through the others.
// clang-format off
static const uint32_t NTSC_PALETTE[128] = {
    // index 2k (TIA colour with bit 0 clear): 0xRRGGBB
    0x000000, 0x4a4a4a, 0x6f6f6f, 0x8e8e8e, 0xaaaaaa, 0xc0c0c0, 0xd6d6d6, 0xececec,
    0x484800, 0x69690f, 0x86861d, 0xa2a22a, 0xbbbb35, 0xd2d240, 0xe8e84a, 0xfcfc54,
    0x7c2c00, 0x904811, 0xa26221, 0xb47a30, 0xc3903d, 0xd2a44a, 0xdfb755, 0xecc860,
    0x901c00, 0xa33915, 0xb55328, 0xc66c3a, 0xd5824a, 0xe39759, 0xf0aa67, 0xfcbc74,
    0x940000, 0xa71a1a, 0xb83232, 0xc84848, 0xd65c5c, 0xe46f6f, 0xf08080, 0xfc9090,
    0x840064, 0x97197a, 0xa8308f, 0xb846a2, 0xc659b3, 0xd46cc3, 0xe07cd2, 0xec8ce0,
    0x500084, 0x68199a, 0x7d30ad, 0x9246c0, 0xa459d0, 0xb56ce0, 0xc57cee, 0xd48cfc,
    0x140090, 0x331aa3, 0x4e32b5, 0x6848c6, 0x7f5cd5, 0x956fe3, 0xa980f0, 0xbc90fc,
    0x000094, 0x181aa7, 0x2d32b8, 0x4248c8, 0x545cd6, 0x656fe4, 0x7580f0, 0x8490fc,
    0x001c88, 0x183b9d, 0x2d57b0, 0x4272c2, 0x548ad2, 0x65a0e1, 0x75b5ef, 0x84c8fc,
    0x003064, 0x185080, 0x2d6d98, 0x4288b0, 0x54a0c5, 0x65b7d9, 0x75cceb, 0x84e0fc,
    0x004030, 0x18624e, 0x2d8169, 0x429e82, 0x54b899, 0x65d1ae, 0x75e7c2, 0x84fcd4,
    0x004400, 0x1a661a, 0x328432, 0x48a048, 0x5cba5c, 0x6fd26f, 0x80e880, 0x90fc90,
    0x143c00, 0x355f18, 0x527e2d, 0x6e9c42, 0x87b754, 0x9ed065, 0xb4e775, 0xc8fc84,
    0x303800, 0x505916, 0x6d762b, 0x88923e, 0xa0ab4f, 0xb7c25f, 0xccd86e, 0xe0ec7c,
    0x482c00, 0x694d14, 0x866a26, 0xa28638, 0xbb9f47, 0xd2b656, 0xe8cc63, 0xfce070,
};
// clang-format on


void pong_palette_rgb(uint8_t index, uint8_t rgb[3]) {
    if (!rgb) return;
    uint32_t c = NTSC_PALETTE[index >> 1];
    rgb[0] = (uint8_t)(c >> 16);
    rgb[1] = (uint8_t)(c >> 8);
    rgb[2] = (uint8_t)c;
}

// ALE's grayscale of a palette colour (ColourPalette.cpp: convertGrayscale fills the odd
// entries of its palette, getScreenGrayscale reads entry index + 1): the luminance of the RGB.
static uint8_t palette_gray(uint8_t index) {
    uint8_t c[3];
    pong_palette_rgb(index, c);
    return (uint8_t)round(c[0] * 0.2989 + c[1] * 0.5870 + c[2] * 0.1140);
}

// ----------------------------------------------------------------------------
// What every output shares: runs of one colour drawn over the background with the output's
// own `put(target, row, x0, n, slot)`: slots 0 CPU, 1 agent, 2 walls and ball (the order of
// PongPicture.colors).

typedef void (*PutRun)(void *target, int row, int x0, int n, int slot);

// Score rows 1..20: five glyph rows of four lines; PF1 in score mode: the left half in
// the CPU's colour (tens at columns 16..31, units 32..47), the right half in the agent's
// (96..111, 112..127). Each PF1 bit is 4 columns, bit 7 leftmost.
static uint8_t score_pf1(const PongPicture *p, int side, int glyph_row) {
    uint8_t units = digit_glyph_row(p->digits[side], glyph_row);
    uint8_t tens = digit_glyph_row(p->digits[2 + side], glyph_row);
    uint8_t pf1 = (uint8_t)((units & 0x0F) | (tens & 0xF0));
    return side ? pf1 & p->agent_digits_mask : pf1; // and $90: blank once the game stops
}

// Glyph row gr (0..4) of the score: its first `lines` lines of four, from row 1 + 4 gr (an
// output that copies rows draws one and copies it down).
static inline __attribute__((always_inline)) void draw_score_row(
    const PongPicture *p, PutRun put, void *target, int gr, int lines) {
    for (int side = 0; side < 2; side++) {
        uint8_t pf1 = score_pf1(p, side, gr);
        for (int bit = 0; bit < 8; bit++)
            if (pf1 & (0x80 >> bit))
                for (int k = 0; k < lines; k++) put(target, 1 + 4 * gr + k, 16 + 80 * side + 4 * bit, 4, side);
    }
}

// The objects of the field, the one drawing loop every output shares: the bats, then the
// ball over them (the playfield priority of CTRLPF $15), each row of an object's range that
// the kernel's counters turn on. grid: only the pixels the 80x80 grid keeps (odd rows, even
// columns); show[slot] false leaves an object out.
static inline __attribute__((always_inline)) void draw_objects(
    const PongPicture *p, PutRun put, void *target, bool grid, const bool show[3]) {
    const int row_step = grid ? 2 : 1;
    RowRange k;
    if (show[0]) {
        k = cpu_rows(p);
        for (int r = grid ? k.row0 | 1 : k.row0; r <= k.row1; r += row_step)
            if (cpu_bat_on(p, r)) put(target, r, CPU_BAT_X, BAT_W, 0);
    }
    if (show[1]) {
        k = agent_rows(p);
        for (int r = grid ? k.row0 | 1 : k.row0; r <= k.row1; r += row_step)
            if (agent_bat_on(p, r)) put(target, r, AGENT_BAT_X, BAT_W, 1);
    }
    if (show[2]) {
        k = ball_rows(p);
        for (int r = grid ? k.row0 | 1 : k.row0; r <= k.row1; r += row_step)
            for (int i = 0; i < BALL_W; i++) {
                int x = ball_column(p->ball_x, i);
                if (!(grid && (x & 1)) && ball_on(p, r, x)) put(target, r, x, 1, 2);
            }
    }
}

static const bool SHOW_ALL[3] = { true, true, true };

// ----------------------------------------------------------------------------
// One byte a pixel: palette indices and grayscale, the same picture in two sets of colours

typedef struct {
    uint8_t *screen;
    const uint8_t *colors;
} ByteTarget; // (210, 160)

static inline void put_byte(void *target, int row, int x0, int n, int slot) {
    const ByteTarget *t = target;
    memset(t->screen + row * PONG_SCREEN_W + x0, t->colors[slot], (size_t)n);
}

// colors: the picture's four (CPU, agent, walls and ball, background) as this output shows
// them. Black (row 0's HMOVE blank) is 0 in both.
static void render_bytes(const PongPicture *p, const uint8_t colors[4], uint8_t *screen) {
    ByteTarget t = { screen, colors };
    memset(screen, colors[3], PONG_SCREEN_H * PONG_SCREEN_W);
    memset(screen, 0x00, 8); // row 0: the HMOVE blank
    for (int gr = 0; gr < 5; gr++) draw_score_row(p, put_byte, &t, gr, 4);
    memset(screen + WALL_TOP_ROW0 * PONG_SCREEN_W, colors[2], (WALL_TOP_ROW1 - WALL_TOP_ROW0 + 1) * PONG_SCREEN_W);
    memset(screen + WALL_BOTTOM_ROW0 * PONG_SCREEN_W, colors[2], (PONG_SCREEN_H - WALL_BOTTOM_ROW0) * PONG_SCREEN_W);
    draw_objects(p, put_byte, &t, false, SHOW_ALL);
}

void pong_render_indices(const Pong *g, uint8_t *screen) {
    if (g && screen) render_bytes(&g->pic, g->pic.colors, screen);
}

void pong_render_gray(const Pong *g, uint8_t *gray) {
    if (!g || !gray) return;
    uint8_t colors[4];
    for (int i = 0; i < 4; i++) colors[i] = palette_gray(g->pic.colors[i]);
    render_bytes(&g->pic, colors, gray);
}

// ----------------------------------------------------------------------------
// RGB

typedef struct {
    uint8_t *buf;
    const uint8_t (*rgb)[3];
} RgbTarget; // (210, 160, 3)

static inline void put_rgb(void *target, int row, int x0, int n, int slot) {
    const RgbTarget *t = target;
    uint8_t *q = t->buf + 3 * (row * PONG_SCREEN_W + x0);
    for (int i = 0; i < n; i++, q += 3) memcpy(q, t->rgb[slot], 3);
}

static void fill_row_rgb(uint8_t *row, const uint8_t rgb[3]) {
    for (int x = 0; x < PONG_SCREEN_W; x++) memcpy(row + 3 * x, rgb, 3);
}

void pong_render_rgb(const Pong *g, uint8_t *rgb) {
    if (!g || !rgb) return;
    const PongPicture *p = &g->pic;
    uint8_t col[4][3];
    for (int i = 0; i < 4; i++) pong_palette_rgb(p->colors[i], col[i]);
    RgbTarget t = { rgb, (const uint8_t(*)[3])col };
    const size_t ROW = 3 * PONG_SCREEN_W;
    // one background row and one wall row, copied down the screen
    uint8_t *bg = rgb + ROW * FIELD_ROW0, *wall = rgb + ROW * WALL_TOP_ROW0;
    fill_row_rgb(bg, col[3]);
    fill_row_rgb(wall, col[2]);
    for (int r = 0; r <= 23; r++) memcpy(rgb + ROW * r, bg, ROW);
    memset(rgb, 0, 3 * 8); // row 0: the HMOVE blank
    for (int r = WALL_TOP_ROW0 + 1; r <= WALL_TOP_ROW1; r++) memcpy(rgb + ROW * r, wall, ROW);
    for (int r = FIELD_ROW0 + 1; r <= FIELD_ROW1; r++) memcpy(rgb + ROW * r, bg, ROW);
    for (int r = WALL_BOTTOM_ROW0; r < PONG_SCREEN_H; r++) memcpy(rgb + ROW * r, wall, ROW);
    for (int gr = 0; gr < 5; gr++) {
        int r = 1 + 4 * gr;
        draw_score_row(p, put_rgb, &t, gr, 1);
        for (int k = 1; k < 4; k++) memcpy(rgb + ROW * (r + k), rgb + ROW * r, ROW);
    }
    draw_objects(p, put_rgb, &t, false, SHOW_ALL);
}

// ----------------------------------------------------------------------------
// Karpathy's 80x80 grid


// prepro keeps rows 35, 37, ..., 193 and columns 0, 2, ..., 158 of the red channel and
// zeroes the reds 144 and 109 (the two backgrounds). In those rows only the bats and the
// ball remain (the walls and the score lie outside), each a 1 in the grid.
#define OBS_ROW0 35

static bool red_shows(uint8_t color) {
    uint8_t red = (uint8_t)(NTSC_PALETTE[color >> 1] >> 16);
    return red != 0 && red != 144 && red != 109;
}

// Clears the grid with plain vector stores: libc's memset takes its `rep stosb` path for
// 6,400 bytes, which cost a fifth of an agent step here (perf, bench env).
typedef uint8_t Bytes64 __attribute__((vector_size(64), aligned(1)));

static void obs_clear(uint8_t *obs) {
    const Bytes64 zero = { 0 };
    for (int i = 0; i < PONG_OBS80 * PONG_OBS80; i += 64) memcpy(obs + i, &zero, sizeof zero);
}

// The grid keeps the even columns of a run (draw_objects gives it odd rows only).
static inline void put_obs80(void *target, int row, int x0, int n, int slot) {
    (void)slot;
    uint8_t *line = (uint8_t *)target + (row - OBS_ROW0) / 2 * PONG_OBS80;
    if (n == 1)
        line[x0 / 2] = 1; // the ball's pixel (an even column)
    else
        memset(line + (x0 + 1) / 2, 1, (size_t)(n + 1 - (x0 & 1)) / 2);
}

void pong_render_obs80(const Pong *g, uint8_t *obs) {
    if (!g || !obs) return;
    const PongPicture *p = &g->pic;
    obs_clear(obs);
    const bool show[3] = { red_shows(p->colors[0]), red_shows(p->colors[1]), red_shows(p->colors[2]) };
    draw_objects(p, put_obs80, obs, true, show);
}
