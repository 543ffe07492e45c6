// test_pong.c: the game against real emulator output.
//
// Fixtures (tests/data/, written once from the real recordings by tools/pong_fixtures.py):
//   pong_noop_10.screen.gz  xitari screen dump: 10 frames of palette indices after reset
//   xitari_serve.txt        xitari RAM through the first serve, in screen coordinates
//   gif_steps.txt           ALE/Pong-v5 documentation GIF: ball, bats, scores per step
//   gif_digits.txt          score glyphs cropped from that GIF
//   gif_reset_obs.txt       where the GIF's reset observation differs from xitari frame 1
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pong/pong.h"

#define DATA "tests/data/"
#define FRAME_BYTES (PONG_SCREEN_H * PONG_SCREEN_W)
#define RGB_BYTES (FRAME_BYTES * 3)
#define FRAMESKIP 4                       // ALE/Pong-v5, the GIF's setting

// ----------------------------------------------------------------------------
// helpers

static void frames(Pong *g, int n, int resistance) {
    for (int i = 0; i < n; i++) pong_frame(g, resistance, false);
}

static FILE *open_fixture(const char *name) {
    FILE *f = fopen(name, "r");
    cr_assert(f, "missing fixture %s (run from the repository root)", name);
    return f;
}

// Next non-comment line of a fixture; false at the end.
static bool fixture_line(FILE *f, char *line, int size) {
    while (fgets(line, size, f))
        if (line[0] != '#') return true;
    return false;
}

// ALE NTSC palette entries that Pong uses (Palettes.hpp)
static void palette_rgb(uint8_t index, uint8_t out[3]) {
    static const struct { uint8_t index, r, g, b; } PAL[] = {
        {0x00, 0, 0, 0}, {0x22, 144, 72, 17}, {0x0E, 236, 236, 236}, {0xC8, 92, 186, 92},
        {0x38, 213, 130, 74}, {0xE4, 109, 118, 43}, {0xD2, 53, 95, 24},
        {0x8A, 101, 111, 228}, {0xFA, 210, 182, 86},
    };
    for (size_t i = 0; i < sizeof(PAL) / sizeof(PAL[0]); i++)
        if (PAL[i].index == index) {
            out[0] = PAL[i].r; out[1] = PAL[i].g; out[2] = PAL[i].b;
            return;
        }
    cr_assert_fail("palette index 0x%02x not in the table", index);
}

// The seed's prepro on a full RGB frame: crop 35:195, [::2, ::2, 0], erase 144/109, binarise.
static void prepro(const uint8_t *rgb, uint8_t *obs) {
    for (int r = 0; r < PONG_OBS80; r++)
        for (int c = 0; c < PONG_OBS80; c++) {
            uint8_t red = rgb[((35 + 2 * r) * PONG_SCREEN_W + 2 * c) * 3];
            obs[r * PONG_OBS80 + c] = red != 144 && red != 109 && red != 0;
        }
}

// ----------------------------------------------------------------------------
// xitari: screens and RAM after reset

Test(pong, first_10_frames_match_xitari_screens) {
    gzFile z = gzopen(DATA "pong_noop_10.screen.gz", "rb");
    cr_assert(z, "missing pong_noop_10.screen.gz");
    uint8_t *index = malloc(FRAME_BYTES), *ref = malloc(RGB_BYTES), *ours = malloc(RGB_BYTES);
    Pong g;
    pong_reset(&g);
    for (int k = 1; k <= 10; k++) {
        cr_assert_eq(gzread(z, index, FRAME_BYTES), FRAME_BYTES);
        for (int i = 0; i < FRAME_BYTES; i++) palette_rgb(index[i], ref + 3 * i);
        pong_frame(&g, PADDLE_RESISTANCE_DEFAULT, false);
        pong_render_rgb(&g, ours);
        int bad = 0;
        for (int i = 0; i < RGB_BYTES; i++) bad += ours[i] != ref[i];
        cr_expect_eq(bad, 0, "frame %d: %d bytes differ from xitari", k, bad);
    }
    gzclose(z);
    free(index); free(ref); free(ours);
}

// The reset observation is xitari's frame 1 plus the parked ball sprite the GIF shows.
Test(pong, reset_observation_matches_gif) {
    uint8_t *frame1 = malloc(RGB_BYTES), *reset = malloc(RGB_BYTES);
    Pong g;
    pong_reset(&g);
    pong_render_rgb(&g, reset);
    pong_frame(&g, PADDLE_RESISTANCE_DEFAULT, false);
    pong_render_rgb(&g, frame1);
    FILE *f = open_fixture(DATA "gif_reset_obs.txt");
    char line[256];
    int y, x, r, gr, b, listed = 0;
    while (fixture_line(f, line, sizeof(line))) {
        cr_assert_eq(sscanf(line, "%d %d %d %d %d", &y, &x, &r, &gr, &b), 5);
        uint8_t *p = reset + (y * PONG_SCREEN_W + x) * 3;
        cr_expect(p[0] == r && p[1] == gr && p[2] == b, "reset obs pixel (%d,%d)", y, x);
        memcpy(frame1 + (y * PONG_SCREEN_W + x) * 3, p, 3);
        listed++;
    }
    fclose(f);
    cr_expect_eq(memcmp(reset, frame1, RGB_BYTES), 0, "reset obs differs elsewhere too");
    cr_expect_eq(listed, 8);
    free(frame1); free(reset);
}

// RAM -> screen: ball (ram[49]-49, ram[54]-14), cpu top ram[50]-15, agent top ram[51]-13.
Test(pong, first_serve_matches_xitari_ram) {
    FILE *f = open_fixture(DATA "xitari_serve.txt");
    char line[256];
    int frame, bx, by, cpu, agent, countdown, raw, filt, rows = 0;
    Pong g;
    pong_reset(&g);
    while (fixture_line(f, line, sizeof(line))) {
        cr_assert_eq(sscanf(line, "%d %d %d %d %d %d %d %d", &frame, &bx, &by, &cpu, &agent,
                            &countdown, &raw, &filt), 8);
        pong_frame(&g, PADDLE_RESISTANCE_DEFAULT, false);
        cr_expect_eq(g.ball_visible, by >= 0, "frame %d: ball visible", frame);
        if (by >= 0) {
            cr_expect_eq(g.ball_x, bx, "frame %d: ball x", frame);
            cr_expect_eq(g.ball_y, by, "frame %d: ball y", frame);
        }
        cr_expect_eq(g.cpu_y, cpu, "frame %d: cpu top", frame);
        cr_expect_eq(g.agent_y, agent, "frame %d: agent top", frame);
        cr_expect_eq(g.serve_timer, countdown, "frame %d: serve countdown", frame);
        cr_expect_eq(g.paddle_raw, raw, "frame %d: raw pot", frame);
        cr_expect_eq(g.paddle_filtered, filt, "frame %d: filtered pot", frame);
        rows++;
    }
    fclose(f);
    cr_expect_eq(rows, 60);
    cr_expect_eq(g.ball_vx, -1, "first serve goes to the CPU");
    cr_expect_eq(g.ball_vy, 1);
}

// The first RIGHT frame: raw 110 -> 104, filtered 109 -> 106 (xitari via jaxtari's test).
Test(pong, first_right_frame_matches_xitari) {
    Pong g;
    pong_reset(&g);
    pong_frame(&g, PADDLE_RESISTANCE_DEFAULT - PADDLE_RESISTANCE_STEP, false);
    cr_expect_eq(g.paddle_raw, 104);
    cr_expect_eq(g.paddle_filtered, 106);
}

// ----------------------------------------------------------------------------
// The ALE/Pong-v5 GIF, one line per recorded step

typedef struct {
    int step, ball_x, ball_y, ball_h, cpu_y0, cpu_y1, agent_y0, agent_y1, score_cpu, score_agent;
} GifStep;

#define GIF_MAX 300

static int gif_load(GifStep *s) {
    FILE *f = open_fixture(DATA "gif_steps.txt");
    char line[256];
    int n = 0;
    while (n < GIF_MAX && fixture_line(f, line, sizeof(line))) {
        GifStep *p = &s[n++];
        cr_assert_eq(sscanf(line, "%d %d %d %d %d %d %d %d %d %d", &p->step, &p->ball_x,
                            &p->ball_y, &p->ball_h, &p->cpu_y0, &p->cpu_y1, &p->agent_y0,
                            &p->agent_y1, &p->score_cpu, &p->score_agent), 10);
    }
    fclose(f);
    return n;
}

static const GifStep *gif_at(const GifStep *s, int n, int step) {
    for (int i = 0; i < n; i++)
        if (s[i].step == step) return &s[i];
    return NULL;
}

// Visible rows of a 16-row bat inside the playfield, as the GIF measures them.
static void bat_rows(int top, int *y0, int *y1) {
    *y0 = top < 34 ? 34 : top;
    *y1 = top + 15 > 193 ? 193 : top + 15;
    if (*y0 > *y1) *y0 = *y1 = -1;
}

// Ball, CPU bat and scores of our game against one GIF step. A ball drawn 5 rows tall
// (a kernel artefact, 3 times in the GIF) is compared by its bottom 4 rows.
static int gif_compare(const Pong *g, const GifStep *s) {
    int bad = 0, y0, y1;
    if (s->ball_h < 0) {
        bad += g->ball_visible;
    } else if (s->ball_h >= 4) {
        bad += !g->ball_visible || g->ball_x != s->ball_x ||
               g->ball_y != s->ball_y + s->ball_h - 4;
    }                                     // fewer rows: partly inside a wall, x only
    else bad += !g->ball_visible || g->ball_x != s->ball_x;
    bat_rows(g->cpu_y, &y0, &y1);
    bad += y0 != s->cpu_y0 || y1 != s->cpu_y1;
    bad += g->score_cpu != s->score_cpu || g->score_agent != s->score_agent;
    if (bad)
        cr_log_error("step %d: ours ball (%d,%d)%s cpu %d..%d score %d:%d; gif ball (%d,%d,h%d) "
                     "cpu %d..%d score %d:%d", s->step, g->ball_x, g->ball_y,
                     g->ball_visible ? "" : " hidden", y0, y1, g->score_cpu, g->score_agent,
                     s->ball_x, s->ball_y, s->ball_h, s->cpu_y0, s->cpu_y1, s->score_cpu,
                     s->score_agent);
    return bad != 0;
}

// From reset with the bat left alone, the first serve, the CPU's tracking and return and a
// wall bounce match the GIF step for step until the ball nears the agent's bat.
Test(pong, gif_first_rally_from_reset) {
    static GifStep s[GIF_MAX];
    int n = gif_load(s), bad = 0, compared = 0;
    Pong g;
    pong_reset(&g);
    for (int step = 1; step <= 56; step++) {
        frames(&g, FRAMESKIP, PADDLE_RESISTANCE_DEFAULT);
        const GifStep *ref = gif_at(s, n, step);
        if (ref && step >= 15) { bad += gif_compare(&g, ref); compared++; }
    }
    cr_expect_eq(bad, 0, "%d of %d steps differ", bad, compared);
    cr_expect_geq(compared, 40);
}

// The pot resistance that holds the bat still at a given top row.
static int resistance_holding(int top) {
    for (int r = PADDLE_RESISTANCE_MIN; r <= PADDLE_RESISTANCE_MAX; r += 100) {
        Pong g;
        pong_reset(&g);
        g.paddle_filtered = top + 13;
        pong_frame(&g, r, false);
        if (g.agent_y == top && g.paddle_filtered == top + 13) return r;
    }
    cr_assert_fail("no resistance holds the bat at %d", top);
    return 0;
}

// Our game put into the state the GIF shows at `start` (ball velocity from the next step).
static int gif_inject(Pong *g, const GifStep *s, int n, int start) {
    const GifStep *a = gif_at(s, n, start), *b = gif_at(s, n, start + 1);
    cr_assert(a && b && a->ball_h == 4 && a->cpu_y1 - a->cpu_y0 == 15);
    int agent_top = a->agent_y1 - 15;
    int r = resistance_holding(agent_top);
    pong_reset(g);
    g->frame = (uint32_t)(FRAMESKIP * start);
    g->alt_colors = false;
    g->ball_visible = true;
    g->ball_x = a->ball_x;
    g->ball_y = a->ball_y;
    g->ball_vx = (b->ball_x - a->ball_x) / FRAMESKIP;
    g->ball_vy = (b->ball_y - a->ball_y) / FRAMESKIP;
    g->cpu_y = a->cpu_y0;
    g->agent_y = agent_top;
    g->paddle_filtered = agent_top + 13;
    g->score_cpu = a->score_cpu;
    g->score_agent = a->score_agent;
    return r;
}

// GIF stretches where the real agent's bat plays no part, replayed from an injected state:
// wall bounces, CPU returns and a CPU miss, points, serve delays, directions and positions.
Test(pong, gif_segments_replay) {
    static GifStep s[GIF_MAX];
    static const int SEGMENTS[][2] = {{80, 93}, {95, 206}, {209, 230}, {247, 285}};
    // Known misses, both one row: at step 176 the GIF draws the ball a row high (its step
    // from 175 is -9 rows at vy = -2); at step 265 the ball nears the bottom wall at vy = +1.
    static const int KNOWN[] = {176, 265};
    int n = gif_load(s), bad = 0, compared = 0;
    for (size_t k = 0; k < sizeof(SEGMENTS) / sizeof(SEGMENTS[0]); k++) {
        Pong g;
        int r = gif_inject(&g, s, n, SEGMENTS[k][0]);
        for (int step = SEGMENTS[k][0] + 1; step <= SEGMENTS[k][1]; step++) {
            frames(&g, FRAMESKIP, r);
            const GifStep *ref = gif_at(s, n, step);
            if (ref && step != KNOWN[0] && step != KNOWN[1]) { bad += gif_compare(&g, ref); compared++; }
        }
    }
    cr_expect_eq(bad, 0, "%d of %d steps differ", bad, compared);
    cr_log_info("%d GIF steps replayed", compared);
    cr_expect_geq(compared, 170);
}

// In play too the CPU moves at most 1.75 px a frame: where the GIF's ball flies at vy = +-2
// (8 px a step) ahead of the CPU's bat, the bat follows 6 and 8 px on alternate steps, so the
// gap grows by 2 px every 2 steps (steps 32-47, 49-64, 98-111, 147-176). A random agent wins
// its points from such returns (docs/fidelity.md), so this rate is pinned here directly: the
// GIF shows 14 px per 2 steps, and ours, injected at each such step, ends where the GIF does.
Test(pong, cpu_rate_in_play_matches_gif) {
    static GifStep s[GIF_MAX];
    int n = gif_load(s), checked = 0;
    for (int i = 0; i + 2 < n; i++) {
        const GifStep *a = &s[i], *b = &s[i + 1], *c = &s[i + 2];
        if (b->step != a->step + 1 || c->step != b->step + 1) continue;
        if (a->ball_h != 4 || b->ball_h != 4 || c->ball_h != 4) continue;
        if (a->cpu_y1 - a->cpu_y0 != 15 || c->cpu_y1 - c->cpu_y0 != 15) continue;
        int dy = b->ball_y - a->ball_y, d1 = b->cpu_y0 - a->cpu_y0, d2 = c->cpu_y0 - b->cpu_y0;
        if (abs(dy) != 8 || c->ball_y - b->ball_y != dy) continue;        // vy = +-2, no bounce
        if (d1 * dy <= 0 || d2 * dy <= 0) continue;                       // the bat chases
        bool behind = dy < 0 ? c->ball_y + 4 <= c->cpu_y0 + 8 : c->ball_y >= c->cpu_y0 + 8;
        if (!behind) continue;                                            // and cannot catch up
        cr_expect_eq(abs(d1 + d2), 14, "step %d: the GIF's bat moved %d px in 2 steps", a->step, d1 + d2);
        Pong g;
        int r = gif_inject(&g, s, n, a->step);
        frames(&g, 2 * FRAMESKIP, r);
        cr_expect_eq(g.cpu_y, c->cpu_y0, "from step %d: gif bat at %d, ours %d", a->step, c->cpu_y0, g.cpu_y);
        checked++;
    }
    cr_log_info("%d chases checked", checked);
    cr_expect_geq(checked, 20);
}

// Every velocity the GIF shows (per-step displacement / 4, away from bounces) occurs in
// our game, and ours never leaves |vx| in {1,2,3}, vy in {-2..2}.
static void gif_speeds(const GifStep *s, int n, bool vx_seen[4], bool vy_seen[5]) {
    for (int i = 0; i + 2 < n; i++) {
        const GifStep *a = &s[i], *b = &s[i + 1], *c = &s[i + 2];
        if (b->step != a->step + 1 || c->step != b->step + 1) continue;
        if (a->ball_h != 4 || b->ball_h != 4 || c->ball_h != 4) continue;
        int dx = b->ball_x - a->ball_x, dy = b->ball_y - a->ball_y;
        if (dx != c->ball_x - b->ball_x || dy != c->ball_y - b->ball_y) continue;  // no bounce
        cr_assert(dx % FRAMESKIP == 0 && dy % FRAMESKIP == 0, "step %d: (%d,%d)", a->step, dx, dy);
        vx_seen[abs(dx) / FRAMESKIP] = true;
        vy_seen[dy / FRAMESKIP + 2] = true;
    }
}

// A deterministic player that follows the ball with some slack, so points go both ways.
static int follow_ball(const Pong *g, int resistance, uint32_t *seed) {
    *seed = *seed * 1664525u + 1013904223u;
    int target = g->ball_visible ? g->ball_y - 6 : 100;
    int move = (*seed >> 28) < 3 ? (int)(*seed >> 24 & 3) - 1
             : (g->agent_y > target + 2) ? -1 : (g->agent_y < target - 2) ? 1 : 0;
    resistance += move * PADDLE_RESISTANCE_STEP;
    if (resistance < PADDLE_RESISTANCE_MIN) return PADDLE_RESISTANCE_MIN;
    if (resistance > PADDLE_RESISTANCE_MAX) return PADDLE_RESISTANCE_MAX;
    return resistance;
}

Test(pong, ball_speeds_match_gif) {
    static GifStep s[GIF_MAX];
    int n = gif_load(s);
    bool gif_vx[4] = {0}, gif_vy[5] = {0}, our_vx[4] = {0}, our_vy[5] = {0};
    gif_speeds(s, n, gif_vx, gif_vy);
    Pong g;
    pong_reset(&g);
    uint32_t seed = 1;
    int r = PADDLE_RESISTANCE_DEFAULT;
    for (int f = 0; f < 200000; f++) {
        if (pong_game_over(&g)) pong_reset(&g);
        r = follow_ball(&g, r, &seed);
        pong_frame(&g, r, false);
        if (!g.ball_visible) continue;
        cr_assert(abs(g.ball_vx) >= 1 && abs(g.ball_vx) <= 3, "vx %d", g.ball_vx);
        cr_assert(g.ball_vy >= -2 && g.ball_vy <= 2, "vy %d", g.ball_vy);
        our_vx[abs(g.ball_vx)] = our_vy[g.ball_vy + 2] = true;
    }
    for (int v = 1; v <= 3; v++) cr_expect(gif_vx[v] && our_vx[v], "|vx| = %d", v);
    for (int v = -2; v <= 2; v++)
        cr_expect(!gif_vy[v + 2] || our_vy[v + 2], "vy = %d seen in the GIF, not in ours", v);
}

// With no ball in play the GIF's CPU bat climbs 6 and 8 px on alternate steps: 14 px per
// 8 frames. Ours, from the same frame phase, must do the same.
Test(pong, cpu_rate_matches_gif) {
    static GifStep s[GIF_MAX];
    int n = gif_load(s), checked = 0;
    for (int i = 0; i + 1 < n; i++) {
        const GifStep *a = &s[i], *b = &s[i + 1];
        if (b->step != a->step + 1 || a->ball_h >= 0 || b->ball_h >= 0) continue;
        if (a->cpu_y1 - a->cpu_y0 != 15 || b->cpu_y1 - b->cpu_y0 != 15 || b->cpu_y0 < 40) continue;
        Pong g;
        pong_reset(&g);
        g.frame = (uint32_t)(FRAMESKIP * a->step);
        g.ball_visible = false;
        g.serve_timer = 1000;
        g.cpu_y = a->cpu_y0;
        frames(&g, FRAMESKIP, PADDLE_RESISTANCE_DEFAULT);
        cr_expect_eq(g.cpu_y, b->cpu_y0, "step %d -> %d: gif %d -> %d, ours %d", a->step,
                     b->step, a->cpu_y0, b->cpu_y0, g.cpu_y);
        checked++;
    }
    cr_expect_geq(checked, 30);
}

// Points in the GIF: the score changes at step i, the ball is back at step j, towards the
// side that lost; the delay lies within 4 (j - i) +- 4 frames (merged GIF frames are
// identical, so step i - 1 still had the old score and step j - 1 no ball). The ball
// vanishes at the step the score changes.
Test(pong, serve_delay_and_direction_match_gif) {
    static GifStep s[GIF_MAX];
    int n = gif_load(s), points = 0, vanished_with_score = 0;
    for (int i = 1; i < n; i++) {
        int cpu_lost = s[i].score_agent > s[i - 1].score_agent;
        if (!cpu_lost && s[i].score_cpu == s[i - 1].score_cpu) continue;
        vanished_with_score += s[i - 1].ball_h > 0 && s[i].ball_h < 0;
        int j = i;
        while (j + 1 < n && s[j].ball_h < 0) j++;
        if (j + 1 >= n) continue;
        int dir = s[j + 1].ball_x > s[j].ball_x ? 1 : -1;
        cr_expect_eq(dir, cpu_lost ? -1 : 1, "step %d: serve goes to the loser", s[j].step);
        // ours: a point for the same side, then count frames to the serve
        Pong g;
        pong_reset(&g);
        g.ball_visible = true;
        g.ball_x = cpu_lost ? 3 : 155;
        g.ball_y = 100;
        g.ball_vx = cpu_lost ? -2 : 2;
        g.ball_vy = 0;
        g.agent_y = g.cpu_y = 150;
        int reward = pong_frame(&g, PADDLE_RESISTANCE_MAX, false), delay = 0;
        cr_expect_eq(reward, cpu_lost ? 1 : -1);
        while (!g.ball_visible) { pong_frame(&g, PADDLE_RESISTANCE_MAX, false); delay++; }
        cr_expect_eq(g.ball_vx, dir);
        int mid = FRAMESKIP * (s[j].step - s[i].step);
        cr_log_info("point at step %d: gif delay in (%d, %d), ours %d", s[i].step,
                    mid - FRAMESKIP, mid + FRAMESKIP, delay);
        cr_expect(delay > mid - FRAMESKIP && delay < mid + FRAMESKIP, "point at step %d", s[i].step);
        points++;
    }
    cr_expect_eq(points, 5);
    cr_expect_eq(vanished_with_score, 5);
}

// Bat limits: fully up only rows 34..39 show, fully down only 190..193 (GIF); the travel
// per step at full deflection is within 2 px of the GIF's largest (22 px).
Test(pong, agent_bat_limits_and_travel) {
    static GifStep s[GIF_MAX];
    int n = gif_load(s), gif_top = 999, gif_bottom = 0, gif_travel = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].agent_y0 < 0) continue;
        if (s[i].agent_y1 < gif_top) gif_top = s[i].agent_y1;
        if (s[i].agent_y0 > gif_bottom) gif_bottom = s[i].agent_y0;
        bool whole = s[i].agent_y1 - s[i].agent_y0 == 15 && i + 1 < n &&
                     s[i + 1].agent_y1 - s[i + 1].agent_y0 == 15 && s[i + 1].step == s[i].step + 1;
        if (whole && abs(s[i + 1].agent_y0 - s[i].agent_y0) > gif_travel)
            gif_travel = abs(s[i + 1].agent_y0 - s[i].agent_y0);
    }
    int travel = 0;
    for (int dir = -1; dir <= 1; dir += 2) {
        Pong g;
        pong_reset(&g);
        int r = PADDLE_RESISTANCE_DEFAULT;
        for (int step = 0; step < 12; step++) {
            int before = g.agent_y;
            for (int k = 0; k < FRAMESKIP; k++) {
                r += dir * PADDLE_RESISTANCE_STEP;
                r = r < PADDLE_RESISTANCE_MIN ? PADDLE_RESISTANCE_MIN
                  : r > PADDLE_RESISTANCE_MAX ? PADDLE_RESISTANCE_MAX : r;
                pong_frame(&g, r, false);
            }
            if (abs(g.agent_y - before) > travel) travel = abs(g.agent_y - before);
        }
        int y0, y1;
        bat_rows(g.agent_y, &y0, &y1);
        cr_expect_eq(dir < 0 ? y1 : y0, dir < 0 ? gif_top : gif_bottom);
    }
    cr_expect_eq(gif_top, 39);
    cr_expect_eq(gif_bottom, 190);
    cr_expect(travel >= gif_travel && travel <= gif_travel + 2, "ours %d, gif %d", travel, gif_travel);
}

// ----------------------------------------------------------------------------
// Score digits

static void glyph_of(const uint8_t *rgb, int x, char rows[5][4]) {
    for (int r = 0; r < 5; r++) {
        for (int c = 0; c < 3; c++) {
            const uint8_t *p = rgb + ((1 + 4 * r + 2) * PONG_SCREEN_W + x + 4 * c + 2) * 3;
            rows[r][c] = p[0] == 144 && p[1] == 72 ? '.' : '#';
        }
        rows[r][3] = 0;
    }
}

// Our digits 0..9 at both score positions equal the spec's table (spec 1.3), and the
// digits the GIF shows equal its crops; a score of 10 or more adds a tens digit 16 px left.
Test(pong, score_glyphs) {
    static const char *SPEC[10] = {
        "### #.# #.# #.# ###", ".#. .#. .#. .#. .#.", "### ..# ### #.. ###", "### ..# .## ..# ###",
        "#.# #.# ### ..# ..#", "### #.. ### ..# ###", "#.. #.. ### #.# ###", "### ..# ..# ..# ..#",
        "### #.# ### #.# ###", "### #.# ### ..# ..#",
    };
    uint8_t *rgb = malloc(RGB_BYTES);
    char rows[5][4], text[32];
    Pong g;
    pong_reset(&g);
    pong_frame(&g, PADDLE_RESISTANCE_DEFAULT, false);
    pong_frame(&g, PADDLE_RESISTANCE_DEFAULT, false);
    for (int d = 0; d <= 19; d++) {
        g.score_cpu = g.score_agent = d;
        pong_render_rgb(&g, rgb);
        for (int side = 0; side < 2; side++) {
            glyph_of(rgb, side ? 116 : 36, rows);
            snprintf(text, sizeof(text), "%s %s %s %s %s", rows[0], rows[1], rows[2], rows[3], rows[4]);
            cr_expect_str_eq(text, SPEC[d % 10], "digit %d side %d", d, side);
            glyph_of(rgb, side ? 100 : 20, rows);
            snprintf(text, sizeof(text), "%s %s %s %s %s", rows[0], rows[1], rows[2], rows[3], rows[4]);
            cr_expect_str_eq(text, d >= 10 ? SPEC[1] : "... ... ... ... ...", "tens of %d", d);
        }
    }
    FILE *f = open_fixture(DATA "gif_digits.txt");
    char line[256], side[16], r0[4], r1[4], r2[4], r3[4], r4[4];
    int digit, step, seen = 0;
    while (fixture_line(f, line, sizeof(line))) {
        cr_assert_eq(sscanf(line, "%15s %d %d %3s %3s %3s %3s %3s", side, &digit, &step, r0, r1,
                            r2, r3, r4), 8);
        snprintf(text, sizeof(text), "%s %s %s %s %s", r0, r1, r2, r3, r4);
        cr_expect_str_eq(text, SPEC[digit], "%s digit %d from GIF step %d", side, digit, step);
        seen++;
    }
    fclose(f);
    cr_expect_geq(seen, 5);
    free(rgb);
}

// ----------------------------------------------------------------------------
// The 80x80 observation and whole games

// pong_render_obs80 equals prepro(pong_render_rgb) in every state of 200k frames of play,
// reset observations included, and with both scores past 10.
Test(pong, obs80_equals_prepro_of_rgb) {
    uint8_t *rgb = malloc(RGB_BYTES), direct[PONG_OBS80 * PONG_OBS80], ref[PONG_OBS80 * PONG_OBS80];
    Pong g;
    pong_reset(&g);
    uint32_t seed = 7;
    int r = PADDLE_RESISTANCE_DEFAULT, games = 0, mismatches = 0;
    bool high_scores = false;
    for (int f = 0; f < 200000; f++) {
        pong_render_rgb(&g, rgb);
        pong_render_obs80(&g, direct);
        prepro(rgb, ref);
        mismatches += memcmp(direct, ref, sizeof(ref)) != 0;
        high_scores |= g.score_cpu >= 10 && g.score_agent >= 10;
        if (pong_game_over(&g)) {
            pong_reset(&g);
            if (++games % 2) g.score_cpu = g.score_agent = 10 + games % 9;   // two-digit scores
            continue;
        }
        r = follow_ball(&g, r, &seed);
        pong_frame(&g, r, false);
    }
    cr_expect_eq(mismatches, 0, "%d of 200000 frames differ", mismatches);
    cr_expect(high_scores);
    cr_expect_geq(games, 3);
    free(rgb);
}

static int64_t play_game(Pong *g, int period) {
    pong_reset(g);
    int r = PADDLE_RESISTANCE_DEFAULT;
    int64_t f = 0, reward = 0;
    while (!pong_game_over(g) && f < 1000000) {
        int phase = (int)(f / period % 3);
        r += phase == 0 ? -PADDLE_RESISTANCE_STEP : phase == 1 ? PADDLE_RESISTANCE_STEP : 0;
        r = r < PADDLE_RESISTANCE_MIN ? PADDLE_RESISTANCE_MIN
          : r > PADDLE_RESISTANCE_MAX ? PADDLE_RESISTANCE_MAX : r;
        reward += pong_frame(g, r, (f & 1) != 0);
        f++;
    }
    cr_expect_eq(reward, g->score_agent - g->score_cpu);
    return f;
}

Test(pong, full_game_ends_at_21_and_is_deterministic) {
    Pong a, b;
    int64_t fa = play_game(&a, 37), fb = play_game(&b, 37);
    cr_expect(pong_game_over(&a));
    cr_expect(a.score_cpu == 21 || a.score_agent == 21);
    cr_expect(a.score_cpu <= 21 && a.score_agent <= 21);
    cr_expect_eq(fa, fb);
    cr_expect_eq(memcmp(&a, &b, sizeof(a)), 0, "two runs differ");
    cr_expect_eq(pong_frame(&a, PADDLE_RESISTANCE_DEFAULT, false), 0, "no reward after the end");
    cr_expect_eq(a.score_cpu + a.score_agent, b.score_cpu + b.score_agent, "no point after the end");
}
