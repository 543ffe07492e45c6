// rollout.h: one episode -> one policy gradient, exactly as Ray's RolloutWorker does it:
// play a whole game with UP (2) with probability p else DOWN (3), record the fake label's
// y - p, discount the rewards with the Pong reset, standardise them per episode, modulate,
// and backpropagate.
#ifndef PONGRL_ALGO_PG_ROLLOUT_H
#define PONGRL_ALGO_PG_ROLLOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "../../env/env.h"
#include "policy.h"
#include "../../rl/agent.h"
#include "../../train/learner.h"
#include "../../util/arrays.h"
#include "../../util/rng.h"
#include "../../util/rowset.h"

// What one episode left behind, step by step (t = 0 .. T-1).
typedef struct {
    int H, T, cap;
    double *h;       // (T, H) hidden activations
    double *dlogp;   // (T,)   y - p; after rollout_gradient: times the standardised return
    double *reward;  // (T,)   reward received after the step's action
    double *adv;     // (T,)   the discounted, standardised returns (rollout_gradient)
    uint8_t *action; // (T,)   2 (UP) or 3 (DOWN)
    uint32_t *xoff;  // (T+1,) step t's input is idx/sign[xoff[t] .. xoff[t+1])
    uint16_t *idx;   // sparse difference frames, concatenated
    int8_t *sign;
    size_t nz, nz_cap;
} Trajectory;

// Scratch a worker owns for its whole life.
typedef struct {
    Trajectory tr;
    Agent agent;     // the acting side: frames, action draws
    double *grad;    // (n,) dense gradient of one episode
    double *dh;      // (H,)
    RowSet touched;  // input pixels seen this episode (the rows of grad in use)
    uint8_t *fresh;  // (D,) scratch: per non-zero pixel of a step, its row is new
    ArrayBlocks mem; // where grad, dh and fresh live (rollout.c's table)
} Worker;

// Karpathy's two-layer network acting: UP (2) if u < p, else DOWN (3); greedily UP iff p > 0.5.
AgentPolicy pg_agent_policy(const Policy *p, bool greedy);

int worker_alloc(Worker *w, const Policy *p); // 0 or -1 (out of memory)
void worker_free(Worker *w);

// Play one episode from env_seed (env) and act_seed (action sampling), acting through
// agent_step with Karpathy's policy; fills w->tr.
// Returns 0, or -1 if memory ran out.
int rollout_play(Worker *w, const Policy *p, Env *env, uint64_t env_seed, uint64_t act_seed, EpisodeStats *st);

// Karpathy's process_rewards: running sum reset at every non-zero reward (a Pong point).
void discount_rewards(const double *r, double *out, int T, double gamma);
// x -= mean(x); x /= std(x) (population std). A zero std (every return equal, or equal but
// for rounding) leaves the centred values, (nearly) all zero, instead of Karpathy's 0/0 = NaN.
void standardize(double *x, int T);

// Discount, standardise, modulate and backpropagate the episode in w->tr into w->grad
// (on the rows in w->touched, and W2; the other rows hold stale values). Returns 0 (it once
// allocated; its scratch is now the trajectory's, which rollout_play sized).
int rollout_gradient(Worker *w, const Policy *p, double gamma);

#endif
