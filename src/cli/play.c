// play.c: one agent step at a time through rl/agent.h, keeping nothing for a gradient (play.h).
#include "play.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include "../algo/ppo.h"

int player_init_policy(Player *pl, AgentPolicy policy, const char *env_id) {
    memset(pl, 0, sizeof(*pl));
    if (env_init(&pl->env, env_id, 0) != ENV_OK) return -1;
    pl->policy = policy;
    pl->h = malloc(sizeof(double) * (size_t)(policy.h_len > 0 ? policy.h_len : 1));
    return pl->h ? 0 : -1;
}

int player_init(Player *pl, const Policy *p, const char *env_id, bool greedy) {
    return player_init_policy(pl, agent_policy_seed(p, greedy), env_id);
}

int player_init_model(Player *pl, TrainState *s, const char *env_id, bool greedy, char *err, size_t errlen) {
    AgentPolicy ap;
    if (!strcmp(s->cfg.algo, "pg")) ap = agent_policy_seed(&s->policy, greedy);
    else if (!strcmp(s->cfg.algo, "ppo")) {
        // its network is in its learner's arrays: the learner takes them
        if (!s->learner && train_state_attach(s, &PPO_LEARNER, err, errlen)) return -1;
        ap = ppo_agent_policy(ppo_of(s), greedy);
    } else {
        snprintf(err, errlen, "a model of --algo %s, which this build cannot play", s->cfg.algo);
        return -1;
    }
    if (player_init_policy(pl, ap, env_id)) { snprintf(err, errlen, "out of memory or unknown env %s", env_id); return -1; }
    return 0;
}

void player_free(Player *pl) {
    free(pl->h);
    pl->h = NULL;
}

void player_reset(Player *pl, uint64_t env_seed, uint64_t act_seed) {
    agent_reset(&pl->agent, &pl->env, env_seed, act_seed);
}

int player_step(Player *pl, EnvStep *out) {
    AgentInput in = { pl->idx, pl->sign, 0 };
    int action = agent_step(&pl->agent, &pl->policy, &in, pl->h, &pl->last_p, out);
    memset(pl->x, 0, sizeof(pl->x));
    for (int k = 0; k < in.nnz; k++) pl->x[pl->idx[k]] = pl->sign[k];
    return action;
}

uint64_t play_env_seed(uint64_t seed, int64_t e) { return rng_key(seed, 0x6576616c /* "eval" */, (uint64_t)e, 1); }
uint64_t play_act_seed(uint64_t seed, int64_t e) { return rng_key(seed, 0x6576616c, (uint64_t)e, 2); }
