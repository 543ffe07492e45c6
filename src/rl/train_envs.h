// train_envs.h: a learner's N training envs that it steps one at a time from the pool's threads
// (QR-DQN's; an IQN's or a CNN's alike): the caller-stepped vector of learner_envs.h with its
// env word, and beside each env what a step needs and leaves: its previous 80x80 frame, the
// frame of this round, the frames it emulated this iteration, its draws of this iteration from
// their stream (run seed, iteration, env, the learner's word), and its step's Transition
// (replay.h) for the replay memory. Each env steps with autoreset (an episode that ends starts
// the next inside the step), its episode j seeded from (run seed, env, j): an env's games do not
// depend on who plays them. Threads may observe and step distinct envs at once.
//
// A learner's step of env e: its draws from rng[e], train_envs_observe (the frame), its choice
// of action from the frame and prev[e], train_envs_step.
#ifndef PONGRL_TRAIN_ENVS_H
#define PONGRL_TRAIN_ENVS_H

#include <stddef.h>
#include <stdint.h>

#include "../env/vecenv.h"
#include "../util/rng.h"
#include "agent.h"
#include "replay.h"

typedef struct {
    int n;
    VecEnv *venv;     // (n) the games, caller-stepped
    uint8_t *prev;    // (n, POLICY_D) each env's previous frame (zeros before an episode's first)
    uint8_t *frame;   // (n, POLICY_D) each env's frame this round
    int64_t *frames;  // (n) frames emulated this iteration
    Rng *rng;         // (n) each env's draws this iteration
    Transition *step; // (n) what each env's step this round left
} TrainEnvs;

// n envs of the preset env_id (learner_envs_create's arguments), every env at its episode 0. 0,
// or -1 (out of memory, or what learner_envs_create refuses): train_envs_free it all the same.
int train_envs_create(
    TrainEnvs *t, const char *env_id, int n, int mode, int difficulty, uint32_t env_word, uint64_t seed);
void train_envs_free(TrainEnvs *t);
// An iteration's start: env e's draws from rng_key(seed, iteration, e, draw_word), no frames.
void train_envs_begin(TrainEnvs *t, uint64_t seed, uint64_t iteration, uint32_t draw_word);
// Env e's frame now (binary 80x80) into frame[e]; returns it.
const uint8_t *train_envs_observe(TrainEnvs *t, int e);
// Env e's step with env action action_id (valid for the preset), the learner's index of it
// `action` (kept in step[e]): step[e] (REPLAY_START on an episode's first step, REPLAY_DONE and
// the episode on its last, truncated too), frames[e], and prev[e] = the observed frame (zeros
// after an episode's end: the next one's first frame has no previous one).
void train_envs_step(TrainEnvs *t, int e, int action, int action_id);

// The envs' state as float64s: a learner_envs.h record an env (counters, game with its random
// stream, previous frame), and back (load: -1 for values no save writes).
size_t train_envs_doubles(const TrainEnvs *t);
void train_envs_save(const TrainEnvs *t, double *out);
int train_envs_load(TrainEnvs *t, const double *in);

#endif
