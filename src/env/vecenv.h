// vecenv.h: N environments stepped together by a pool of threads, for bindings (the Python
// pongrl.make_vec) and C users. Observations, rewards and flags go to caller-owned arrays.
//
// Semantics are Gymnasium's vector API with AutoresetMode.SAME_STEP: an env whose episode
// ends in a step is reset inside that step, its slot of `obs` holds the new episode's first
// observation, and its last observation goes to `final_obs` (when given) with the episode's
// return and length. Env i's episode j is seeded from rng_key(seed, i, j, purpose) alone, so
// every result is the same whatever the number of threads.
#ifndef PONGRL_VECENV_H
#define PONGRL_VECENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "env.h"

// Observation types: ale-py's obs_type, plus the seed's 80x80 grid.
enum { OBS_RGB = 0,          // (210, 160, 3) uint8, ALE getScreenRGB
       OBS_GRAYSCALE = 1,    // (210, 160) uint8, ALE getScreenGrayscale
       OBS_RAM = 2,          // (128,) uint8, ALE getRAM
       OBS_OBS80 = 3,        // (80, 80) uint8 in {0, 1}, the seed's preprocess
       OBS_TYPE_COUNT = 4 };

enum { VECENV_ERR_ARG = -4 };   // a bad preset, count or obs type (env.h has -1..-3)

// Bytes of one observation of the given type; 0 for an unknown type.
size_t env_obs_size(int obs_type);
// The current observation of the given type into out (env_obs_size bytes).
void env_render_obs(const Env *env, int obs_type, uint8_t *out);
// ALE's grayscale screen: round(0.2989 r + 0.5870 g + 0.1140 b) of each RGB pixel.
void env_render_grayscale(const Env *env, uint8_t *gray);   // (210, 160)

// ENV_OK when the preset's numbers make sense (frameskip >= 1 and min <= max, probability in
// [0, 1], caps >= 0), VECENV_ERR_ARG otherwise. Its id must name a built-in preset: the
// overrides change the numbers, never the game.
int env_preset_check(const EnvPreset *p);
// A single env with a preset whose numbers the caller changed (ale-py's frameskip,
// repeat_action_probability, max_num_frames_per_episode); NULL for a bad preset.
Env *env_new_preset(const EnvPreset *p, uint64_t seed);

// ----------------------------------------------------------------------------
// the vector env

typedef struct VecEnv VecEnv;

// Where a step writes; every array has num_envs rows and belongs to the caller.
typedef struct {
    uint8_t *obs;             // (N, obs_size)
    double *rewards;          // (N,)
    bool *terminated;         // (N,)
    bool *truncated;          // (N,)
    uint8_t *final_obs;       // (N, obs_size) or NULL: rows of the envs that ended this step
    double *episode_return;   // (N,) or NULL: the ended episode's total reward
    int64_t *episode_length;  // (N,) or NULL: the ended episode's length in agent steps
    int64_t *episode_frames;  // (N,) or NULL: the ended episode's emulated frames
} VecOut;

// num_threads <= 0: one per online core. Threads are never more than envs. NULL on a bad
// preset, count or obs type, or out of memory.
VecEnv *vecenv_new(const EnvPreset *p, int num_envs, int num_threads, int obs_type);
void vecenv_free(VecEnv *v);
int vecenv_num_envs(const VecEnv *v);
int vecenv_num_threads(const VecEnv *v);
int vecenv_obs_type(const VecEnv *v);

// Every env starts episode 0 of (seed, env index); out->obs, and zeroes rewards and flags.
int vecenv_reset(VecEnv *v, uint64_t seed, const VecOut *out);
// One step of every env. actions: (N,) in [0, ACTION_COUNT). ENV_ERR_ACTION (nothing
// stepped) when one is out of range; its index goes to *bad_index when that is not NULL.
int vecenv_step(VecEnv *v, const int32_t *actions, const VecOut *out, int *bad_index);
// The seed of env i's episode j after vecenv_reset(v, seed): rng_key(seed, i, j, "venv").
uint64_t vecenv_episode_seed(uint64_t seed, int env_index, int64_t episode);
// Env i itself (read-only), for rendering and state; NULL out of range.
const Env *vecenv_env(const VecEnv *v, int i);

#endif
