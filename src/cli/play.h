// play.h: the trained policy playing, without learning: what eval and record share. The
// agent sees what it saw in training (the difference of two 80x80 frames, zeros on the
// first step) and acts as in training: UP (2) if u < p, else DOWN (3), u from its own
// stream, one draw per step; or greedily, UP iff p > 0.5.
#ifndef PONGRL_PLAY_H
#define PONGRL_PLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "../env/env.h"
#include "../policy/policy.h"

typedef struct {
    Env env;
    Rng rng;
    bool greedy;
    uint8_t obs[2][POLICY_D];       // current and previous 80x80 frames
    int cur;
    bool have_prev;
    int8_t x[POLICY_D];             // the input of the last step, dense (for pictures)
    uint16_t idx[POLICY_D];         // the same, sparse
    int8_t sign[POLICY_D];
    int nnz;
    double *h;                      // (H,)
    double last_p;                  // probability of UP at the last step
} Player;

// 0, or -1 (unknown env id, bad mode or difficulty, out of memory). mode, difficulty: ALE's
// (env_init_flavour).
int player_init(Player *pl, const Policy *p, const char *env_id, int mode, int difficulty, bool greedy);
void player_free(Player *pl);
void player_reset(Player *pl, uint64_t env_seed, uint64_t act_seed);
// One agent step; returns the action taken (ACTION_RIGHT = UP, ACTION_LEFT = DOWN).
int player_step(Player *pl, const Policy *p, EnvStep *out);

// Seeds of evaluation episode e: a family of streams apart from training's.
uint64_t play_env_seed(uint64_t seed, int64_t e);
uint64_t play_act_seed(uint64_t seed, int64_t e);

#endif
