// ppo_envs.c: the rollout's N games are env/vecenv's vector of envs, caller-stepped: the pool's
// threads step their ranges of envs themselves, a forward pass between two steps of an env.
// Each steps with autoreset (an episode that ends starts the next inside the step) and seeds
// its episode j from (run seed, env, j) with PPO's own word ("ppoe"), so that an env's games do
// not depend on who plays them. Beside the games PPO keeps each env's previous frame (its
// input) and the frames it emulated in this rollout. A checkpoint keeps each env as an
// rl/learner_envs.h record (episode counters, game with its random stream, previous frame).
#include "ppo_parts.h"

#include <stddef.h>
#include <string.h>

#include "../../rl/learner_envs.h"
#include "ppo_streams.h"

int ppo_envs_start(Ppo *p) {
    const TrainConfig *c = &p->cfg;
    p->venv = learner_envs_create(c->env_id, c->envs, c->mode, c->difficulty, STREAM_PPO_ENV, c->seed);
    return p->venv ? 0 : -1;
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
// the envs' state as float64s: an rl/learner_envs.h record an env

size_t ppo_envs_doubles(const Ppo *p) { return (size_t)p->cfg.envs * ENV_RECORD_DOUBLES; }

void ppo_envs_save(const Ppo *p, double *out) {
    env_records_save(p->venv, p->cfg.envs, (const uint8_t *)p->envs + offsetof(PpoEnv, prev), sizeof(PpoEnv), out);
}

int ppo_envs_load(Ppo *p, const double *in) {
    return env_records_load(p->venv, p->cfg.envs, in, (uint8_t *)p->envs + offsetof(PpoEnv, prev), sizeof(PpoEnv));
}
