// play.h: a trained policy playing, without learning: what eval, record and watch share. It
// acts through rl/agent.h's agent_step, as training does: the difference of two 80x80 frames
// (zeros on the first step), one uniform draw per step from its own stream; the seeds' policy
// samples UP (2) if u < p, else DOWN (3), or greedily UP iff p > 0.5.
#ifndef PONGRL_PLAY_H
#define PONGRL_PLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "../rl/agent.h"

typedef struct {
    Env env;
    Agent agent;
    AgentPolicy policy;
    int8_t x[POLICY_D];             // the input of the last step, dense (for pictures)
    uint16_t idx[POLICY_D];         // the same, sparse
    int8_t sign[POLICY_D];
    double *h;                      // (policy.h_len,) act's scratch
    double last_p;                  // probability of UP at the last step
} Player;

// The seeds' network p playing env_id with ALE's mode and difficulty (env_init_flavour).
// 0, or -1 (unknown env id, bad mode or difficulty, out of memory).
int player_init(Player *pl, const Policy *p, const char *env_id, int mode, int difficulty, bool greedy);
// Any learner's policy playing env_id, mode, difficulty. 0, or -1 (as player_init).
int player_init_policy(Player *pl, AgentPolicy policy, const char *env_id, int mode, int difficulty);
void player_free(Player *pl);
void player_reset(Player *pl, uint64_t env_seed, uint64_t act_seed);
// One agent step; returns the action taken.
int player_step(Player *pl, EnvStep *out);

// Seeds of evaluation episode e: a family of streams apart from training's.
uint64_t play_env_seed(uint64_t seed, int64_t e);
uint64_t play_act_seed(uint64_t seed, int64_t e);

#endif
