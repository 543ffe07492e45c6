// play.h: a trained policy playing, without learning: what eval, record and watch share. It
// acts through rl/agent.h's agent_step, as training does: the difference of two 80x80 frames
// (zeros on the first step), one uniform draw per step from its own stream; Karpathy's policy
// samples UP (2) if u < p, else DOWN (3), or greedily UP iff p > 0.5.
#ifndef PONGRL_PLAY_H
#define PONGRL_PLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "../rl/agent.h"
#include "../train/state.h"
#include <stddef.h>

typedef struct {
    Env env;
    Agent agent;
    AgentPolicy policy;
    int8_t x[POLICY_D];     // the input of the last step, dense (for pictures)
    uint16_t idx[POLICY_D]; // the same, sparse
    int8_t sign[POLICY_D];
    double *h;     // (policy.h_len,) act's scratch
    double last_p; // probability of UP at the last step
} Player;

// The model in s (model_load) playing env_id with ALE's mode and difficulty (env_init_flavour),
// as its learner acts (Learner.agent; a learner with a network of its own is attached). 0, or
// -1 with one line in err (unknown env id, bad mode or difficulty, out of memory).
int player_init_model(
    Player *pl, TrainState *s, const char *env_id, int mode, int difficulty, bool greedy, char *err, size_t errlen);
// Any learner's policy playing env_id, mode, difficulty. 0, or -1 (unknown env id, bad mode
// or difficulty, out of memory).
int player_init_policy(Player *pl, AgentPolicy policy, const char *env_id, int mode, int difficulty);
void player_free(Player *pl);
void player_reset(Player *pl, uint64_t env_seed, uint64_t act_seed);
// One agent step; returns the action taken.
int player_step(Player *pl, EnvStep *out);

// ----------------------------------------------------------------------------
// the flags of eval, record and watch, written once: each command names the ones it takes

enum {
    PLAY_OPT_OUT = 1 << 0,
    PLAY_OPT_EPISODES = 1 << 1,
    PLAY_OPT_ENV = 1 << 2,
    PLAY_OPT_SEED = 1 << 3,
    PLAY_OPT_GREEDY = 1 << 4,
    PLAY_OPT_WORKERS = 1 << 5,
    PLAY_OPT_GAMES = 1 << 6,
    PLAY_OPT_MAX_STEPS = 1 << 7,
    PLAY_OPT_WITH_INPUT = 1 << 8,
    PLAY_OPT_SCALE = 1 << 9,
    PLAY_OPT_SPEED = 1 << 10,
    PLAY_OPT_VERBOSE = 1 << 11,
    PLAY_OPT_MODE = 1 << 12,
    PLAY_OPT_DIFFICULTY = 1 << 13,
    // what every command that plays a model takes: the game, its flavour, the seed, greedy or not
    PLAY_OPTS_GAME = PLAY_OPT_ENV | PLAY_OPT_MODE | PLAY_OPT_DIFFICULTY | PLAY_OPT_SEED | PLAY_OPT_GREEDY,
};

typedef struct {
    const char *model;    // the one positional argument
    const char *out;      // --out, NULL if not given
    const char *env_id;   // --env, NULL: the model's
    int mode, difficulty; // ALE's game mode and difficulty; -1: the model's
    uint64_t seed;        // 1
    bool greedy, with_input, verbose;
    int episodes;             // 20
    int workers;              // one per core
    int64_t games, max_steps; // 0: no limit
    int scale;                // 3
    double speed;             // 1
} PlayArgs;

// Parses argv (argv[0]: the command's name) for the flags in `opts` (PLAY_OPT_*) and one MODEL.
// -h/--help prints "usage: pongrl CMD USAGE", `about`, what MODEL may be (the same for every
// command that plays one) and the flags, and exits 0; anything else that is wrong ends in
// die_usage.
void play_args_parse(int argc, char **argv, unsigned opts, const char *usage, const char *about, PlayArgs *a);

// Loads MODEL (a->model: a checkpoint, a run directory, a folder with W1.npy/W2.npy) into st
// (train_state_free frees it) and its description into desc; --env, --mode and --difficulty
// left out take the model's. 0, or 1 with one line on stderr.
int play_load_model(PlayArgs *a, TrainState *st, char *desc, size_t desclen);

// A malloc'd Player of the model in st (player_init_model) on a's env, mode and difficulty,
// greedy or not as a says (after play_load_model); NULL with one line on stderr.
Player *player_create(TrainState *st, const PlayArgs *a);
// player_free, then free; NULL does nothing.
void player_destroy(Player *pl);

// Seeds of evaluation episode e: a family of streams apart from training's.
uint64_t play_env_seed(uint64_t seed, int64_t e);
uint64_t play_act_seed(uint64_t seed, int64_t e);

#endif
