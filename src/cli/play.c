// play.c: one agent step at a time through rl/agent.h, keeping nothing for a gradient (play.h).
#include "play.h"

#include <stdlib.h>
#include <string.h>

int player_init_policy(Player *pl, AgentPolicy policy, const char *env_id, int mode, int difficulty) {
    memset(pl, 0, sizeof(*pl));
    if (env_init_flavour(&pl->env, env_id, mode, difficulty, 0) != ENV_OK) return -1;
    pl->policy = policy;
    pl->h = malloc(sizeof(double) * (size_t)(policy.h_len > 0 ? policy.h_len : 1));
    return pl->h ? 0 : -1;
}

int player_init(Player *pl, const Policy *p, const char *env_id, int mode, int difficulty, bool greedy) {
    return player_init_policy(pl, agent_policy_seed(p, greedy), env_id, mode, difficulty);
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
