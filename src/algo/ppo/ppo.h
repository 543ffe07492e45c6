// ppo.h: proximal policy optimisation (Schulman et al. 2017) as CleanRL's ppo_atari.py does it,
// on the exact game, with the sparse actor-critic network of acnet.h.
//
// One iteration: N envs play T steps each with the current weights (fixed-length rollouts,
// an env that ends an episode starts the next one inside the step); GAE(gamma, lambda) gives
// advantages and returns; then E epochs over the N*T samples in M shuffled minibatches, each a
// step of Adam on the clipped surrogate, the clipped value loss and an entropy bonus, after
// clipping the gradient's global norm. The learning rate falls linearly to zero.
//
// Same seed, same bits: env e's episode j is seeded from (run seed, e, j), its action sampling
// in iteration i from (run seed, i, e), the shuffle of epoch k from (run seed, i, k); nothing
// depends on which thread played or summed what. A minibatch's gradient (ppo_grad.c) is taken
// per sample (dh_s, the gradient wrt the hidden layer, in blocks of PPO_BLOCK samples: the
// threads' work), then per W1 row: g_r = sum of x_s[r] dh_s over the row's samples in sample
// order, in float32 (ppo_merge.c: the rows are the threads' work); the tail (b1, the heads) is
// the exact fixed-point sum (train/gradsum.h) of the blocks' float64 sums. No value depends
// on the number of threads. (--chunk, which fixed the pieces of an older sum, is retired: the
// files of older runs that hold it still read, config.c's TRAIN_SETTINGS_RETIRED.)
//
// Under MPI (train/comm.h) each of R ranks plays a fixed range of the envs (rank r: envs
// [N r / R, N (r + 1) / R)), and the ranks exchange what they played (Comm.allgather: the
// inputs, actions, log-probabilities, values, rewards, ends, finished episodes and each env's
// game and previous frame), so that every rank holds the whole rollout and every env's state,
// as one process does. Each rank then computes a fixed share of each minibatch's blocks;
// Comm.allgather gives every rank every sample's dh, and Comm.reduce (the transport's exact
// all-reduce) the tail's exact sum and the blocks' loss terms, and compares the ranks' weights
// digests. Every rank sums every W1 row from the same dh and takes the same Adam step: the
// weights are the same bits with any number of ranks and threads.
//
// Adam on W1 is lazy (torch.optim.SparseAdam's rule): a minibatch moves only the W1 rows its
// inputs touch (a few hundred of 12,800), and only their moments decay; the dense part (b1,
// the heads) gets torch.optim.Adam. A dense Adam over W1 would touch 3.3 M weights a minibatch.
//
// Sample s of a rollout is env s / T, step s % T (env-major).
//
// The files, one job each: ppo.c (an iteration, from the top), ppo_rollout.c, ppo_envs.c and
// ppo_inputs.c (the rollout, its games and its inputs), ppo_wire.c (the ranks' exchange),
// ppo_policy.c (the draw of an action, acting outside training), ppo_gae.c,
// ppo_grad.c and ppo_merge.c (a minibatch's exact gradient), ppo_adam.c, acnet.[ch] (the
// network), ppo_learner.c (PPO behind train/learner.h); ppo_parts.h is what they share.
#ifndef PONGRL_PPO_H
#define PONGRL_PPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../env/env.h"
#include "../../env/vecenv.h"
#include "acnet.h"
#include "../../rl/agent.h"
#include "../../rl/sparse_input.h"
#include "../../train/comm.h"
#include "../../train/config.h"
#include "../../train/gradsum.h"
#include "../../train/learner.h"
#include "../../train/state.h"
#include "../../train/pool.h"
#include "../../util/arrays.h"
#include "../../util/bytes.h"
#include "../../util/rowset.h"

#define PPO_ADAM_BETA1 0.9 // torch.optim.Adam's defaults
#define PPO_ADAM_BETA2 0.999
#define PPO_ADAM_EPS   1e-5 // CleanRL's ppo_atari.py
#define PPO_ADV_EPS    1e-8 // CleanRL: (adv - mean) / (std + 1e-8)
#define PPO_NORM_EPS   1e-6 // torch clip_grad_norm_: max_norm / (norm + 1e-6)
#define PPO_ACTIONS    3    // NOOP, RIGHT (up), LEFT (down): FIRE adds nothing in Pong

extern const int PPO_ACTION_ID[PPO_ACTIONS]; // the env action of each policy output

// The learner of `pongrl train --algo ppo` (ppo_learner.c): its settings are TrainConfig's.
extern const Learner PPO_LEARNER;

// The input (rl/sparse_input.h): the frame, its difference and, with --coarse, their coarse views.
#define PPO_COARSE SPARSE_COARSE
static inline int ppo_input_size(bool coarse) { return sparse_input_size(coarse); }
static inline int ppo_input(const uint8_t *cur, const uint8_t *prev, bool coarse, uint16_t *idx, int8_t *sign) {
    return sparse_input(cur, prev, coarse, idx, sign);
}
// An action index drawn from logp (A,) with u in [0, 1): the first whose cumulative
// probability exceeds u.
int ppo_sample_action(const double *logp, int A, double u);

// Its settings are the run's, TrainConfig (train/config.h's table: the rows of every learner
// and those of --algo ppo, with its defaults); PPO reads them there.

// The hidden units that serve the value alone: value_hidden, or H/2 for -1.
static inline int ppo_value_units(const TrainConfig *c) {
    return c->value_hidden < 0 ? c->hidden / 2 : c->value_hidden;
}
// NULL when c's settings make sense together (each one's range is the table's), else what is
// wrong (one line).
const char *ppo_check(const TrainConfig *c);

// What the rollout keeps of env e beside its game and episode counters (Ppo.venv's env e).
typedef struct {
    uint8_t prev[POLICY_D]; // the previous 80x80 frame
    int64_t frames;         // emulated in the last rollout
} PpoEnv;

// A finished episode: where it ended in the rollout (step t of env e) and what it scored.
typedef struct {
    int t, env;
    double ret;
    int64_t len;
} PpoEpisode;

// One iteration's diagnostics (means over every minibatch of every epoch, as CleanRL logs).
typedef struct {
    double policy_loss, value_loss, entropy, approx_kl, clip_frac, explained_var;
    double grad_norm; // before clipping, mean
    double lr;
    double rollout_s, update_s; // wall time of each phase
} PpoStats;

typedef struct PpoThread PpoThread;
typedef struct PpoPlan PpoPlan;

typedef struct Ppo {
    TrainConfig cfg; // the run's settings
    AcNet net;
    float *adam_m, *adam_v;    // (D, H) each: W1's moments, float32 as W1 is (acnet.h)
    double *adam_mt, *adam_vt; // (n - tail) each: the tail's
    int64_t adam_t;            // steps taken
    int64_t iteration;         // iterations done
    int64_t agent_steps;       // all envs, all iterations
    int64_t episodes;          // finished
    int64_t frames;            // emulated in the last rollout, all envs
    double ent_coef;           // the entropy coefficient of this iteration's update (--ent-anneal-steps)
    PpoEnv *envs;              // (N,)
    VecEnv *venv;              // (N,) the games, caller-stepped (ppo_envs.c)
    // the rollout, env-major (s = e*T + t)
    uint32_t *xoff;  // (N, T+1) env e's step t input: xs[e] entries [xoff[e][t], xoff[e][t+1])
    uint16_t **xidx; // (N,) growing arrays of sparse inputs
    int8_t **xsign;
    size_t *xcap;                              // (N,)
    uint8_t *action;                           // (B,) policy output index in [0, PPO_ACTIONS)
    double *logp, *value, *reward, *adv, *ret; // (B,)
    uint8_t *done;                             // (B,) the episode ended with this step's action
    double *next_value;                        // (N,) the value of each env's state after the rollout
    PpoEpisode *ended;                         // (N*T) episodes that ended this rollout, (t, env) order
    int n_ended;
    PpoEpisode *ended_slot;    // (N*T) scratch: at e*T + t, the episode env e ended at step t
    EpisodeStats *ended_stats; // (N*T) ended as the training loop takes them (ppo_learner.c)
    // the update
    int32_t *perm;    // (B,)
    double *mb_adv;   // (B / M) normalised advantages of the current minibatch
    float *dh;        // (B / M, H) each sample's gradient wrt the hidden layer (float32: ppo_grad.c)
    float *hacc;      // (H / PPO_TILE, B / M, PPO_TILE) the minibatch's hidden sums by rows (ppo_parts.h)
    GradSum tail_sum; // (n,) the blocks' tail gradients summed exactly, at [tail, n) (the
                      // transport's shape; the W1 part is never written, never resident)
    float *gw1;       // (D, H) the minibatch's gradient of W1, float32: row rows.list[k] at k H
    double *gt;       // (n - tail) and of the tail
    RowSet rows;      // W1 rows the minibatch touched, ascending
    size_t *row_at;   // (D,) the rows' plan's cursor of each touched row (ppo_merge.c)
    size_t *row_off;  // (D + 1) row rows.list[k]'s entries: ent[row_off[k], row_off[k + 1])
    uint32_t *ent;    // (ent_cap) sample i of the minibatch with sign -1: 2 i + 1; +1: 2 i
    size_t ent_cap;
    double *rowsq;       // (D,) the squared norm of row rows.list[k] at k
    RowSet none;         // (empty) the rows of the ranks' exact sum: the tail alone
    double *block_stats; // (blocks, 6) each block's loss terms (PPO_BLOCK)
    Pool *pool;          // whose threads run the passes (ppo_bind)
    PpoThread *th;       // (threads,) their scratch
    PpoPlan *plan;       // the rows' plan's scratch, for the threads (ppo_merge.c)
    int threads;
    // the ranks (ppo_bind): this one plays envs [env0, env1) and computes its share of chunks
    Comm *comm;
    int env0, env1;
    ByteWriter wire; // this rank's part of the rollout, packed for the exchange
    size_t wire_cap;
    int64_t *x;           // (blocks * 6) the blocks' loss terms, as bits, summed over the ranks
    uint64_t digest;      // order-free digest of every weight its steps wrote (kept under MPI: the ranks compare it)
    uint64_t *digests;    // (threads,)
    ArrayBlocks mem;      // where the arrays of ppo.c's tables live: ppo_make's
    ArrayBlocks bind_mem; // and ppo_bind's
    char why[256];        // what the last failed phase said
    PpoStats last;
} Ppo;

// A fresh learner of cfg's settings (cfg->env_id's envs): weights from the seed, every env
// reset to its episode 0. NULL with a line in err (bad settings, out of memory).
Ppo *ppo_create(const TrainConfig *cfg, char *err, size_t errlen);
void ppo_destroy(Ppo *p);
void ppo_free(void *p); // ppo_destroy, for the learner glue that holds it as a void * (learner_util.h)
// The pool whose threads run its passes (pool_for_fixed), scratch for each, and the ranks it plays
// with (comm; NULL: this process alone); before the first iteration, and again if either
// changes. 0, or -1 (out of memory).
int ppo_bind(Ppo *p, Pool *pool, Comm *comm);

// The network playing outside training (eval, record, watch), as a rollout plays: the same
// input (the previous frame zeros on an episode's first step) and, sampling, the same draw;
// greedy: the most likely action. *p_up: the probability of RIGHT (up).
AgentPolicy ppo_agent_policy(const Ppo *p, bool greedy);
// The learner's Ppo in a run's state (TrainState.algo of an --algo ppo run).
Ppo *ppo_of(const TrainState *s);

// The envs' state (episode counters, games with their random streams, previous frames) as
// ppo_envs_doubles() float64s, for a checkpoint; load returns -1 for values no save writes.
size_t ppo_envs_doubles(const Ppo *p);
void ppo_envs_save(const Ppo *p, double *out);
int ppo_envs_load(Ppo *p, const double *in);

// One iteration: rollout, advantages, update. 0, or -1 with a line in err.
int ppo_iteration(Ppo *p, PpoStats *st, char *err, size_t errlen);
// Every env's repeat-action probability as --sticky-warmup has it after agent_steps agent steps
// (the env's own once the warm-up is over). An env's state holds it, so a checkpoint's envs are
// restored into envs set for the checkpoint's agent steps.
void ppo_sticky_set(Ppo *p, int64_t agent_steps);

// ----------------------------------------------------------------------------
// The phases, for tests (ppo_iteration is these in order)

// Plays T steps of every env (under MPI: of this rank's envs, then the ranks exchange theirs);
// fills the rollout arrays, next_value and ended. 0, or -1 with a line in p->why.
int ppo_collect(Ppo *p);
// GAE(gamma, lambda) as CleanRL: adv and ret = adv + value.
void ppo_advantages(Ppo *p);
// One minibatch's update: the gradient of minibatch mb (M sample indices), divided by M, into
// p->gw1 (row p->rows.list[k] at k H, rows ascending) and p->gt (kept after the step);
// then its global norm (into *norm, before clipping) clipped and one Adam step at lr. The minibatch's loss terms into sums (6 doubles: policy loss, value
// loss, entropy, approx kl, clip fraction, as means; the sixth unused). -1 with a line in p->why
// and no step taken (the gradient diverged; the ranks could not be reached).
int ppo_minibatch_update(Ppo *p, const int32_t *mb, int M, double lr, double *sums, double *norm);
// The sample's input.
SparseX ppo_sample_x(const Ppo *p, int s);

// Adam's moment m (which = 0) or v (1) in the network's layout (acnet.h), float64: W1's part
// widened (exact), for a checkpoint or a test. narrow: the way back, W1's part rounded to
// float32; 0, or -1 with the moment unchanged (a value past float32's range).
void ppo_moment_widen(const Ppo *p, int which, double *out);
int ppo_moment_narrow(Ppo *p, int which, const double *in);

#endif
