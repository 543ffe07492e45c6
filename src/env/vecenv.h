// vecenv.h: N environments stepped together by a pool of threads, for bindings (the Python
// pongrl.make_vec and pongrl.AtariVectorEnv) and C users. Observations, rewards and flags go
// to caller-owned arrays.
//
// Semantics are Gymnasium's vector API with its three autoreset modes (AutoresetMode):
// - NEXT_STEP (Gymnasium's default): a step that ends an episode returns its last
//   observation; the env's next step resets it (its action is ignored) and returns the new
//   episode's first observation with reward 0 and both flags false.
// - SAME_STEP: the env is reset inside the step that ended it; its row of `obs` holds the
//   new episode's first observation and its last one goes to `final_obs`.
// - DISABLED: an ended env must be reset by vecenv_reset_mask before it steps again.
// The ended episode's return and length go to episode_return/_length in the step that ends
// it, whatever the mode. Env i's episode j is seeded from rng_key(seed, i, j, purpose) alone
// (purpose: STREAM_VECENV, or the creator's VecConfig.stream), so every result is the same
// whatever the number of threads.
//
// With an AtariConfig (atari_prep.h) every env is ale-py's AtariVectorEnv's: stacked,
// resized frames; with batch_size < num_envs a step returns the next batch_size envs in the
// order their work was queued (ale-py's async mode, as its engine orders it with one thread).
//
// Caller-stepped (VecConfig.caller_stepped): the vector has no threads of its own and the
// caller steps one env at a time (vecenv_reset_env, vecenv_step_env), from any of its threads
// as long as no two touch the same env at once: a learner whose pool threads each play a fixed
// range of the envs, and put their own work (a forward pass) between two steps of an env.
// vecenv_reset, _reset_mask and _step work on it too, on the calling thread.
#ifndef PONGRL_VECENV_H
#define PONGRL_VECENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "atari_prep.h"
#include "env.h"

#ifdef __cplusplus // a C++ program links the C names
extern "C" {
#endif

// Observation types: ale-py's obs_type, plus Karpathy's 80x80 grid.
enum {
    OBS_RGB = 0,       // (210, 160, 3) uint8, ALE getScreenRGB
    OBS_GRAYSCALE = 1, // (210, 160) uint8, ALE getScreenGrayscale
    OBS_RAM = 2,       // (128,) uint8, ALE getRAM
    OBS_OBS80 = 3,     // (80, 80) uint8 in {0, 1}, Karpathy's preprocess
    OBS_TYPE_COUNT = 4
};

enum { VECENV_ERR_ARG = ENV_ERR_ARG }; // a NULL, a bad preset, count or obs type

// Gymnasium's AutoresetMode
enum { VECENV_NEXT_STEP = 0, VECENV_SAME_STEP = 1, VECENV_DISABLED = 2 };

// Bytes of one observation of the given type; 0 for an unknown type.
size_t env_obs_size(int obs_type);
// The current observation of the given type into out (env_obs_size bytes).
void env_render_obs(const Env *env, int obs_type, uint8_t *out);

// ENV_OK when the preset's numbers make sense (frameskip >= 1 and min <= max, probability in
// [0, 1], caps >= 0), VECENV_ERR_ARG otherwise. Its id must name a built-in preset: the
// overrides change the numbers, never the game.
int env_preset_check(const EnvPreset *p);
// What is wrong with the preset, in one line ("frameskip_min must be >= 1, got 0"), or NULL
// when env_preset_check accepts it. The text lives in a buffer of the calling thread's.
const char *env_preset_problem(const EnvPreset *p);
// A single env with a preset whose numbers the caller changed (ale-py's frameskip,
// repeat_action_probability, max_num_frames_per_episode); NULL for a bad preset.
Env *env_new_preset(const EnvPreset *p, uint64_t seed);

// ----------------------------------------------------------------------------
// the vector env

typedef struct VecEnv VecEnv;

// Where a step writes; every array has num_envs rows and belongs to the caller.
typedef struct {
    uint8_t *obs;                  // (N, obs_size)
    double *rewards;               // (N,)
    bool *terminated;              // (N,)
    bool *truncated;               // (N,)
    uint8_t *final_obs;            // (N, obs_size) or NULL: rows of the envs that ended this step
    double *episode_return;        // (N,) or NULL: the ended episode's total reward
    int64_t *episode_length;       // (N,) or NULL: the ended episode's length in agent steps
    int64_t *episode_frames;       // (N,) or NULL: the ended episode's emulated frames
    int32_t *env_ids;              // (N,) or NULL: which env each row is (batch mode: not 0..N-1)
    int64_t *frame_number;         // (N,) or NULL: frames since the env's last seeded reset
    int64_t *episode_frame_number; // (N,) or NULL: frames since the episode's reset
} VecOut;
// With batch_size B < N, "N" rows above are B rows.

typedef struct {
    int num_envs;
    int num_threads;            // <= 0: one per online core; never more than envs
    int obs_type;               // OBS_*; ignored with atari
    int autoreset;              // VECENV_NEXT_STEP, _SAME_STEP, _DISABLED
    int batch_size;             // 0: num_envs; else 1..num_envs (ale-py's async mode)
    int thread_affinity_offset; // >= 0: thread k pinned to core (offset + k) % cores
    const AtariConfig *atari;   // NULL, or ale-py's AtariVectorEnv preprocessing (copied)
    int mode, difficulty;       // ALE's flavour of every env (env_init_flavour's); 0, 0 with atari
    uint32_t stream;            // 0: STREAM_VECENV; else a learner's env word (util/streams.h) of the episode seeds
    bool caller_stepped;        // no threads: the caller steps env by env (needs SAME_STEP, no batch, no atari)
} VecConfig;

// NULL on a bad preset or configuration, or out of memory; *why (when not NULL) then says
// what is wrong in one line.
VecEnv *vecenv_create(const EnvPreset *p, const VecConfig *c, const char **why);
// vecenv_create with SAME_STEP, no batching, no Atari preprocessing.
VecEnv *vecenv_new(const EnvPreset *p, int num_envs, int num_threads, int obs_type);
void vecenv_free(VecEnv *v);
int vecenv_num_threads(const VecEnv *v);
int vecenv_batch_size(const VecEnv *v);
size_t vecenv_obs_size(const VecEnv *v); // bytes of one row of obs

// Every env starts episode 0 of (seed, env index); out->obs, and zeroes rewards and flags.
// (With atari, env i's no-op stream is seeded with seed + i, as ale-py's reset(seed=int).)
int vecenv_reset(VecEnv *v, uint64_t seed, const VecOut *out);
// Resets the envs of mask (NULL: all), the others report their current observation.
// seeds (N,) or NULL: env i's own seed (its episodes then come from (seeds[i], 0)), or -1 to
// go on with its stream; atari: ALE's seed of env i. A partial reset needs batch_size == N
// and an earlier full reset (VECENV_ERR_ARG otherwise).
int vecenv_reset_mask(VecEnv *v, const bool *mask, const int64_t *seeds, const VecOut *out);
// One step of the envs of the last returned rows. actions: (B,) in [0, ACTION_COUNT).
// ENV_ERR_ACTION (nothing stepped) when one is out of range, ENV_ERR_DONE when DISABLED and
// an env's episode has ended; the row goes to *bad_index when that is not NULL.
int vecenv_step(VecEnv *v, const int32_t *actions, const VecOut *out, int *bad_index);
// The seed of env i's episode j after vecenv_reset(v, seed): rng_key(seed, i, j, "venv") (a
// VecConfig.stream puts its word in place of "venv").
uint64_t vecenv_episode_seed(uint64_t seed, int env_index, int64_t episode);
// Env i itself (read-only), for rendering and state; NULL out of range.
const Env *vecenv_env(const VecEnv *v, int i);
// Env i's state (env_clone: ENV_STATE_BYTES into buf) and back (env_restore's codes, or
// VECENV_ERR_ARG for an index out of range or an Atari vector env, whose frame stacks are not
// in the state). After a restore env i's episode statistics go on from the restored episode:
// its length and frames from the state, its return from the score (a point is a reward).
int vecenv_clone(const VecEnv *v, int i, bool include_rng, uint8_t *buf);
int vecenv_restore(VecEnv *v, int i, const uint8_t *buf);
// Env i's repeat_action_probability from its next step (env_set_repeat_prob: a schedule of it
// during training; a state cloned afterwards holds it, and restores only into an env set alike).
// VECENV_ERR_ARG for an index out of range, prob outside [0, 1] or an Atari vector env.
int vecenv_set_repeat_prob(VecEnv *v, int i, double prob);

// Env i's episode index (its seed's j) and the running episode's return and length in agent
// steps: with vecenv_clone, all a caller must keep to continue env i exactly in a vector reset
// with the same seed (whose stream the next episodes' seeds come from). Set them after
// vecenv_restore (which takes the return from the score); the episode index must be in
// 0..ENV_COUNT_MAX, the length in 0..the step cap (ENV_COUNT_MAX without one), the return in
// -21..21 (a score difference). VECENV_ERR_ARG for an index out of range or a bad value.
typedef struct {
    int64_t episode;
    double ep_return;
    int64_t ep_length;
} VecEnvCounters;
int vecenv_env_counters(const VecEnv *v, int i, VecEnvCounters *c);
int vecenv_set_counters(VecEnv *v, int i, const VecEnvCounters *c);

// ----------------------------------------------------------------------------
// caller-stepped (VecConfig.caller_stepped); each call touches env i alone, so threads may
// call them at once for distinct i. VECENV_ERR_ARG for an index out of range or a vector that
// is not caller-stepped.

// What one step of one env did. When it ended an episode (terminated or truncated) the env
// has already started the next one (its observation is the new episode's first), and the
// ended episode's return, length (agent steps) and emulated frames are here (0 otherwise).
typedef struct {
    double reward;
    bool terminated, truncated;
    int frames; // emulated by this step
    double episode_return;
    int64_t episode_length, episode_frames;
} VecEnvStep;

// Env i starts episode 0 of (seed, i), as vecenv_reset does for every env.
int vecenv_reset_env(VecEnv *v, int i, uint64_t seed);
// One step of env i with the given action (ENV_ERR_ACTION, nothing stepped, when it is out of
// range), with autoreset in the same step.
int vecenv_step_env(VecEnv *v, int i, int action, VecEnvStep *out);

#ifdef __cplusplus
}
#endif

#endif
