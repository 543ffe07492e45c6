// env.h: ALE/Gym semantics over the pure game: the six minimal actions, the paddle
// controller, frameskip (fixed or random), sticky actions, episode caps and the presets
// Pong-v0, Pong-v4, PongDeterministic-v0/-v4, PongNoFrameskip-v0/-v4 and ALE/Pong-v5.
//
// All randomness (sticky actions, random frameskip) comes from a stream seeded at reset,
// so an episode is a function of (preset, seed, actions).
#ifndef PONGRL_ENV_H
#define PONGRL_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../pong/pong.h"
#include "../util/rng.h"

#ifdef __cplusplus // a C++ program links the C names
extern "C" {
#endif

// Gym action indices of the minimal action set (ALE PongSettings::isMinimal order)
enum {
    ACTION_NOOP = 0,
    ACTION_FIRE = 1,
    ACTION_RIGHT = 2,
    ACTION_LEFT = 3,
    ACTION_RIGHTFIRE = 4,
    ACTION_LEFTFIRE = 5,
    ACTION_COUNT = 6
};
// RIGHT moves the agent's paddle up the screen, LEFT moves it down.

// env_strerror(code) says each in one line.
//
// Every function of this header, vecenv.h, atari_prep.h and pong.h checks its pointers: a NULL
// where an env, a state or a buffer belongs is refused (ENV_ERR_ARG, false, NULL or 0, or
// nothing done), never followed. Using an object after it was freed, or freeing it twice, is
// undefined, as it is for free() itself.
enum {
    ENV_OK = 0,
    ENV_ERR_PRESET = -1,
    ENV_ERR_ACTION = -2,
    ENV_ERR_DONE = -3,
    ENV_ERR_ARG = -4,         // a NULL pointer, bad preset numbers, count or observation type
    ENV_ERR_STATE = -5,       // not a pongrl env state, another version, or corrupt
    ENV_ERR_STATE_OTHER = -6, // a state of another preset or flavour
    ENV_ERR_FLAVOUR = -7
}; // a mode outside [0, 2) or a difficulty outside [0, 4)

typedef struct {
    const char *id;     // "ALE/Pong-v5", ...
    int frameskip_min;  // frameskip drawn uniformly from [min, max] each step
    int frameskip_max;  // (equal for a fixed frameskip)
    double repeat_prob; // sticky actions: probability of keeping the previous action, per frame
    int64_t max_steps;  // truncation after this many agent steps (0: none)
    int64_t max_frames; // truncation after this many emulated frames (0: none)
} EnvPreset;

// The presets, NULL-terminated by id; env_preset_find returns NULL for an unknown id.
extern const EnvPreset ENV_PRESETS[];
const EnvPreset *env_preset_find(const char *id);

typedef struct {
    Pong game;
    EnvPreset preset;
    int mode, difficulty;  // ALE's game mode (0, 1) and difficulty switches (0..3)
    Rng rng;               // sticky actions and random frameskip
    int resistance;        // ALE paddle resistance of the agent's paddle
    int last_action;       // for sticky actions (starts as NOOP)
    int64_t steps, frames; // since reset (frames: ALE's getEpisodeFrameNumber)
    int64_t frames_before; // frames of the env's earlier episodes (env_frame_number)
    bool terminated, truncated;
} Env;

typedef struct {
    int reward;      // change of (agent - CPU) score over the skipped frames
    bool terminated; // a side reached 21
    bool truncated;  // episode cap reached
    int frames;      // frames emulated by this step
} EnvStep;

// Initialise from a preset id; returns ENV_ERR_PRESET for an unknown id (env untouched).
// Mode 0, difficulty 0: what every preset plays unless told otherwise.
int env_init(Env *env, const char *id, uint64_t seed);
// The same with ALE's mode (0, 1: the cartridge's games 1 and 2) and difficulty (0..3: bit 0
// the CPU's bat, bit 1 the agent's, short when set); ENV_ERR_FLAVOUR for others (env
// untouched). As in ALE, a reset in mode 1 presses SELECT once, which counts one frame:
// env->frames starts at 1 there (getEpisodeFrameNumber), and the v5 frame cap counts it.
int env_init_flavour(Env *env, const char *id, int mode, int difficulty, uint64_t seed);
// Start a new episode; the seed reseeds the env's random stream.
void env_reset(Env *env, uint64_t seed);
// One agent step; ENV_ERR_ACTION for an action outside [0, 6), ENV_ERR_DONE after the end
// (both leave the env untouched and *out zeroed). out may be NULL.
int env_step(Env *env, int action, EnvStep *out);

// ALE's getFrameNumber(): the frames emulated since the env was made, resets' SELECT
// presses included (kept as a sum so that a frame costs one counter, not two).
static inline int64_t env_frame_number(const Env *env) { return env->frames_before + env->frames; }

// One line saying what an ENV_ERR_* code means ("unknown error" for others).
const char *env_strerror(int code);

// ----------------------------------------------------------------------------
// State cloning, as ALE's cloneState(include_rng) / restoreState.
//
// A state is ENV_STATE_BYTES bytes the caller owns: a fixed, little-endian, versioned layout
// with a crc32, the same on every platform, so it can be stored or pickled and restored in
// another process. It holds the whole env: the game (RAM, TIA registers, the last picture),
// the paddle resistance, the last applied action (for sticky actions), the agent steps and
// episode frames (both count towards the caps), ALE's frame number, the end flags, and
// which preset (with its numbers) and flavour it belongs to.
//
// include_rng: also the random stream of sticky actions and random frameskip (ALE's
// cloneState(include_rng=True), formerly cloneSystemState). A state without it, restored,
// leaves the env's current stream where it is, as ALE's restoreState does.
//
// Like ALE's restoreState, a restore brings back the episode frame number and the frame
// number as they were at the clone. One difference, deliberate: ALE keeps the previous
// action for sticky actions outside its state (StellaEnvironment::m_player_a_action), so a
// restore there leaves it as the last act() set it; here it is restored with the rest, so
// that a restored state (with its stream) replays exactly what followed the clone.
#define ENV_STATE_BYTES   297
#define ENV_STATE_VERSION 2                                     // 2: the flavours (switches, bat masks)
size_t env_state_size(void);                                    // ENV_STATE_BYTES, for bindings
void env_clone(const Env *env, bool include_rng, uint8_t *buf); // buf: ENV_STATE_BYTES
// ENV_OK, or (env untouched): ENV_ERR_STATE for bytes that are not a state of this version
// (bad magic, size, version, crc or a value out of range), ENV_ERR_STATE_OTHER for a state of
// another preset (id or numbers) or another mode or difficulty.
//
// A state is untrusted input, checked as a checkpoint is: besides its crc, every counter and
// position in it must be one a real game can reach, so that a crafted state with its crc fixed
// up is refused too. The agent steps and episode frames lie in 0..the state's own cap
// (max_steps, max_frames; ENV_COUNT_MAX without one), the steps at most the frames (a step
// emulates a frame at least), the frame number in frames..ENV_COUNT_MAX, the paddle resistance
// in ALE's range, and the game's own fields (scores 0..21, the ball, the agent's bat) as
// pong_state_check says.
int env_restore(Env *env, const uint8_t *buf);
// env_restore's checks without the restore: ENV_OK, or its code with one line in err (when not
// NULL) saying which field is wrong, its value and the range it must lie in, or what differs
// from this env's preset or flavour.
int env_state_check(const Env *env, const uint8_t *buf, char *err, size_t errlen);
// The largest step or frame count a state may hold where no cap applies: 2^53 - 1, far past
// any real run and exact as a double (Python's numbers, the learners' records).
#define ENV_COUNT_MAX ((int64_t)9007199254740991)
// Where a state holds its counters (int64, little-endian), for bindings that keep their own
// beside it (python/pongrl/ale.py's ALEState checks its header against them).
#define ENV_STATE_STEPS_AT        72
#define ENV_STATE_FRAMES_AT       80
#define ENV_STATE_FRAME_NUMBER_AT 88
// Whether a state holds the random stream (false for bytes that are not a state).
bool env_state_has_rng(const uint8_t *buf);

// The observation of the last emulated frame.
void env_render_rgb(const Env *env, uint8_t *rgb);        // (210, 160, 3)
void env_render_grayscale(const Env *env, uint8_t *gray); // (210, 160): ALE getScreenGrayscale
void env_render_obs80(const Env *env, uint8_t *obs);      // (80, 80) in {0, 1}
void env_ram(const Env *env, uint8_t *ram);               // (128,): ALE getRAM()

// ----------------------------------------------------------------------------
// Opaque-handle API for bindings (ctypes, other languages), in the spirit of ALE's old C
// wrapper: the caller never needs the layout of Env.

// The i-th preset id (0-based), NULL past the end.
const char *env_preset_id(int i);
// A new env on the heap, reset with the seed; NULL for an unknown id (or out of memory).
Env *env_new(const char *id, uint64_t seed);
// The same with a mode and difficulty; NULL also for a bad mode or difficulty.
Env *env_new_flavour(const char *id, int mode, int difficulty, uint64_t seed);
// ALE's getAvailableModes()/getAvailableDifficulties() for Pong: the counts (2, 4).
int env_num_modes(void);
int env_num_difficulties(void);
void env_free(Env *env);
size_t env_sizeof(void);

// A flat, fixed-layout copy of what tools and bindings read: every field int64_t so that a
// ctypes mirror is trivial. Positions are screen pixels (see pong.h).
typedef struct {
    int64_t ball_x, ball_y, ball_vx, ball_vy, ball_visible;
    int64_t cpu_y, agent_y;
    int64_t score_cpu, score_agent;
    int64_t game_frame;    // the game's own frame counter
    int64_t resistance;    // agent paddle resistance (ALE units)
    int64_t last_action;   // action applied on the last emulated frame (after stickiness)
    int64_t steps, frames; // agent steps and emulated frames since reset
    int64_t terminated, truncated;
} EnvState;
void env_state(const Env *env, EnvState *s);

// ALE's low level, for bindings that offer ALEInterface (python/pongrl/ale.py):
// act(): one minimal-set action for `frames` frames (ALE's frame_skip setting) instead of the
// preset's frameskip, sticky actions and caps as env_step; ENV_ERR_ACTION also for frames < 1.
int env_act(Env *env, int action, int frames, EnvStep *out);
// setRAM(index, value): false (nothing written) outside [0, 128), where ALE throws.
bool env_set_ram(Env *env, int index, uint8_t value);
// getScreen(): NTSC palette indices, (210, 160).
void env_render_indices(const Env *env, uint8_t *screen);
// repeat_action_probability between steps (a schedule of it during training): the next steps'
// sticky draws use prob, from the env's own stream as ever; false (env untouched) outside [0, 1].
// A state cloned afterwards holds prob among the preset's numbers.
bool env_set_repeat_prob(Env *env, double prob);
// setMode/setDifficulty: the flavour the next env_reset plays (env_init_flavour's meanings);
// ENV_ERR_FLAVOUR (env untouched) outside its ranges.
int env_set_flavour(Env *env, int mode, int difficulty);

#ifdef __cplusplus
}
#endif

#endif
