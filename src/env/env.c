// env.c: ALE/Gym semantics over the pure game (see env.h). The game knows nothing of actions,
// frameskip or randomness; this file turns an agent's action into per-frame paddle resistance
// and button presses the way ALE's StellaEnvironment::act and ale_py's AtariEnv.step do.
//
// Evidence: docs/pong-spec.md §1.2 (reset), §1.3 (paddle controller), §5 (presets).
#include "env.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/bytes.h"
#include "../util/crc.h"

// ----------------------------------------------------------------------------
// presets

// docs/pong-spec.md §5. Every preset caps emulated frames at 108000 with no step cap, as
// ale-py registers them (registration.py: max_num_frames_per_episode=108_000 for v0, v4 and
// v5; the Deterministic ids, gym's, as ale-py 0.11.0 registered them last). gym 0.21's step
// caps (10000 for v0, ...) are python/pongrl/env.py's caps="gym-0.21". Random frameskip is
// ale_py's np_random.integers(2, 5), i.e. uniform on {2, 3, 4}, drawn every step.
// clang-format off
const EnvPreset ENV_PRESETS[] = {
    {"Pong-v0",              2, 4, 0.25,      0, 108000},
    {"Pong-v4",              2, 4, 0.00,      0, 108000},
    {"PongDeterministic-v0", 4, 4, 0.25,      0, 108000},
    {"PongDeterministic-v4", 4, 4, 0.00,      0, 108000},
    {"PongNoFrameskip-v0",   1, 1, 0.25,      0, 108000},
    {"PongNoFrameskip-v4",   1, 1, 0.00,      0, 108000},
    {"ALE/Pong-v5",          4, 4, 0.25,      0, 108000},
    {NULL, 0, 0, 0.0, 0, 0},
};
// clang-format on

const EnvPreset *env_preset_find(const char *id) {
    if (!id) return NULL;
    if (id == NULL) return NULL;
    for (const EnvPreset *p = ENV_PRESETS; p->id != NULL; p++)
        if (strcmp(p->id, id) == 0) return p;
    return NULL;
}

const char *env_preset_id(int i) {
    if (i < 0) return NULL;
    for (int k = 0; ENV_PRESETS[k].id != NULL; k++)
        if (k == i) return ENV_PRESETS[k].id;
    return NULL;
}

// ----------------------------------------------------------------------------
// episode

int env_init(Env *env, const char *id, uint64_t seed) { return env_init_flavour(env, id, 0, 0, seed); }

int env_init_flavour(Env *env, const char *id, int mode, int difficulty, uint64_t seed) {
    if (!env || !id) return env ? ENV_ERR_PRESET : ENV_ERR_ARG;
    const EnvPreset *p = env_preset_find(id);
    if (p == NULL) return ENV_ERR_PRESET;
    if (mode < 0 || mode >= PONG_MODES || difficulty < 0 || difficulty >= PONG_DIFFICULTIES) return ENV_ERR_FLAVOUR;
    memset(env, 0, sizeof *env);
    env->preset = *p;
    env->mode = mode;
    env->difficulty = difficulty;
    env_reset(env, seed);
    return ENV_OK;
}

int env_num_modes(void) { return PONG_MODES; }
int env_num_difficulties(void) { return PONG_DIFFICULTIES; }

void env_reset(Env *env, uint64_t seed) {
    if (!env) return;
    // ALE reset(): paddles back to the default resistance, the previous action (for sticky
    // actions) back to NOOP, episode frame counter to 0, then one frame counted for each
    // SELECT press that reaches the mode (StellaEnvironment::pressSelect); pong_reset_flavour
    // covers the emulated part (60 NOOP frames, the soft resets, the presses).
    pong_reset_flavour(&env->game, env->mode, env->difficulty);
    int presses = pong_select_presses(env->mode);
    rng_seed(&env->rng, seed);
    env->resistance = PADDLE_RESISTANCE_DEFAULT;
    env->last_action = ACTION_NOOP;
    env->frames_before += env->frames; // 0 when made (env_init cleared both)
    env->steps = 0;
    env->frames = presses;
    env->terminated = false;
    env->truncated = false;
}

static bool action_is_right(int a) { return a == ACTION_RIGHT || a == ACTION_RIGHTFIRE; }
static bool action_is_left(int a) { return a == ACTION_LEFT || a == ACTION_LEFTFIRE; }
static bool action_is_fire(int a) { return a == ACTION_FIRE || a == ACTION_RIGHTFIRE || a == ACTION_LEFTFIRE; }

// ALE applyActionPaddles: RIGHT lowers the resistance (paddle up), LEFT raises it, every frame.
static int resistance_apply(int r, int action) {
    if (action_is_right(action)) r -= PADDLE_RESISTANCE_STEP;
    if (action_is_left(action)) r += PADDLE_RESISTANCE_STEP;
    if (r < PADDLE_RESISTANCE_MIN) r = PADDLE_RESISTANCE_MIN;
    if (r > PADDLE_RESISTANCE_MAX) r = PADDLE_RESISTANCE_MAX;
    return r;
}

// Frames this step emulates at most: fixed, or ale_py's uniform draw from [min, max].
static int frameskip_draw(Env *env) {
    int lo = env->preset.frameskip_min, hi = env->preset.frameskip_max;
    if (hi <= lo) return lo;
    return lo + (int)rng_below(&env->rng, (uint64_t)(hi - lo + 1));
}

int env_step(Env *env, int action, EnvStep *out) {
    if (!env) return ENV_ERR_ARG;
    EnvStep scratch;
    if (out == NULL) out = &scratch;
    memset(out, 0, sizeof *out);
    if (action < 0 || action >= ACTION_COUNT) return ENV_ERR_ACTION;
    if (env->terminated || env->truncated) return ENV_ERR_DONE;

    int skip = frameskip_draw(env);
    int reward = 0, frames = 0;
    // rng_uniform(r) < p, in integers: the uniform is k / 2^53 with k = rng_next(r) >> 11,
    // exactly, so it is below p iff k < ceil(p 2^53) (the same draws, the same outcomes)
    uint64_t keep_below = (uint64_t)ceil(env->preset.repeat_prob * 0x1p53);
    for (int i = 0; i < skip; i++) {
        // Sticky actions, ALE StellaEnvironment::act: per frame, with probability
        // repeat_action_probability the previous frame's action is kept instead.
        int a = action;
        if (keep_below > 0 && (rng_next(&env->rng) >> 11) < keep_below) a = env->last_action;
        env->last_action = a;
        env->resistance = resistance_apply(env->resistance, a);
        reward += pong_frame(&env->game, env->resistance, action_is_fire(a));
        frames++;
        env->frames++;
        // ALE's oneStepAct emulates nothing once the game is over or the frame cap is hit,
        // so the rest of the frameskip is dropped.
        if (pong_game_over(&env->game)) {
            env->terminated = true;
            break;
        }
        if (env->preset.max_frames > 0 && env->frames >= env->preset.max_frames) {
            env->truncated = true;
            break;
        }
    }
    env->steps++;
    // gym's TimeLimit: truncated once the step count reaches the cap, even on the terminal
    // step (Gym reports both flags then; so do we).
    if (env->preset.max_steps > 0 && env->steps >= env->preset.max_steps) env->truncated = true;

    out->reward = reward;
    out->terminated = env->terminated;
    out->truncated = env->truncated;
    out->frames = frames;
    return ENV_OK;
}

const char *env_strerror(int code) {
    switch (code) {
        case ENV_OK: return "ok";
        case ENV_ERR_PRESET: return "unknown preset id";
        case ENV_ERR_ACTION: return "action out of range (0..5)";
        case ENV_ERR_DONE: return "the episode has ended: reset first";
        case ENV_ERR_ARG: return "bad argument (a NULL pointer, preset numbers, count or observation type)";
        case ENV_ERR_STATE: return "not a pongrl env state of this version, or a corrupt one";
        case ENV_ERR_STATE_OTHER: return "an env state of another preset, mode or difficulty";
        case ENV_ERR_FLAVOUR: return "no such flavour: mode must be 0 or 1, difficulty 0 to 3";
        default: return "unknown error";
    }
}

// ----------------------------------------------------------------------------
// state cloning (env.h). Layout, little-endian:
//   header   magic "PONGRLST", u32 version, u32 size, u32 flags (bit 0: rng)
//   identity u32 preset index, u32 frameskip min, max, u64 repeat probability (IEEE bits),
//            u64 max steps, u64 max frames, u32 mode, u32 difficulty
//   ALE      u32 resistance, u32 last action, u64 steps, frames, frame number, u8 terminated,
//            truncated
//   rng      4 x u64 (zero without the stream)
//   game     PONG_STATE_BYTES (pong_state_save)
//   crc32    of every byte before it

static const char STATE_MAGIC[8] = { 'P', 'O', 'N', 'G', 'R', 'L', 'S', 'T' };
#define STATE_HEADER_BYTES 20
#define STATE_FLAG_RNG     1u

size_t env_state_size(void) { return ENV_STATE_BYTES; }

static uint32_t preset_index(const EnvPreset *p) {
    for (uint32_t k = 0; ENV_PRESETS[k].id != NULL; k++)
        if (p->id != NULL && strcmp(ENV_PRESETS[k].id, p->id) == 0) return k;
    return UINT32_MAX;
}

// What a state must share with the env it is restored into, as the bytes the state holds.
static void identity_put(ByteWriter *w, const Env *env) {
    uint64_t prob;
    memcpy(&prob, &env->preset.repeat_prob, sizeof prob);
    bytes_put_u32(w, preset_index(&env->preset));
    bytes_put_u32(w, (uint32_t)env->preset.frameskip_min);
    bytes_put_u32(w, (uint32_t)env->preset.frameskip_max);
    bytes_put_u64(w, prob);
    bytes_put_u64(w, (uint64_t)env->preset.max_steps);
    bytes_put_u64(w, (uint64_t)env->preset.max_frames);
    bytes_put_u32(w, (uint32_t)env->mode);
    bytes_put_u32(w, (uint32_t)env->difficulty);
}
#define STATE_IDENTITY_BYTES 44
#define STATE_ALE_BYTES      34
#define STATE_RNG_BYTES      32
_Static_assert(STATE_HEADER_BYTES + STATE_IDENTITY_BYTES + STATE_ALE_BYTES + STATE_RNG_BYTES + PONG_STATE_BYTES + 4 ==
        ENV_STATE_BYTES,
    "env.h's ENV_STATE_BYTES is the layout's size");

void env_clone(const Env *env, bool include_rng, uint8_t *buf) {
    if (!env || !buf) return;
    ByteWriter w = { buf, 0 };
    bytes_put(&w, STATE_MAGIC, sizeof STATE_MAGIC);
    bytes_put_u32(&w, ENV_STATE_VERSION);
    bytes_put_u32(&w, ENV_STATE_BYTES);
    bytes_put_u32(&w, include_rng ? STATE_FLAG_RNG : 0);
    identity_put(&w, env);
    bytes_put_u32(&w, (uint32_t)env->resistance);
    bytes_put_u32(&w, (uint32_t)env->last_action);
    bytes_put_u64(&w, (uint64_t)env->steps);
    bytes_put_u64(&w, (uint64_t)env->frames);
    bytes_put_u64(&w, (uint64_t)env_frame_number(env));
    bytes_put_u8(&w, env->terminated);
    bytes_put_u8(&w, env->truncated);
    for (int i = 0; i < 4; i++) bytes_put_u64(&w, include_rng ? env->rng.s[i] : 0);
    pong_state_save(&env->game, buf + w.pos);
    w.pos += PONG_STATE_BYTES;
    bytes_put_u32(&w, crc32_of(buf, ENV_STATE_BYTES - 4));
}

bool env_state_has_rng(const uint8_t *buf) {
    if (!buf) return false;
    return buf != NULL && memcmp(buf, STATE_MAGIC, sizeof STATE_MAGIC) == 0 && (buf[16] & STATE_FLAG_RNG);
}

// A state's fields, read before any is trusted.
typedef struct {
    uint32_t flags;
    uint32_t preset, frameskip_min, frameskip_max, mode, difficulty;
    uint64_t repeat_bits, max_steps, max_frames;
    int64_t resistance, last_action; // u32 in the bytes
    int64_t steps, frames, frame_number;
    uint8_t terminated, truncated;
    Rng rng;
    const uint8_t *game; // PONG_STATE_BYTES
} StateFields;
_Static_assert(STATE_HEADER_BYTES + STATE_IDENTITY_BYTES + 8 == ENV_STATE_STEPS_AT &&
        ENV_STATE_FRAMES_AT == ENV_STATE_STEPS_AT + 8 && ENV_STATE_FRAME_NUMBER_AT == ENV_STATE_FRAMES_AT + 8,
    "env.h's offsets of the counters are the layout's");

static int state_refuse(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int state_refuse(char *err, size_t errlen, int code, const char *fmt, ...) {
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

// What differs between a state's identity and this env's, in one line.
static int identity_refuse(const Env *env, const StateFields *f, char *err, size_t errlen) {
    const EnvPreset *p = &env->preset;
    double prob;
    memcpy(&prob, &f->repeat_bits, sizeof prob);
    const int code = ENV_ERR_STATE_OTHER;
    if (f->preset != preset_index(p))
        return state_refuse(
            err, errlen, code, "a state of another preset: this env plays %s", p->id ? p->id : "(none)");
    if (f->frameskip_min != (uint32_t)p->frameskip_min || f->frameskip_max != (uint32_t)p->frameskip_max)
        return state_refuse(err, errlen, code, "a state of frameskip %u..%u, this env's is %d..%d", f->frameskip_min,
            f->frameskip_max, p->frameskip_min, p->frameskip_max);
    if (memcmp(&prob, &p->repeat_prob, sizeof prob) != 0)
        return state_refuse(
            err, errlen, code, "a state of repeat_action_probability %.17g, this env's is %.17g", prob, p->repeat_prob);
    if (f->max_steps != (uint64_t)p->max_steps || f->max_frames != (uint64_t)p->max_frames)
        return state_refuse(err, errlen, code, "a state of caps %llu steps, %llu frames; this env's are %lld, %lld",
            (unsigned long long)f->max_steps, (unsigned long long)f->max_frames, (long long)p->max_steps,
            (long long)p->max_frames);
    return state_refuse(err, errlen, code, "a state of mode %u, difficulty %u; this env plays mode %d, difficulty %d",
        f->mode, f->difficulty, env->mode, env->difficulty);
}

static bool count_in(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// Reads a state into *f, checking every field before anything trusts it (env_state_check).
static int state_read(const Env *env, const uint8_t *buf, StateFields *out, char *err, size_t errlen) {
    const int bad = ENV_ERR_STATE;
    if (buf == NULL) return state_refuse(err, errlen, bad, "no state (NULL)");
    ByteReader r = { buf, ENV_STATE_BYTES, 0, false };
    StateFields f;
    char magic[8];
    bytes_get(&r, magic, sizeof magic);
    uint32_t version = bytes_get_u32(&r), size = bytes_get_u32(&r);
    f.flags = bytes_get_u32(&r);
    if (memcmp(magic, STATE_MAGIC, sizeof magic) != 0)
        return state_refuse(err, errlen, bad, "not a pongrl env state (no PONGRLST magic)");
    // the size before the crc: a state of another version may be shorter than this one's crc offset
    if (version != ENV_STATE_VERSION || size != ENV_STATE_BYTES)
        return state_refuse(err, errlen, bad,
            "an env state of version %u and %u bytes; this library reads version %d, %d bytes", version, size,
            ENV_STATE_VERSION, ENV_STATE_BYTES);
    if ((f.flags & ~STATE_FLAG_RNG) != 0)
        return state_refuse(
            err, errlen, bad, "state flags are 0x%x, only bit 0 (the random stream) is defined", f.flags);
    ByteReader tail = { buf, ENV_STATE_BYTES, ENV_STATE_BYTES - 4, false };
    uint32_t crc = bytes_get_u32(&tail), want = crc32_of(buf, ENV_STATE_BYTES - 4);
    if (crc != want)
        return state_refuse(err, errlen, bad, "state crc32 is %08x, its bytes' is %08x: a corrupt state", crc, want);
    uint8_t mine[STATE_IDENTITY_BYTES];
    ByteWriter w = { mine, 0 };
    identity_put(&w, env);
    const bool same = memcmp(buf + r.pos, mine, sizeof mine) == 0;
    f.preset = bytes_get_u32(&r);
    f.frameskip_min = bytes_get_u32(&r);
    f.frameskip_max = bytes_get_u32(&r);
    f.repeat_bits = bytes_get_u64(&r);
    f.max_steps = bytes_get_u64(&r);
    f.max_frames = bytes_get_u64(&r);
    f.mode = bytes_get_u32(&r);
    f.difficulty = bytes_get_u32(&r);
    if (!same) return identity_refuse(env, &f, err, errlen);
    f.resistance = bytes_get_u32(&r);
    f.last_action = bytes_get_u32(&r);
    f.steps = (int64_t)bytes_get_u64(&r);
    f.frames = (int64_t)bytes_get_u64(&r);
    f.frame_number = (int64_t)bytes_get_u64(&r);
    f.terminated = bytes_get_u8(&r);
    f.truncated = bytes_get_u8(&r);
    for (int i = 0; i < 4; i++) f.rng.s[i] = bytes_get_u64(&r);
    f.game = buf + r.pos;

    // The counters against the caps of the state's own settings (equal to this env's here):
    // a real episode stops at them, and where there is none a count past ENV_COUNT_MAX is
    // no run's (and would overflow a step later).
    const int64_t max_frames = env->preset.max_frames > 0 ? env->preset.max_frames : ENV_COUNT_MAX;
    const int64_t max_steps = env->preset.max_steps > 0 ? env->preset.max_steps : ENV_COUNT_MAX;
    const char *frames_cap = env->preset.max_frames > 0 ? "the preset's frame cap" : "no frame cap: 2^53 - 1";
    const char *steps_cap = env->preset.max_steps > 0 ? "the preset's step cap" : "no step cap: 2^53 - 1";
    if (!count_in(f.resistance, PADDLE_RESISTANCE_MIN, PADDLE_RESISTANCE_MAX))
        return state_refuse(err, errlen, bad, "state's paddle resistance is %lld, must be %d..%d (ALE's range)",
            (long long)f.resistance, PADDLE_RESISTANCE_MIN, PADDLE_RESISTANCE_MAX);
    if (!count_in(f.last_action, 0, ACTION_COUNT - 1))
        return state_refuse(
            err, errlen, bad, "state's last action is %lld, must be 0..%d", (long long)f.last_action, ACTION_COUNT - 1);
    if (!count_in(f.frames, 0, max_frames))
        return state_refuse(err, errlen, bad, "state's episode frames is %lld, must be 0..%lld (%s)",
            (long long)f.frames, (long long)max_frames, frames_cap);
    if (!count_in(f.steps, 0, max_steps))
        return state_refuse(err, errlen, bad, "state's steps is %lld, must be 0..%lld (%s)", (long long)f.steps,
            (long long)max_steps, steps_cap);
    if (f.steps > f.frames)
        return state_refuse(err, errlen, bad,
            "state's steps is %lld, must be 0..%lld (its episode frames: a step emulates one frame at least)",
            (long long)f.steps, (long long)f.frames);
    if (!count_in(f.frame_number, f.frames, ENV_COUNT_MAX))
        return state_refuse(err, errlen, bad,
            "state's frame number is %lld, must be %lld..%lld (its episode frames..2^53 - 1)",
            (long long)f.frame_number, (long long)f.frames, (long long)ENV_COUNT_MAX);
    if (f.terminated > 1 || f.truncated > 1)
        return state_refuse(
            err, errlen, bad, "state's end flags are %u and %u, must be 0 or 1", f.terminated, f.truncated);
    if ((f.flags & STATE_FLAG_RNG) && !(f.rng.s[0] | f.rng.s[1] | f.rng.s[2] | f.rng.s[3]))
        return state_refuse(err, errlen, bad, "state's random stream is all zero, which no seeded stream is");
    char why[160];
    if (pong_state_check(f.game, why, sizeof why) != 0) return state_refuse(err, errlen, bad, "state's %s", why);
    *out = f;
    return ENV_OK;
}

int env_state_check(const Env *env, const uint8_t *buf, char *err, size_t errlen) {
    if (!env || !buf) {
        if (err && errlen) snprintf(err, errlen, "no %s (NULL)", env ? "state" : "env");
        return ENV_ERR_ARG;
    }
    StateFields f;
    return state_read(env, buf, &f, err, errlen);
}

int env_restore(Env *env, const uint8_t *buf) {
    if (!env || !buf) return ENV_ERR_ARG;
    StateFields f;
    int rc = state_read(env, buf, &f, NULL, 0);
    if (rc != ENV_OK) return rc; // nothing written yet
    pong_state_load(&env->game, f.game);
    env->resistance = (int)f.resistance;
    env->last_action = (int)f.last_action;
    env->steps = f.steps;
    env->frames = f.frames;
    env->frames_before = f.frame_number - f.frames;
    env->terminated = f.terminated;
    env->truncated = f.truncated;
    if (f.flags & STATE_FLAG_RNG) env->rng = f.rng;
    return ENV_OK;
}

// ----------------------------------------------------------------------------
// observation

void env_render_rgb(const Env *env, uint8_t *rgb) {
    if (env) pong_render_rgb(&env->game, rgb);
}
void env_render_grayscale(const Env *env, uint8_t *gray) {
    if (env) pong_render_gray(&env->game, gray);
}
void env_render_obs80(const Env *env, uint8_t *obs) {
    if (env) pong_render_obs80(&env->game, obs);
}
void env_ram(const Env *env, uint8_t *ram) {
    if (env) pong_ram(&env->game, ram);
}

// ----------------------------------------------------------------------------
// opaque-handle API for bindings (in the spirit of ALE's old ale_c_wrapper.h)

Env *env_new(const char *id, uint64_t seed) { return env_new_flavour(id, 0, 0, seed); }

Env *env_new_flavour(const char *id, int mode, int difficulty, uint64_t seed) {
    if (!id) return NULL;
    Env probe;
    if (env_init_flavour(&probe, id, mode, difficulty, seed) != ENV_OK) return NULL;
    Env *env = malloc(sizeof *env);
    if (env == NULL) return NULL;
    memcpy(env, &probe, sizeof *env);
    return env;
}

void env_free(Env *env) { free(env); }

size_t env_sizeof(void) { return sizeof(Env); }

void env_state(const Env *env, EnvState *s) {
    if (!env || !s) return;
    PongObjects o;
    pong_objects(&env->game, &o);
    s->ball_x = o.ball_x;
    s->ball_y = o.ball_y;
    s->ball_vx = o.ball_vx;
    s->ball_vy = o.ball_vy;
    s->ball_visible = o.ball_visible;
    s->cpu_y = o.cpu_y;
    s->agent_y = o.agent_y;
    s->score_cpu = pong_score_cpu(&env->game);
    s->score_agent = pong_score_agent(&env->game);
    s->game_frame = o.frame;
    s->resistance = env->resistance;
    s->last_action = env->last_action;
    s->steps = env->steps;
    s->frames = env->frames;
    s->terminated = env->terminated;
    s->truncated = env->truncated;
}

// ----------------------------------------------------------------------------
// ALE's low level (ALEInterface::act, setRAM, getScreen) for the Python `ale` handle

int env_act(Env *env, int action, int frames, EnvStep *out) {
    if (!env) return ENV_ERR_ARG;
    // The preset's frameskip stands aside for this call only: ALE's act() emulates its own
    // frame_skip setting (1 under ale-py, which repeats act() itself), with the same sticky
    // actions and caps as a step.
    if (frames < 1) {
        if (out != NULL) memset(out, 0, sizeof *out);
        return ENV_ERR_ACTION;
    }
    int lo = env->preset.frameskip_min, hi = env->preset.frameskip_max;
    env->preset.frameskip_min = env->preset.frameskip_max = frames;
    int rc = env_step(env, action, out);
    env->preset.frameskip_min = lo;
    env->preset.frameskip_max = hi;
    return rc;
}

bool env_set_ram(Env *env, int index, uint8_t value) {
    if (!env) return false;
    // ALE's setRAM pokes the byte; the cartridge's program sees it from the next frame on
    // (the picture of the last frame stays as it was drawn). The game's caches are keyed on
    // the RAM bytes they were made from, so they follow.
    if (index < 0 || index >= PONG_RAM_SIZE) return false;
    env->game.ram[index] = value;
    return true;
}

void env_render_indices(const Env *env, uint8_t *screen) {
    if (env) pong_render_indices(&env->game, screen);
}

int env_set_flavour(Env *env, int mode, int difficulty) {
    if (!env) return ENV_ERR_ARG;
    // ALE's setMode/setDifficulty: stored, played from the next reset (ALE applies them in
    // reset_game); env_init_flavour's ranges.
    if (mode < 0 || mode >= PONG_MODES || difficulty < 0 || difficulty >= PONG_DIFFICULTIES) return ENV_ERR_FLAVOUR;
    env->mode = mode;
    env->difficulty = difficulty;
    return ENV_OK;
}

bool env_set_repeat_prob(Env *env, double prob) {
    if (!env) return false;
    // (a NaN fails both comparisons)
    if (!(prob >= 0.0 && prob <= 1.0)) return false;
    env->preset.repeat_prob = prob;
    return true;
}
