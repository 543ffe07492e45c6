// atari_prep.c: ale-py's AtariVectorEnv preprocessing for one env (see atari_prep.h).
//
// Read beside ALE's src/ale/vector/preprocessed_env.cpp (v0.12): the order of its steps is
// kept, including its quirks, because the observations must equal ALE's to the bit:
// - a step that ends early (game over, frame cap) captures no frame, so its observation
//   max-pools the frames the buffers still hold;
// - max-pooling writes into the newest frame's buffer, which the next step reads again when
//   it captures fewer than two frames (frameskip 1);
// - the reset observation pools the screen with a zeroed frame.
#include "atari_prep.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "../util/streams.h"

const char *atari_config_check(const AtariConfig *c) {
    if (!c) return "no configuration (NULL)";
    if (c->img_height < 1 || c->img_height > PONG_SCREEN_H || c->img_width < 1 || c->img_width > PONG_SCREEN_W)
        return "img_height and img_width must be in [1, 210] and [1, 160] (the resize only shrinks)";
    if (c->stack_num < 1 || c->stack_num > 64) return "stack_num must be in [1, 64]";
    if (c->frameskip < 1) return "frameskip must be >= 1";
    if (c->noop_max < 0) return "noop_max must be >= 0";
    if (c->max_frames < 1) return "max_num_frames_per_episode must be >= 1";
    if (!(c->repeat_action_probability >= 0.0 && c->repeat_action_probability <= 1.0))
        return "repeat_action_probability must be in [0, 1]";
    return NULL;
}

static size_t frame_bytes(const AtariConfig *c) {
    return (size_t)c->img_height * c->img_width * (c->grayscale ? 1 : 3);
}

size_t atari_obs_size(const AtariConfig *c) { return c ? (size_t)c->stack_num * frame_bytes(c) : 0; }

// ----------------------------------------------------------------------------
// std::mt19937 and libstdc++'s uniform_int_distribution

void mt19937_seed(Mt19937 *m, uint32_t seed) {
    if (!m) return;
    m->mt[0] = seed;
    for (int i = 1; i < 624; i++) m->mt[i] = 1812433253u * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + (uint32_t)i;
    m->i = 624;
}

uint32_t mt19937_next(Mt19937 *m) {
    if (!m) return 0;
    if (m->i >= 624) {
        for (int k = 0; k < 624; k++) {
            uint32_t y = (m->mt[k] & 0x80000000u) | (m->mt[(k + 1) % 624] & 0x7fffffffu);
            m->mt[k] = m->mt[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        m->i = 0;
    }
    uint32_t y = m->mt[m->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

// libstdc++ (bits/uniform_int_dist.h, GCC 11 on): a 32-bit generator is scaled down with
// Lemire's multiply-and-reject (_S_nd with 64-bit products).
int mt19937_uniform(Mt19937 *m, int hi) {
    if (!m) return 0;
    uint32_t range = (uint32_t)hi + 1u;
    uint64_t product = (uint64_t)mt19937_next(m) * range;
    uint32_t low = (uint32_t)product;
    if (low < range) {
        uint32_t threshold = (0u - range) % range;
        while (low < threshold) {
            product = (uint64_t)mt19937_next(m) * range;
            low = (uint32_t)product;
        }
    }
    return (int)(product >> 32);
}

// ----------------------------------------------------------------------------
// OpenCV's INTER_AREA (imgproc/src/resize.cpp: computeResizeAreaTab, ResizeArea_Invoker)

// computeResizeAreaTab: the source pixels each destination pixel covers, with their share.
static int area_tab(int ssize, int dsize, int cn, double scale, AreaTap *tab) {
    int k = 0;
    for (int dx = 0; dx < dsize; dx++) {
        double fsx1 = dx * scale;
        double fsx2 = fsx1 + scale;
        double cell = scale < ssize - fsx1 ? scale : ssize - fsx1;
        int sx1 = (int)ceil(fsx1), sx2 = (int)floor(fsx2);
        if (sx2 > ssize - 1) sx2 = ssize - 1;
        if (sx1 > sx2) sx1 = sx2;
        if (sx1 - fsx1 > 1e-3) tab[k++] = (AreaTap){ dx * cn, (sx1 - 1) * cn, (float)((sx1 - fsx1) / cell) };
        for (int sx = sx1; sx < sx2; sx++) tab[k++] = (AreaTap){ dx * cn, sx * cn, (float)(1.0 / cell) };
        if (fsx2 - sx2 > 1e-3) {
            double w = fsx2 - sx2 < 1.0 ? fsx2 - sx2 : 1.0;
            if (w > cell) w = cell;
            tab[k++] = (AreaTap){ dx * cn, sx2 * cn, (float)(w / cell) };
        }
    }
    return k;
}

int area_resize_init(AreaResize *r, int src_h, int src_w, int dst_h, int dst_w, int cn) {
    if (!r) return -1;
    memset(r, 0, sizeof *r);
    r->src_h = src_h, r->src_w = src_w, r->dst_h = dst_h, r->dst_w = dst_w, r->cn = cn;
    r->xtab = malloc((size_t)src_w * 2 * sizeof(AreaTap));
    r->ytab = malloc((size_t)src_h * 2 * sizeof(AreaTap));
    r->ytab_of = malloc((size_t)(dst_h + 1) * sizeof(int));
    if (r->xtab == NULL || r->ytab == NULL || r->ytab_of == NULL) {
        area_resize_free(r);
        return -1;
    }
    // cv::resize: scale = 1 / inv_scale, inv_scale = (double)dsize / ssize; integer factors
    // (within DBL_EPSILON) take the fast path
    double sx = 1.0 / ((double)dst_w / src_w), sy = 1.0 / ((double)dst_h / src_h);
    int ix = (int)lround(sx), iy = (int)lround(sy);
    if (fabs(sx - ix) < DBL_EPSILON && fabs(sy - iy) < DBL_EPSILON) r->iscale_x = ix, r->iscale_y = iy;
    r->xtab_n = area_tab(src_w, dst_w, cn, sx, r->xtab);
    r->ytab_n = area_tab(src_h, dst_h, 1, sy, r->ytab);
    for (int dy = 0, j = 0; dy <= dst_h; dy++) { // taps come in destination-row order
        while (j < r->ytab_n && r->ytab[j].di < dy) j++;
        r->ytab_of[dy] = j;
    }
    if (cn == 1) { // the same taps by column
        int *count = calloc((size_t)dst_w, sizeof(int));
        if (count == NULL) {
            area_resize_free(r);
            return -1;
        }
        for (int k = 0; k < r->xtab_n; k++)
            if (++count[r->xtab[k].di] > r->col_taps) r->col_taps = count[r->xtab[k].di];
        r->col_src = calloc((size_t)r->col_taps * dst_w, sizeof(int));
        r->col_w = calloc((size_t)r->col_taps * dst_w, sizeof(float));
        if (r->col_src == NULL || r->col_w == NULL) {
            free(count);
            area_resize_free(r);
            return -1;
        }
        memset(count, 0, (size_t)dst_w * sizeof(int));
        for (int k = 0; k < r->xtab_n; k++) {
            int dx = r->xtab[k].di, t = count[dx]++;
            r->col_src[t * dst_w + dx] = r->xtab[k].si;
            r->col_w[t * dst_w + dx] = r->xtab[k].alpha;
        }
        for (int dx = 0; dx < dst_w; dx++)
            for (int t = count[dx]; t < r->col_taps; t++) r->col_src[t * dst_w + dx] = r->col_src[dx];
        free(count);
    }
    return 0;
}

void area_resize_free(AreaResize *r) {
    if (!r) return;
    mem_free_all(r->xtab, r->ytab, r->ytab_of, r->col_src, r->col_w);
    *r = (AreaResize){ 0 }; // a second free (after a failed init) frees nothing
}

// saturate_cast<uchar>(float): cvRound (half to even), clamped. Adding and subtracting 1.5 *
// 2^23 rounds a float below 2^22 to an integer half to even in the default rounding mode,
// and unlike nearbyintf it vectorises.
static inline uint8_t round_u8(float x) {
    float v = (x + 12582912.0f) - 12582912.0f;
    return (uint8_t)(v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v);
}

// resizeAreaFast_<uchar, int>: a 2x2 block is (sum + 2) >> 2 (ResizeAreaFastVec, its SIMD
// and scalar loops alike); other integer factors round sum * (1.f / area) half to even. The
// sizes here divide the screen exactly, so no partial block remains.
static void area_fast_run(const AreaResize *r, const uint8_t *src, uint8_t *dst) {
    const int cn = r->cn, sx = r->iscale_x, sy = r->iscale_y, area = sx * sy;
    const float scale = 1.f / (float)area;
    const size_t step = (size_t)r->src_w * cn;
    for (int dy = 0; dy < r->dst_h; dy++) {
        const uint8_t *s = src + (size_t)dy * sy * step;
        uint8_t *d = dst + (size_t)dy * r->dst_w * cn;
        for (int dx = 0; dx < r->dst_w * cn; dx++) {
            const uint8_t *p = s + (size_t)(dx / cn) * sx * cn + dx % cn;
            int sum = 0;
            for (int y = 0; y < sy; y++)
                for (int x = 0; x < sx; x++) sum += p[(size_t)y * step + (size_t)x * cn];
            d[dx] = (sx == 2 && sy == 2) ? (uint8_t)((sum + 2) >> 2) : round_u8((float)sum * scale);
        }
    }
}

// ResizeArea_Invoker<uchar, float> over all destination rows: each source row is summed
// horizontally into buf, and buf, weighted, into the destination row's sum; a row is written
// (saturate_cast: round half to even, clamp) when the next destination row starts. The sums
// are float, in this order; compiled with -std=c11 no multiply-add is fused.
void area_resize_run(const AreaResize *r, const uint8_t *src, uint8_t *dst, float *scratch) {
    if (!r || !src || !dst || !scratch) return;
    if (r->src_h == r->dst_h && r->src_w == r->dst_w) { // cv::resize copies
        memcpy(dst, src, (size_t)r->src_h * r->src_w * r->cn);
        return;
    }
    if (r->iscale_x > 0) {
        area_fast_run(r, src, dst);
        return;
    }
    const int w = r->dst_w * r->cn;
    const size_t src_step = (size_t)r->src_w * r->cn;
    float *buf = scratch, *sum = scratch + w;
    for (int dx = 0; dx < w; dx++) sum[dx] = 0.0f;
    int prev_dy = r->ytab[0].di;
    for (int j = 0; j < r->ytab_n; j++) {
        const float beta = r->ytab[j].alpha;
        const int dy = r->ytab[j].di;
        const uint8_t *s = src + (size_t)r->ytab[j].si * src_step;
        for (int dx = 0; dx < w; dx++) buf[dx] = 0.0f;
        if (r->cn == 1) {
            for (int k = 0; k < r->xtab_n; k++) buf[r->xtab[k].di] += s[r->xtab[k].si] * r->xtab[k].alpha;
        } else {
            for (int k = 0; k < r->xtab_n; k++)
                for (int c = 0; c < r->cn; c++) buf[r->xtab[k].di + c] += s[r->xtab[k].si + c] * r->xtab[k].alpha;
        }
        if (dy != prev_dy) {
            uint8_t *d = dst + (size_t)prev_dy * w;
            for (int dx = 0; dx < w; dx++) {
                d[dx] = round_u8(sum[dx]);
                sum[dx] = beta * buf[dx];
            }
            prev_dy = dy;
        } else {
            for (int dx = 0; dx < w; dx++) sum[dx] += beta * buf[dx];
        }
    }
    uint8_t *d = dst + (size_t)prev_dy * w;
    for (int dx = 0; dx < w; dx++) d[dx] = round_u8(sum[dx]);
}

// Two rows of n bytes (a multiple of 8) alike? Inline and vectorised, where memcmp is a call.
static inline bool rows_equal(const uint8_t *a, const uint8_t *b, size_t n) {
    uint64_t diff = 0;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

// One source row's horizontal sums (ResizeArea_Invoker's buf): taps in table order.
static void area_hrow(const AreaResize *r, const uint8_t *s, float *buf) {
    const int w = r->dst_w * r->cn;
    if (r->cn == 1) {
        // by column: buf = 0 + p0 (= p0), then += p1, p2, ...; the loops vectorise
        float f[PONG_SCREEN_W];
        for (int x = 0; x < r->src_w; x++) f[x] = s[x];
        const int *src = r->col_src;
        const float *wt = r->col_w;
        for (int dx = 0; dx < w; dx++) buf[dx] = f[src[dx]] * wt[dx];
        for (int t = 1; t < r->col_taps; t++)
            for (int dx = 0; dx < w; dx++) buf[dx] += f[src[t * w + dx]] * wt[t * w + dx];
        return;
    }
    for (int dx = 0; dx < w; dx++) buf[dx] = 0.0f;
    for (int k = 0; k < r->xtab_n; k++)
        for (int c = 0; c < r->cn; c++) buf[r->xtab[k].di + c] += s[r->xtab[k].si + c] * r->xtab[k].alpha;
}

void area_resize_update(const AreaResize *r, const uint8_t *src, const uint8_t *changed, float *hsum,
    const uint8_t *prev_dst, uint8_t *dst) {
    if (!r || !src || !changed || !hsum || !prev_dst || !dst) return;
    const int w = r->dst_w * r->cn;
    const size_t src_step = (size_t)r->src_w * r->cn;
    for (int sy = 0; sy < r->src_h; sy++) {
        if (!changed[sy]) continue;
        const uint8_t *s = src + (size_t)sy * src_step;
        float *h = hsum + (size_t)sy * w;
        if (sy > 0 && rows_equal(s, s - src_step, src_step)) // as the row above (bats, walls)
            memcpy(h, h - w, (size_t)w * sizeof(float));
        else
            area_hrow(r, s, h);
    }
    float sum[3 * PONG_SCREEN_W];
    for (int dy = 0; dy < r->dst_h; dy++) {
        int j0 = r->ytab_of[dy], j1 = r->ytab_of[dy + 1];
        uint8_t *d = dst + (size_t)dy * w;
        bool dirty = false;
        for (int j = j0; j < j1; j++) dirty |= changed[r->ytab[j].si] != 0;
        if (!dirty) {
            if (prev_dst != dst) memcpy(d, prev_dst + (size_t)dy * w, (size_t)w);
            continue;
        }
        // sum = beta * buf for the first tap (OpenCV's 0 + x is x), then += in order
        const float *h = hsum + (size_t)r->ytab[j0].si * w;
        float beta = r->ytab[j0].alpha;
        for (int dx = 0; dx < w; dx++) sum[dx] = beta * h[dx];
        for (int j = j0 + 1; j < j1; j++) {
            h = hsum + (size_t)r->ytab[j].si * w;
            beta = r->ytab[j].alpha;
            for (int dx = 0; dx < w; dx++) sum[dx] += beta * h[dx];
        }
        for (int dx = 0; dx < w; dx++) d[dx] = round_u8(sum[dx]);
    }
}

// ----------------------------------------------------------------------------
// the env

// n bytes rounded up to whole 64-byte cache lines
static size_t line_bytes(size_t n) { return (n + 63) & ~(size_t)63; }

int atari_env_init(AtariEnv *a, const AtariConfig *cfg, const AreaResize *resize, uint64_t sticky_seed) {
    if (!a || !cfg || !resize) return -1;
    memset(a, 0, sizeof *a);
    a->cfg = cfg;
    a->resize = resize;
    a->sticky_seed = sticky_seed;
    // the game as ALE's act() drives it: one frame a call, sticky actions, no caps
    EnvPreset p = *env_preset_find("ALE/Pong-v5");
    p.frameskip_min = p.frameskip_max = 1;
    p.repeat_prob = cfg->repeat_action_probability;
    p.max_steps = p.max_frames = 0;
    env_init(&a->env, p.id, sticky_seed);
    a->env.preset = p;
    // the env's arrays in one zeroed block that raw0 owns, each on a cache line of its own
    const size_t cn = cfg->grayscale ? 1 : 3;
    const size_t raw = line_bytes((size_t)PONG_SCREEN_H * PONG_SCREEN_W * cn);
    const size_t stack = line_bytes(atari_obs_size(cfg));
    const size_t scratch = line_bytes((size_t)2 * cfg->img_width * 3 * sizeof(float));
    const size_t changed = line_bytes(PONG_SCREEN_H);
    const size_t hsum = line_bytes((size_t)PONG_SCREEN_H * cfg->img_width * cn * sizeof(float));
    uint8_t *block = aligned_alloc(64, raw + stack + scratch + changed + hsum);
    if (block == NULL) return -1;
    memset(block, 0, raw + stack + scratch + changed + hsum);
    a->raw0 = block;
    a->stack = block + raw;
    a->scratch = (float *)(a->stack + stack);
    a->changed = (uint8_t *)a->scratch + scratch;
    a->hsum = (float *)(a->changed + changed);
    a->raw1_blank = true;
    mt19937_seed(&a->noop_rng, (uint32_t)sticky_seed);
    return 0;
}

void atari_env_free(AtariEnv *a) {
    if (!a) return;
    free(a->raw0); // the block of all its arrays
    *a = (AtariEnv){ 0 };
}

int atari_scratch_init(AtariScratch *s, const AtariConfig *cfg) {
    if (!s || !cfg) return -1;
    const size_t bytes = (size_t)PONG_SCREEN_H * PONG_SCREEN_W * (cfg->grayscale ? 1 : 3);
    s->frame = malloc(2 * bytes); // frame1 is its second half
    s->frame1 = s->frame ? s->frame + bytes : NULL;
    return s->frame ? 0 : -1;
}

void atari_scratch_free(AtariScratch *s) {
    if (!s) return;
    free(s->frame); // frame1 with it
    s->frame = s->frame1 = NULL;
}

// getScreenGrayscale / getScreenRGB of the game's current frame into buf.
static void capture(const AtariEnv *a, const Pong *game, uint8_t *buf) {
    if (a->cfg->grayscale)
        pong_render_gray(game, buf);
    else
        pong_render_rgb(game, buf);
}

// PreprocessedEnv::process_screen: max-pool into raw_frames_[0] (raw0), resize into the ring.
// raw0 held the last pooled frame; a frame captured for it this step waits in the scratch, so
// that each pooled row is compared with the last one as it is written, and the resize redone
// only for the rows that changed (area_resize_update). raw_frames_[1] is drawn from its game.
static void process_screen(AtariEnv *a, const AtariScratch *sc) {
    const AtariConfig *c = a->cfg;
    const size_t row = (size_t)PONG_SCREEN_W * (c->grayscale ? 1 : 3);
    const size_t fb = frame_bytes(c);
    const uint8_t *src0 = a->fresh0 ? sc->frame : a->raw0;
    const bool pool = c->maxpool && !a->raw1_blank; // max(x, 0) is x
    if (pool) capture(a, &a->raw1_game, sc->frame1);
    uint8_t *dst = a->stack + (size_t)a->stack_idx * fb;
    const uint8_t *prev = a->stack + (size_t)((a->stack_idx + c->stack_num - 1) % c->stack_num) * fb;
    const AreaResize *r = a->resize;
    for (int y = 0; y < PONG_SCREEN_H; y++) {
        const uint8_t *s0 = src0 + y * row, *s1 = sc->frame1 + y * row;
        uint8_t *d = a->raw0 + y * row;
        uint8_t diff = 0;
        if (pool) {
            for (size_t x = 0; x < row; x++) {
                uint8_t p = s1[x] > s0[x] ? s1[x] : s0[x];
                diff |= p ^ d[x];
                d[x] = p;
            }
        } else if (s0 != d) {
            for (size_t x = 0; x < row; x++) {
                diff |= s0[x] ^ d[x];
                d[x] = s0[x];
            }
        }
        a->changed[y] = !a->pooled_valid || diff != 0;
    }
    a->fresh0 = false;
    if (r->iscale_x > 0 || (r->src_h == r->dst_h && r->src_w == r->dst_w)) {
        area_resize_run(r, a->raw0, dst, a->scratch);
    } else {
        area_resize_update(r, a->raw0, a->changed, a->hsum, prev, dst);
        a->pooled_valid = true;
    }
    a->stack_idx = (a->stack_idx + 1) % c->stack_num;
}

// ALE act(): one frame; the frame counters count it.
static int act(AtariEnv *a, int action) {
    EnvStep st;
    if (env_step(&a->env, action, &st) != ENV_OK) return 0; // game over: ALE returns 0
    a->frame_number++;
    a->episode_frame_number++;
    return st.reward;
}

void atari_env_reset(AtariEnv *a, int64_t seed, const AtariScratch *sc) {
    if (!a || !sc) return;
    const AtariConfig *c = a->cfg;
    if (seed >= 0) {
        // ALE: random_seed, rng_.seed(seed), loadROM (the frame counter starts again)
        mt19937_seed(&a->noop_rng, (uint32_t)seed);
        a->sticky_seed = stream_atari_sticky((uint64_t)seed);
        a->episodes = 0;
        a->frame_number = 0;
    }
    env_reset(&a->env, stream_atari_episode(a->sticky_seed, (uint64_t)a->episodes));
    a->episodes++;
    a->episode_frame_number = 0;
    bool fire = c->use_fire_reset; // Pong's minimal set has FIRE
    if (fire) act(a, ACTION_FIRE);
    int noops = mt19937_uniform(&a->noop_rng, c->noop_max > 0 ? c->noop_max - 1 : 0) - (fire ? 1 : 0);
    for (; noops > 0; noops--) {
        act(a, ACTION_NOOP);
        if (pong_game_over(&a->env.game)) {
            env_reset(&a->env, stream_atari_episode(a->sticky_seed, (uint64_t)a->episodes));
            a->episodes++;
            a->episode_frame_number = 0;
        }
    }
    memset(a->stack, 0, atari_obs_size(c));
    a->stack_idx = 0;
    a->pooled_valid = false; // the ring's last frame is gone: resize it all
    capture(a, &a->env.game, sc->frame);
    a->fresh0 = true;
    a->raw1_blank = true;
    process_screen(a, sc);
    a->elapsed = 0;
    a->reward = 0;
    a->game_over = false;
}

void atari_env_step(AtariEnv *a, int action, const AtariScratch *sc) {
    if (!a || !sc) return;
    const AtariConfig *c = a->cfg;
    int reward = 0;
    for (int skip = c->frameskip; skip > 0; skip--) {
        reward += act(a, action);
        a->game_over = pong_game_over(&a->env.game);
        a->elapsed++;
        if (a->game_over || a->elapsed >= c->max_frames) break;
        if (skip == 2) a->raw1_game = a->env.game, a->raw1_blank = false;
        if (skip == 1) capture(a, &a->env.game, sc->frame), a->fresh0 = true;
    }
    process_screen(a, sc);
    a->reward = c->reward_clipping ? (reward < -1 ? -1 : reward > 1 ? 1 : reward) : reward;
}

bool atari_env_terminated(const AtariEnv *a) { return a && a->game_over; }
bool atari_env_truncated(const AtariEnv *a) { return a && a->elapsed >= a->cfg->max_frames && !a->game_over; }

void atari_env_obs(const AtariEnv *a, uint8_t *out) {
    if (!a || !out) return;
    size_t fb = frame_bytes(a->cfg);
    for (int i = 0; i < a->cfg->stack_num; i++) {
        int src = (a->stack_idx + i) % a->cfg->stack_num;
        memcpy(out + (size_t)i * fb, a->stack + (size_t)src * fb, fb);
    }
}
