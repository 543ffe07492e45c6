// ppo_envs.c: the rollout's N games are env/vecenv's vector of envs, caller-stepped: the pool's
// threads step their ranges of envs themselves, a forward pass between two steps of an env.
// Each steps with autoreset (an episode that ends starts the next inside the step) and seeds
// its episode j from (run seed, env, j) with PPO's own word ("ppoe"), so that an env's games do
// not depend on who plays them. Beside the games PPO keeps each env's previous frame (its
// input) and the frames it emulated in this rollout. Their state (episode counters, games with
// their random streams, previous frames) as float64s is what a checkpoint keeps of them.
#include "ppo_parts.h"

#include <math.h>
#include <string.h>

#include "../../util/streams.h"

int ppo_envs_start(Ppo *p) {
    const EnvPreset *preset = env_preset_find(p->cfg.env_id);
    if (preset == NULL) return -1;
    VecConfig c = { .num_envs = p->cfg.envs,
        .obs_type = OBS_OBS80,
        .autoreset = VECENV_SAME_STEP,
        .thread_affinity_offset = -1,
        .stream = STREAM_PPO_ENV,
        .caller_stepped = true };
    p->venv = vecenv_create(preset, &c, NULL);
    if (p->venv == NULL) return -1;
    for (int e = 0; e < p->cfg.envs; e++)
        if (vecenv_reset_env(p->venv, e, p->cfg.seed) != ENV_OK) return -1;
    return 0;
}

void ppo_env_step(Ppo *p, int e, int t, int a) {
    PpoEnv *v = &p->envs[e];
    const size_t s = (size_t)e * p->cfg.steps + t;
    VecEnvStep st;
    vecenv_step_env(p->venv, e, PPO_ACTION_ID[a], &st); // a valid action, an env of this rollout
    v->frames += st.frames;
    p->reward[s] = st.reward;
    p->done[s] = st.terminated || st.truncated;
    if (p->done[s]) {
        p->ended_slot[s] = (PpoEpisode){ t, e, st.episode_return, st.episode_length };
        memset(v->prev, 0, POLICY_D); // the first frame's difference is the frame
    }
}

// PPO's episode counter is the number of episodes the env started, one more than vecenv's
// index of the running one: the checkpoints and the ranks' exchange have always held it.
void ppo_env_counters(const Ppo *p, int e, int64_t *episodes, double *ep_return, int64_t *ep_len) {
    VecEnvCounters c;
    vecenv_env_counters(p->venv, e, &c);
    *episodes = c.episode + 1;
    *ep_return = c.ep_return;
    *ep_len = c.ep_length;
}

int ppo_env_set(Ppo *p, int e, const uint8_t *state, int64_t episodes, double ep_return, int64_t ep_len) {
    if (episodes < 1 || vecenv_restore(p->venv, e, state) != ENV_OK) return -1;
    return vecenv_set_counters(p->venv, e, &(VecEnvCounters){ episodes - 1, ep_return, ep_len }) == ENV_OK ? 0 : -1;
}

// ----------------------------------------------------------------------------
// the envs' state as float64 (a learner's arrays are float64): per env its episode counter,
// running return and length, its ALE-style state (env_clone, with its random stream) and its
// previous frame, the bytes packed 4 to a double (exact: below 2^32)

#define REC_BYTES   (ENV_STATE_BYTES + POLICY_D)
#define REC_DOUBLES (3 + (REC_BYTES + 3) / 4)

size_t ppo_envs_doubles(const Ppo *p) { return (size_t)p->cfg.envs * REC_DOUBLES; }

void ppo_envs_save(const Ppo *p, double *out) {
    uint8_t bytes[REC_BYTES + 3];
    for (int e = 0; e < p->cfg.envs; e++) {
        double *o = out + (size_t)e * REC_DOUBLES;
        int64_t episodes, ep_len;
        ppo_env_counters(p, e, &episodes, &o[1], &ep_len);
        o[0] = (double)episodes;
        o[2] = (double)ep_len;
        memset(bytes, 0, sizeof(bytes));
        vecenv_clone(p->venv, e, true, bytes);
        memcpy(bytes + ENV_STATE_BYTES, p->envs[e].prev, POLICY_D);
        for (int k = 0; k < (REC_BYTES + 3) / 4; k++)
            o[3 + k] = (double)((uint32_t)bytes[4 * k] | (uint32_t)bytes[4 * k + 1] << 8 |
                (uint32_t)bytes[4 * k + 2] << 16 | (uint32_t)bytes[4 * k + 3] << 24);
    }
}

int ppo_envs_load(Ppo *p, const double *in) {
    uint8_t bytes[REC_BYTES + 3];
    for (int e = 0; e < p->cfg.envs; e++) {
        const double *o = in + (size_t)e * REC_DOUBLES;
        for (int k = 0; k < (REC_BYTES + 3) / 4; k++) {
            const double d = o[3 + k];
            if (!(d >= 0 && d < 4294967296.0) || d != (double)(uint32_t)d) return -1;
            const uint32_t u = (uint32_t)d;
            for (int b = 0; b < 4; b++) bytes[4 * k + b] = (uint8_t)(u >> (8 * b));
        }
        if (!(o[0] >= 1 && o[0] < 9e15) || !(fabs(o[1]) <= 1e6) || !(o[2] >= 0 && o[2] < 9e15)) return -1;
        for (int k = 0; k < POLICY_D; k++)
            if (bytes[ENV_STATE_BYTES + k] > 1) return -1;
        if (ppo_env_set(p, e, bytes, (int64_t)o[0], o[1], (int64_t)o[2])) return -1;
        memcpy(p->envs[e].prev, bytes + ENV_STATE_BYTES, POLICY_D);
    }
    return 0;
}
