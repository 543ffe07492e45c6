// learner_envs.c: a learner's caller-stepped vector of envs and its envs' records (learner_envs.h).
#include "learner_envs.h"

#include <math.h>
#include <string.h>

#include "../util/bytes.h"

#define WORDS ((ENV_RECORD_BYTES + 3) / 4)

VecEnv *learner_envs_create(const char *env_id, int n, int mode, int difficulty, uint32_t stream, uint64_t seed) {
    const EnvPreset *preset = env_preset_find(env_id);
    if (preset == NULL) return NULL;
    const VecConfig c = { .num_envs = n,
        .obs_type = OBS_OBS80,
        .autoreset = VECENV_SAME_STEP,
        .thread_affinity_offset = -1,
        .mode = mode,
        .difficulty = difficulty,
        .stream = stream,
        .caller_stepped = true };
    VecEnv *v = vecenv_create(preset, &c, NULL);
    if (v == NULL) return NULL;
    for (int e = 0; e < n; e++)
        if (vecenv_reset_env(v, e, seed) != ENV_OK) {
            vecenv_free(v);
            return NULL;
        }
    return v;
}

void env_record_save(const VecEnv *v, int e, const uint8_t *prev, double *out) {
    uint8_t bytes[WORDS * 4];
    VecEnvCounters c;
    vecenv_env_counters(v, e, &c);
    out[0] = (double)(c.episode + 1);
    out[1] = c.ep_return;
    out[2] = (double)c.ep_length;
    memset(bytes, 0, sizeof(bytes));
    vecenv_clone(v, e, true, bytes);
    memcpy(bytes + ENV_STATE_BYTES, prev, POLICY_D);
    ByteReader r = { bytes, sizeof(bytes), 0, false };
    for (int k = 0; k < WORDS; k++) out[3 + k] = (double)bytes_get_u32(&r);
}

int env_record_load(VecEnv *v, int e, const double *in, uint8_t *prev) {
    uint8_t bytes[WORDS * 4];
    ByteWriter w = { bytes, 0 };
    for (int k = 0; k < WORDS; k++) {
        const double d = in[3 + k];
        if (!(d >= 0 && d < 4294967296.0) || d != (double)(uint32_t)d) return -1;
        bytes_put_u32(&w, (uint32_t)d);
    }
    if (!(in[0] >= 1 && in[0] < 9e15) || in[0] != floor(in[0]) || !(fabs(in[1]) <= 1e6) ||
        !(in[2] >= 0 && in[2] < 9e15) || in[2] != floor(in[2]))
        return -1;
    for (int k = 0; k < POLICY_D; k++)
        if (bytes[ENV_STATE_BYTES + k] > 1) return -1;
    if (vecenv_restore(v, e, bytes) != ENV_OK) return -1;
    const VecEnvCounters c = { (int64_t)in[0] - 1, in[1], (int64_t)in[2] };
    if (vecenv_set_counters(v, e, &c) != ENV_OK) return -1;
    memcpy(prev, bytes + ENV_STATE_BYTES, POLICY_D);
    return 0;
}

void env_records_save(const VecEnv *v, int n, const uint8_t *prev, size_t stride, double *out) {
    for (int e = 0; e < n; e++) env_record_save(v, e, prev + (size_t)e * stride, out + (size_t)e * ENV_RECORD_DOUBLES);
}

int env_records_load(VecEnv *v, int n, const double *in, uint8_t *prev, size_t stride) {
    for (int e = 0; e < n; e++)
        if (env_record_load(v, e, in + (size_t)e * ENV_RECORD_DOUBLES, prev + (size_t)e * stride)) return -1;
    return 0;
}
