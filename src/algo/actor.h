// actor.h: a trained model as a policy that a binding steps, learner-neutral: opened from a
// model path (whatever `pongrl eval` accepts, model.h) through the Learner table, it acts with
// the learner's own AgentPolicy (rl/agent.h), sparse and in C, on a batch of observations that
// the caller's envs gave (python/pongrl/policy.py: pongrl.load). It keeps the last frame of each
// row of the batch, as agent_step keeps the last frame of its env: the input of a row is the
// learner's input for that frame after the row's previous one (none on an episode's first step).
//
//     Actor *a = actor_open("models/pong-v5", err, sizeof err);
//     int ids[AGENT_ACTIONS_MAX], n = actor_actions(a, ids);      // the actions probs are of
//     actor_step(a, rows, OBS_RGB, obs, u, greedy, probs, choice);
//     actor_reset(a, NULL);                                       // every row starts an episode
//     actor_close(a);
//
// One thread at a time per Actor (a binding holds a lock); Actors share nothing.
#ifndef PONGRL_ACTOR_H
#define PONGRL_ACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../env/vecenv.h"
#include "../train/learner.h"

typedef struct Actor Actor;

// Whether this build's learner of --algo `name` acts (Learner.agent): a binding asks before it
// opens a model.txt folder of a learner it may play itself.
bool actor_plays(const char *name);
// The model at path as an Actor, or NULL with one line in err (not a model; a learner this build
// cannot play from a binding; out of memory).
Actor *actor_open(const char *path, char *err, size_t errlen);
void actor_close(Actor *a);

// The env's actions (ACTION_*, env.h) the policy chooses among, in the order of actor_step's
// probabilities, into ids (room for AGENT_ACTIONS_MAX); returns their count.
int actor_actions(const Actor *a, int *ids);
// The learner that trained it (--algo) and its hidden units.
const char *actor_algo(const Actor *a);
int actor_hidden(const Actor *a);
// The model itself (model.h's model_weights, model_array and model_setting read it).
const TrainState *actor_model(const Actor *a);

// One step of rows observations: obs is by kind (vecenv.h's observation types) OBS_OBS80's
// (rows, 80, 80), any non-zero lit, or OBS_RGB's (rows, 210, 160, 3), preprocessed as the seed
// does; uint8, C order. probs: (rows, n_actions), every action's probability; choice (NULL: not wanted):
// (rows,), the index in actor_actions of the action the learner takes, greedy or for the row's
// uniform draw u[r] in [0, 1) (u NULL: greedy). Each row's frame becomes its last. A batch of
// another size than the last step's starts every row afresh. 0, or -1: bad arguments, or out of
// memory.
int actor_step(
    Actor *a, int rows, int kind, const uint8_t *obs, const double *u, bool greedy, double *probs, int *choice);
// The rows whose fresh[r] is non-zero (fresh NULL: all) start an episode at their next step:
// their previous frame is forgotten. fresh has the last step's rows.
void actor_reset(Actor *a, const uint8_t *fresh);
// The rows of the last step (0 before the first).
int actor_rows(const Actor *a);

#endif
