// qrdqn.h: QR-DQN (Dabney et al. 2017, "Distributional Reinforcement Learning with Quantile
// Regression") as Dopamine runs it on Atari, on the exact game, with an MLP on the sparse input
// of rl/sparse_input.h (the frame, its difference and their coarse views):
//
//   x (D = 14,880) sparse -> h = relu(W1' x + b1) (H,) -> q = W2 h + b2 (A x N)
//
// q[a N + i] is the i-th of N quantiles (at tau_i = (2i + 1) / 2N) of action a's return; the
// action's value is their mean. A = 3: NOOP, up, down (as PPO's actions).
//
// One iteration: T rounds; in each, every one of N envs takes one epsilon-greedy step with the
// current weights, the N transitions go into the replay memory in env order, then the updates
// that fall due (one every --update-every agent steps once --learn-start have been played) run,
// each a step of Adam on the quantile Huber loss (kappa 1) of a minibatch drawn uniformly from
// the memory, against n-step targets R + gamma^n q'(s', a*), a* the argmax of the target
// network's mean quantiles; the target network takes the weights every --target-every updates.
// Adam on W1 is lazy (torch.optim.SparseAdam's rule): an update moves only the rows its
// minibatch's inputs touch. Epsilon is 1 until --learn-start, then falls linearly to
// --eps-final over --eps-steps agent steps (Dopamine's linearly_decaying_epsilon).
//
// Same seed, same bits: env e's episode j is seeded from (run seed, e, j), its draws in
// iteration i from (run seed, i, e), update u's minibatch from (run seed, u); the pool's threads
// share the envs by fixed ranges, an update's transitions too, and the columns of its gradient
// (each column summed in sample order). Update u's place in the run, Adam's step count and the
// target's copies follow from the run's agent steps.
//
// The replay memory (rl/replay.h) keeps each transition's frame as its lit pixels (a few dozen
// uint16 indices of the 80x80 grid), its action, reward and flags; slot k is env k % N's step
// k / N, so the same env's previous step is k - N and its n-th next k + n N, and a state's input
// is rebuilt from its frame and the previous one.
//
// The files, one job each: qrdqn.c (an iteration, memory), qr_envs.c (its epsilon-greedy step of
// the games of rl/train_envs.h, and under MPI their exchange, packed by rl/wire.h), qr_net.c
// (the network), qr_update.c (the loss, its gradient and Adam), qr_learner.c (QR-DQN behind
// train/learner.h, its npy files), qr_act.c (acting outside training).
#ifndef PONGRL_QRDQN_H
#define PONGRL_QRDQN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../env/env.h"
#include "../../env/vecenv.h"
#include "../../rl/agent.h"
#include "../../rl/replay.h"
#include "../../rl/sparse_input.h"
#include "../../rl/train_envs.h"
#include "../../train/comm.h"
#include "../../train/config.h"
#include "../../train/learner.h"
#include "../../train/pool.h"
#include "../../train/state.h"
#include "../../util/arrays.h"
#include "../../util/rng.h"

#define QR_ACTIONS    3   // NOOP, RIGHT (up), LEFT (down)
#define QR_KAPPA      1.0 // the Huber loss's threshold
#define QR_ADAM_BETA1 0.9 // Dopamine's (and torch's) defaults
#define QR_ADAM_BETA2 0.999
#define QR_INIT_NNZ   40.0  // W1 ~ randn / sqrt(40): ~40 inputs are non-zero a frame
#define QR_LIT_SLOT   64    // the replay's pixel pool: room for this many lit pixels a slot on average
#define QR_EVAL_EPS   0.001 // epsilon of the sampled agent (eval, record, watch), as Dopamine evaluates

extern const int QR_ACTION_ID[QR_ACTIONS]; // the env action of each output
extern const Learner QRDQN_LEARNER;

// The network: W1 (D, H) | b1 (H) | W2 (A N, H) | b2 (A N), float64, one array.
typedef struct {
    int D, H, A, N;
    size_t n, tail; // all entries; the offset of b1
} QrShape;
QrShape qr_shape(const TrainConfig *c);
// Weights from the seed: W1 ~ randn / sqrt(40), W2 ~ randn / sqrt(H), biases zero.
void qr_net_init(const QrShape *sh, double *w, uint64_t seed);
// The dot product of a and b (n,): QR_LANES sums, lane l of the entries j with j % 8 = l, in
// order, then added pairwise ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)): fixed bits that a
// vector unit computes at once (a sum in one order is bound by the adder's latency).
#define QR_LANES 8
double qr_dot(const double *a, const double *b, int n);
// h (H,) after the ReLU, q (A N,).
void qr_forward(const QrShape *sh, const double *w, SparseX x, double *h, double *q);
// The rest of it from h = W1' x + b1 (H,): the ReLU (in place) and q (A N,).
void qr_output(const QrShape *sh, const double *w, double *h, double *q);
// The same for S states h[s] into q[s] at once (the same bits as one at a time).
void qr_outputs(const QrShape *sh, const double *w, int S, double *const *h, double *const *q);
// The greedy action: the first with the largest mean quantile; *mean: that mean.
int qr_greedy(const QrShape *sh, const double *q, double *mean);

typedef struct {
    double loss, mean_q; // sums over the iteration's updates
    int64_t updates;
} QrStats;

// Rows of W1 that a minibatch's inputs touch, ascending, and for each, the (transition, sign)
// entries that hold it, in transition order: row rows[k]'s at [start[k], start[k + 1]).
typedef struct {
    int n;
    uint16_t *rows; // (D,)
    int32_t *start; // (D + 1,)
    uint16_t *b;    // (B SPARSE_INPUT_MAX,)
    int8_t *sign;   // (B SPARSE_INPUT_MAX,)
    int32_t *slot;  // (D,) a row's place in rows (only while the lists are built)
    uint64_t *bits; // (D / 64 rounded up) zeros: a bitmap of the rows (only while the lists are built)
} QrRows;
// The update's rows' gradients are summed this many at a time into a thread's own buffer
// (th_g), then stepped, while the buffer is in the core's first cache.
#define QR_ROW_CHUNK 16

// Its arrays, one row each (util/arrays.h): the field, its element type, its length (of z, the
// sizes qr_make computes) and its block (role), one mapping each. They are made and freed with
// the object and never grow; what grows during a run stays outside: the replay memory
// (rl/replay.h, sized by --replay), the envs' games (rl/train_envs.h) and the MPI exchange's
// wire (grown by wire_reserve to each round's packed size).
enum { QR_WEIGHTS, QR_TARGET, QR_MOMENTS, QR_ROUNDS, QR_UPDATE };
#define QR_ARRAYS(X) \
    X(w, double, z.n, QR_WEIGHTS) \
    X(target, double, z.n, QR_TARGET) \
    X(adam_m, double, z.n, QR_MOMENTS) \
    X(adam_v, double, z.n, QR_MOMENTS) \
    X(ended, EpisodeStats, z.NT, QR_ROUNDS) \
    X(g, double, z.gn, QR_UPDATE) \
    X(on.rows, uint16_t, z.D, QR_UPDATE) \
    X(on.start, int32_t, z.D + 1, QR_UPDATE) \
    X(on.b, uint16_t, z.X, QR_UPDATE) \
    X(on.sign, int8_t, z.X, QR_UPDATE) \
    X(on.slot, int32_t, z.D, QR_UPDATE) \
    X(on.bits, uint64_t, z.words, QR_UPDATE) \
    X(tg.rows, uint16_t, z.D, QR_UPDATE) \
    X(tg.start, int32_t, z.D + 1, QR_UPDATE) \
    X(tg.b, uint16_t, z.X, QR_UPDATE) \
    X(tg.sign, int8_t, z.X, QR_UPDATE) \
    X(tg.slot, int32_t, z.D, QR_UPDATE) \
    X(tg.bits, uint64_t, z.words, QR_UPDATE) \
    X(batch, int64_t, z.B, QR_UPDATE) \
    X(act, uint8_t, z.B, QR_UPDATE) \
    X(by_act, int, z.B, QR_UPDATE) \
    X(xs_idx, uint16_t, z.X, QR_UPDATE) \
    X(xs_sign, int8_t, z.X, QR_UPDATE) \
    X(xs_nnz, int, z.B, QR_UPDATE) \
    X(xt_idx, uint16_t, z.X, QR_UPDATE) \
    X(xt_sign, int8_t, z.X, QR_UPDATE) \
    X(xt_nnz, int, z.B, QR_UPDATE) \
    X(hs, double, z.BH, QR_UPDATE) \
    X(ht, double, z.BH, QR_UPDATE) \
    X(dhs, double, z.BH, QR_UPDATE) \
    X(dqs, double, z.BN, QR_UPDATE) \
    X(tgts, double, z.BN, QR_UPDATE) \
    X(terms, double, z.B2, QR_UPDATE) \
    X(ret, double, z.B2, QR_UPDATE) \
    X(qs, double, z.BQ, QR_UPDATE) \
    X(qt, double, z.BQ, QR_UPDATE)
// What qr_bind makes for a pool of n threads, in one block: each thread's rows on lines of their
// own (strides th_hs, th_qs, th_ls: no cache line shared by two threads).
#define QR_BIND_ARRAYS(X) \
    X(th_h, double, z.h) \
    X(th_q, double, z.q) \
    X(th_g, double, z.g) \
    X(th_lit, uint16_t, z.lit)

typedef struct Qr {
    TrainConfig cfg;
    QrShape sh;
    double *w, *target, *adam_m, *adam_v; // (n,) each
    TrainEnvs te;                         // (N,) the games and each one's frames, draws and step (qr_envs.c)
    Replay mem;                           // the replay memory (rl/replay.h)
    int64_t iteration, agent_steps;       // the run's counters, before the iteration
    double eps;                           // this round's epsilon
    // the update's scratch (qr_update.c)
    double *g;      // (n - tail,) the tail's gradient: b1, W2, b2
    QrRows on, tg;  // the rows of the states (online) and of the states n steps on (target)
    int64_t *batch; // (B) the last update's slots, in draw order
    uint8_t *act;   // (B) their actions
    int *by_act;    // (B) the transitions of action a at [act_start[a], act_start[a + 1]), in order
    int act_start[QR_ACTIONS + 1];
    uint16_t *xs_idx, *xt_idx;        // (B, SPARSE_INPUT_MAX) each transition's input, its n-th next state's
    int8_t *xs_sign, *xt_sign;        // (B, SPARSE_INPUT_MAX)
    int *xs_nnz, *xt_nnz;             // (B) (xt: -1 where the episode ended within n steps)
    size_t hp;                        // H rounded up to MEM_PAD bytes: the stride of hs, ht, dhs
    double *hs, *ht, *dhs;            // (B, hp) the hidden layers (online, target), dL/dh
    double *dqs, *tgts, *terms, *ret; // (B, N), (B, N), (B, 2), (B, 2): dL/dq, targets, loss and mean q, R and gamma^n
    double *qs, *qt;                  // (B, qp) the outputs (online, target)
    size_t qp;                        // A N rounded up to MEM_PAD bytes
    // the threads' scratch (qr_bind)
    Pool *pool;
    int threads;
    Comm *comm; // the ranks (NULL: this process alone); this one plays envs [env0, env1)
    int env0, env1;
    uint8_t *wire; // this rank's part of an exchange
    size_t wire_cap;
    double *th_h, *th_q;        // (threads, th_hs), (threads, th_qs): each thread's H and A N
    double *th_g;               // (threads, QR_ROW_CHUNK th_hs) each thread's rows of the gradient
    uint16_t *th_lit;           // (threads, th_ls) each thread's lit pixels of two frames (qr_update.c)
    size_t th_hs, th_qs, th_ls; // H, A N and 2 POLICY_D rounded up to MEM_PAD bytes
    ArrayBlocks arrays;         // QR_ARRAYS' blocks
    ArrayBlocks bind_arrays;    // QR_BIND_ARRAYS'
    QrStats stats;
    EpisodeStats *ended; // (N T) this iteration's finished episodes, (round, env) order
    int n_ended;
} Qr;

const char *qr_check(const TrainConfig *c);
Qr *qr_create(const TrainConfig *c, char *err, size_t errlen);
void qr_destroy(Qr *q);
void qr_free(void *q); // qr_destroy, for the learner glue that holds it as a void * (learner_util.h)
// The pool whose threads play its envs and the ranks it plays with (NULL: alone): this rank's
// range of the envs. 0, or -1 (out of memory).
int qr_bind(Qr *q, Pool *pool, Comm *comm);
// One iteration (the counters set): T rounds of play and the updates due. 0, or -1 with err.
int qr_iteration(Qr *q, char *err, size_t errlen);

// The updates done after s agent steps.
int64_t qr_updates_at(const TrainConfig *c, int64_t s);
// The epsilon of a round that starts after s agent steps.
double qr_epsilon(const TrainConfig *c, int64_t s);

// The envs (qr_envs.c): q->te, every env at its episode 0 (0, or -1: out of memory); a round's
// step of env e (its draws from q->te.rng[e]; threads may step distinct envs).
int qr_envs_start(Qr *q);
void qr_env_step(Qr *q, int e, double *h, double *qv);
// Under MPI (qr_envs.c): the round's steps of every rank's envs (their actions, rewards, flags,
// ended episodes and frames) to every rank, and, after the last round, every env's state and
// frames played. 0, or -1 with a line in err.
int qr_exchange_round(Qr *q, char *err, size_t errlen);
int qr_exchange_envs(Qr *q, char *err, size_t errlen);

// Update u (1-based): a minibatch from its stream, the loss's gradient, a step of Adam. 1, or 0
// when the memory holds no transition to draw (nothing done).
int qr_update(Qr *q, int64_t u);
// Update u's minibatch (cfg.minibatch slots, drawn uniformly from the slots that have their
// previous and n-th next step) into slots; false when there is none.
bool qr_draw(const Qr *q, int64_t u, int64_t *slots);
// One transition's loss and its gradient wrt q[a N ..] (dq, N): the online quantiles qa (N),
// the targets (N, already R + gamma^n q'), for the NumPy reference as for the update.
double qr_quantile_loss(const double *qa, const double *tgt, int N, double *dq);

// The learner's Qr in a run's state (TrainState.algo of an --algo qrdqn run).
Qr *qr_of(const TrainState *s);
// The network acting outside training (eval, record, watch; qr_act.c): greedy on the mean
// quantiles, or epsilon-greedy with epsilon QR_EVAL_EPS; valid while q is.
AgentPolicy qr_agent_policy(const Qr *q, bool greedy);

#endif
