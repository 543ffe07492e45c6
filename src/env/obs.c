// obs.c: what vecenv.h says of a single env outside a vector: the observation types (their
// sizes, their rendering) and the check of a preset whose numbers a caller changed.
#include "vecenv.h"

#include <stdio.h>

size_t env_obs_size(int obs_type) {
    switch (obs_type) {
        case OBS_RGB: return (size_t)PONG_SCREEN_H * PONG_SCREEN_W * 3;
        case OBS_GRAYSCALE: return (size_t)PONG_SCREEN_H * PONG_SCREEN_W;
        case OBS_RAM: return PONG_RAM_SIZE;
        case OBS_OBS80: return (size_t)PONG_OBS80 * PONG_OBS80;
        default: return 0;
    }
}

void env_render_obs(const Env *env, int obs_type, uint8_t *out) {
    if (!env || !out) return;
    switch (obs_type) {
        case OBS_RGB: env_render_rgb(env, out); break;
        case OBS_GRAYSCALE: env_render_grayscale(env, out); break;
        case OBS_RAM: env_ram(env, out); break;
        case OBS_OBS80: env_render_obs80(env, out); break;
        default: break;
    }
}

const char *env_preset_problem(const EnvPreset *p) {
    static _Thread_local char why[160];
    if (p == NULL) return "no preset (NULL)";
    if (p->id == NULL || env_preset_find(p->id) == NULL)
        return "unknown preset id (the numbers may change, the game may not: see env_preset_id)";
    if (p->frameskip_min < 1)
        snprintf(why, sizeof(why), "frameskip_min must be >= 1, got %d", p->frameskip_min);
    else if (p->frameskip_max < p->frameskip_min)
        snprintf(why, sizeof(why), "frameskip_max must be >= frameskip_min (%d), got %d", p->frameskip_min,
            p->frameskip_max);
    else if (!(p->repeat_prob >= 0.0 && p->repeat_prob <= 1.0))
        snprintf(why, sizeof(why), "repeat_prob must be in [0, 1], got %g", p->repeat_prob);
    else if (p->max_steps < 0)
        snprintf(why, sizeof(why), "max_steps must be >= 0 (0: none), got %lld", (long long)p->max_steps);
    else if (p->max_frames < 0)
        snprintf(why, sizeof(why), "max_frames must be >= 0 (0: none), got %lld", (long long)p->max_frames);
    else
        return NULL;
    return why;
}

int env_preset_check(const EnvPreset *p) { return env_preset_problem(p) ? VECENV_ERR_ARG : ENV_OK; }
