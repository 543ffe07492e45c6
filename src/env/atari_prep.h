// atari_prep.h: one env with the preprocessing of ale-py's AtariVectorEnv (ALE's
// src/ale/vector/preprocessed_env.cpp, EnvPool's design): frameskip with max-pooling of the
// last two frames, grayscale or RGB, OpenCV's INTER_AREA resize (84x84 by default), a stack
// of frames, no-op starts drawn as ALE draws them, fire on reset, reward clipping and a frame
// cap. The vector env (vecenv.h) runs many of these on its pool; this file knows no threads.
//
// Same arithmetic as ALE's, to the bit: the resize is OpenCV's resizeArea_ (float weights
// from computeResizeAreaTab, summed in the same order, rounded half to even), the no-op
// count is libstdc++'s uniform_int_distribution over std::mt19937 seeded as ALE seeds it.
// tests/data/ale-vector/ holds ALE's own output for the same actions.
#ifndef PONGRL_ATARI_PREP_H
#define PONGRL_ATARI_PREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "env.h"

#ifdef __cplusplus // a C++ program links the C names
extern "C" {
#endif

// ale_py.vector_env.AtariVectorEnv's keyword arguments (its defaults in comments).
typedef struct {
    int img_height, img_width;        // 84, 84: the resized frame
    bool grayscale;                   // true; else RGB, (H, W, 3)
    int stack_num;                    // 4
    int frameskip;                    // 4
    bool maxpool;                     // true: max of the last two frames of a step
    int noop_max;                     // 30: 0..noop_max-1 NOOPs after reset (less one for FIRE)
    bool use_fire_reset;              // true: FIRE for one frame after reset
    bool episodic_life;               // false (Pong has no lives: ALE's lives() is 0, no effect)
    bool life_loss_info;              // false (likewise)
    bool reward_clipping;             // true: the step's reward clamped to [-1, 1]
    int64_t max_frames;               // 108000: truncation after this many frames of an episode
    double repeat_action_probability; // 0.25 in ALE/Pong-v5; ale-py's vector env: 0.0
} AtariConfig;

// NULL when the numbers make sense, else what is wrong (one line).
const char *atari_config_check(const AtariConfig *c);
// Bytes of one stacked observation: stack_num * H * W (* 3 for RGB).
size_t atari_obs_size(const AtariConfig *c);

// std::mt19937 (the no-op stream ALE's PreprocessedEnv keeps)
typedef struct {
    uint32_t mt[624];
    int i;
} Mt19937;
void mt19937_seed(Mt19937 *m, uint32_t seed);
uint32_t mt19937_next(Mt19937 *m);
// std::uniform_int_distribution<int>(0, hi)(m) as libstdc++ (GCC >= 11) computes it.
int mt19937_uniform(Mt19937 *m, int hi);

// OpenCV's cv::resize(src, dst, INTER_AREA) for uint8 images of cn channels that shrink (or
// keep their size); the tables are built once per size.
typedef struct {
    int di, si;
    float alpha;
} AreaTap;
typedef struct {
    int src_h, src_w, dst_h, dst_w, cn;
    int iscale_x, iscale_y; // > 0: both factors are integers (OpenCV's resizeAreaFast_)
    AreaTap *xtab, *ytab;
    int xtab_n, ytab_n;
    int *ytab_of; // (dst_h + 1,): destination row dy's taps are ytab[ytab_of[dy]..]
    // xtab by destination column (cn == 1): tap k of column dx is source pixel col_src[k][dx]
    // with weight col_w[k][dx]; columns with fewer taps are padded with weight 0 (adding
    // 0 * s = +0 to a sum leaves it unchanged, so the sums stay OpenCV's to the bit)
    int col_taps;
    int *col_src; // (col_taps, dst_w)
    float *col_w; // (col_taps, dst_w)
} AreaResize;
int area_resize_init(AreaResize *r, int src_h, int src_w, int dst_h, int dst_w, int cn);
void area_resize_free(AreaResize *r);
// dst: (dst_h, dst_w, cn); scratch: 2 * dst_w * cn floats.
void area_resize_run(const AreaResize *r, const uint8_t *src, uint8_t *dst, float *scratch);
// The same result computed again only where src changed: hsum (src_h, dst_w * cn) holds each
// source row's horizontal sums and prev_dst the last result; rows whose source rows did not
// change (changed[sy] == 0) are copied from prev_dst (which may be dst itself). A row's sums
// depend on that row alone, and a destination row on its source rows' sums alone, so the
// result equals area_resize_run's. Only for non-integer factors (iscale_x == 0).
void area_resize_update(const AreaResize *r, const uint8_t *src, const uint8_t *changed, float *hsum,
    const uint8_t *prev_dst, uint8_t *dst);

// What one thread needs while it steps an env, whichever env: the step's two captured frames
// before they are pooled.
typedef struct {
    uint8_t *frame;  // (210, 160[, 3]): ALE's raw_frames_[0] as captured
    uint8_t *frame1; // (210, 160[, 3]): raw_frames_[1], in frame's block
} AtariScratch;
int atari_scratch_init(AtariScratch *s, const AtariConfig *cfg); // -1: out of memory
void atari_scratch_free(AtariScratch *s);

typedef struct {
    Env env; // the game, frameskip 1 (ALE's act()), no caps of its own
    const AtariConfig *cfg;
    const AreaResize *resize; // shared, read-only
    Mt19937 noop_rng;
    // ALE's raw_frames_: [0] holds the last pooled frame between steps; [1] is kept as the
    // game it shows (164 bytes, not 33,600), drawn again when a step pools it
    uint8_t *raw0; // (210, 160[, 3]); the one allocation of the arrays below
    Pong raw1_game;
    bool raw1_blank; // raw_frames_[1] is zeros (since the reset)
    bool fresh0;     // this step captured raw_frames_[0] (it waits in the scratch)
    uint8_t *stack;  // (stack_num, frame) ring; stack_idx: the next to write
    float *scratch;
    // the incremental resize (area_resize_update): which pooled rows changed, their sums
    uint8_t *changed;  // (210,)
    float *hsum;       // (210, W * C)
    bool pooled_valid; // raw0, hsum and the ring's last frame belong together
    int stack_idx;
    int64_t elapsed;      // frames since reset (ALE's elapsed_steps_)
    int64_t frame_number; // frames since the seeded reset (ALE getFrameNumber)
    int64_t episode_frame_number;
    int reward; // of the last step, clipped when asked
    bool game_over;
    uint64_t sticky_seed; // the stream of the env's sticky actions
    int64_t episodes;
} AtariEnv;

// Allocates the buffers; the env then needs a seeded atari_env_reset. -1 when out of memory.
int atari_env_init(AtariEnv *a, const AtariConfig *cfg, const AreaResize *resize, uint64_t sticky_seed);
void atari_env_free(AtariEnv *a);
// ALE's PreprocessedEnv::reset: seed >= 0 reseeds the no-op stream (as reset(seed=)); -1
// goes on with it (autoreset, reset() without a seed).
void atari_env_reset(AtariEnv *a, int64_t seed, const AtariScratch *s);
// PreprocessedEnv::step with a minimal-set action in [0, ACTION_COUNT).
void atari_env_step(AtariEnv *a, int action, const AtariScratch *s);
bool atari_env_terminated(const AtariEnv *a);
bool atari_env_truncated(const AtariEnv *a);
// The stacked observation, oldest frame first: (stack_num, H, W[, 3]).
void atari_env_obs(const AtariEnv *a, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
