// agent.h: the agent's step, written once: render the 80x80 frame, take its difference with
// the previous one (zeros on the first step), let the policy choose an action from it, step the
// env. Training (rollout.c) and the CLI's eval, record and watch (cli/play.c) all act through
// agent_step, so "eval acts as training does" holds by construction.
//
// A learner plugs in as an AgentPolicy: act() gets the step's input and the step's uniform draw
// and returns the action. Each learner fills in its act with its network (pg: pg_agent_policy,
// algo/pg/rollout.h), and eval and record play it unchanged (Learner.agent). act_probs is the
// same step giving every action's probability as well, for a binding that shows or samples them
// whatever the learner's action count (algo/actor.h, python's pongrl.load).
#ifndef PONGRL_AGENT_H
#define PONGRL_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "../env/env.h"
#include "../util/rng.h"

#define POLICY_D 6400 // the 80x80 frame, one entry a pixel: every learner's input is made of it

// A sparse difference frame: x[idx[k]] = sign[k] for k < nnz, zero elsewhere; idx ascending.
typedef struct {
    int nnz;
    const uint16_t *idx;
    const int8_t *sign;
} SparseX;

#define AGENT_ACTIONS_MAX 6 // a policy chooses among at most Pong's six minimal actions

typedef struct AgentPolicy {
    // The action for input x (the sparse difference frame), or for the frames themselves: cur
    // and prev (80x80 binary; prev NULL on an episode's first step). u: the step's uniform draw in [0, 1),
    // one per step, drawn whether used or not, so a greedy and a sampling agent walk the stream
    // alike. *p_up: the probability the policy gave UP (pictures, Karpathy's gradient). h: act's
    // per-step scratch, h_len doubles, which a learner may keep (Karpathy's hidden activations).
    int (*act)(const struct AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h,
        double *p_up);
    const void *net; // the learner's network (pg's: a Policy)
    int h_len;
    bool greedy; // the most likely action instead of a sample
    // act, with probs[k] = the probability of actions[k] for k < n_actions (the action it returns
    // is act's for the same arguments, bit for bit: act is written as a call of it).
    int (*act_probs)(const struct AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u,
        double *h, double *probs);
    const int *actions; // the env's actions it chooses among (ACTION_*, env.h), in the order of probs
    int n_actions;
} AgentPolicy;

typedef struct {
    Env *env;
    Rng rng;                  // the action draws
    uint8_t obs[2][POLICY_D]; // the current and the previous 80x80 frame
    int cur;
    bool have_prev;
} Agent;

// Where a step's input goes: idx and sign have room for POLICY_D entries; nnz is set.
typedef struct {
    uint16_t *idx;
    int8_t *sign;
    int nnz;
} AgentInput;

// A new episode of env from env_seed, actions drawn from act_seed.
void agent_reset(Agent *a, Env *env, uint64_t env_seed, uint64_t act_seed);
// One agent step: the input to *in, act's scratch to h, P(UP) to *p_up, the env's step to *out.
// Returns the action taken. The episode must not be over.
int agent_step(Agent *a, const AgentPolicy *ap, AgentInput *in, double *h, double *p_up, EnvStep *out);

// The sparse difference cur - prev of two binary 80x80 frames, pixels in order, into idx/sign
// (room for POLICY_D); returns their count.
int agent_diff(const uint8_t *cur, const uint8_t *prev, uint16_t *idx, int8_t *sign);

#endif
