// ppo_envs.c: the rollout's N games. Each steps with autoreset (an episode that ends starts
// the next inside the step) and seeds its episode j from (run seed, env, j), so that an env's
// games do not depend on who plays them. Their state (episode counters, games with their
// random streams, previous frames) as float64s is what a checkpoint keeps of them.
//
// They are not env/vecenv's vector of envs: vecenv seeds env i's episode j from another
// stream (rng_key(seed, i, j, "venv"), where these have "ppoe"), steps its envs on threads of
// its own, and its restore does not carry an env's episode index; PPO's runs and checkpoints
// would not be the same bits.
#include "ppo_parts.h"

#include <math.h>
#include <string.h>

#include "../../util/rng.h"
#include "../../util/streams.h"

// stream purposes (rng_key's last word)

static uint64_t env_episode_seed(uint64_t seed, int e, int64_t j) {
    return stream_ppo_env(seed, (uint64_t)e, (uint64_t)j);
}

int ppo_envs_start(Ppo *p) {
    for (int e = 0; e < p->cfg.envs; e++) {
        PpoEnv *v = &p->envs[e];
        if (env_init(&v->env, p->cfg.env_id, env_episode_seed(p->cfg.seed, e, 0)) != ENV_OK) return -1;
        v->episode = 1;
    }
    return 0;
}

void ppo_env_step(Ppo *p, int e, int t, int a) {
    PpoEnv *v = &p->envs[e];
    const size_t s = (size_t)e * p->cfg.steps + t;
    EnvStep st;
    env_step(&v->env, PPO_ACTION_ID[a], &st);
    v->frames += st.frames;
    p->reward[s] = st.reward;
    v->ep_return += st.reward;
    v->ep_len++;
    p->done[s] = st.terminated || st.truncated;
    if (p->done[s]) {
        p->ended_slot[s] = (PpoEpisode){ t, e, v->ep_return, v->ep_len };
        env_reset(&v->env, env_episode_seed(p->cfg.seed, e, v->episode++));
        memset(v->prev, 0, POLICY_D); // the first frame's difference is the frame
        v->ep_return = 0;
        v->ep_len = 0;
    }
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
        const PpoEnv *v = &p->envs[e];
        double *o = out + (size_t)e * REC_DOUBLES;
        o[0] = (double)v->episode;
        o[1] = v->ep_return;
        o[2] = (double)v->ep_len;
        memset(bytes, 0, sizeof(bytes));
        env_clone(&v->env, true, bytes);
        memcpy(bytes + ENV_STATE_BYTES, v->prev, POLICY_D);
        for (int k = 0; k < (REC_BYTES + 3) / 4; k++)
            o[3 + k] = (double)((uint32_t)bytes[4 * k] | (uint32_t)bytes[4 * k + 1] << 8 |
                (uint32_t)bytes[4 * k + 2] << 16 | (uint32_t)bytes[4 * k + 3] << 24);
    }
}

int ppo_envs_load(Ppo *p, const double *in) {
    uint8_t bytes[REC_BYTES + 3];
    for (int e = 0; e < p->cfg.envs; e++) {
        PpoEnv *v = &p->envs[e];
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
        if (env_restore(&v->env, bytes) != ENV_OK) return -1;
        memcpy(v->prev, bytes + ENV_STATE_BYTES, POLICY_D);
        v->episode = (int64_t)o[0];
        v->ep_return = o[1];
        v->ep_len = (int64_t)o[2];
    }
    return 0;
}
