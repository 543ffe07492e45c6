// ppo_parts.h: what the files of PPO share among themselves (ppo.h is what the rest of pongrl
// calls): the threads' scratch of the update, the optimiser's step, the envs' stepping and the
// ranks' exchange, each defined in the file of its job.
#ifndef PONGRL_PPO_PARTS_H
#define PONGRL_PPO_PARTS_H

#include "ppo.h"

#include "../../util/mem.h"

#define PPO_N_STATS 6                // a chunk's loss terms (ppo_minibatch_grad)

// ----------------------------------------------------------------------------
// per-thread scratch of the update (ppo_grad.c)

struct PpoThread {
    double *g;               // (n,) float64 gradient of the current chunk: its rows in `crows`, the tail
    RowSet crows;            // W1 rows of the current chunk
    uint8_t *fresh;          // (D,) per non-zero of a sample: its row is new to the chunk
    GradSum acc;             // exact sum of this thread's chunks: on `used` and the tail
    RowSet used;
    bool tail_used;
    double *h, *dh;          // (H,)
    int bad;
};

int ppo_thread_alloc(PpoThread *t, const AcNet *net);    // 0, or -1 (out of memory)
void ppo_thread_free(PpoThread *t);

// The update's loops walk W1's rows at scattered places (15 MB arrays at H = 128): each loop
// asks for the rows MEM_AHEAD_ROWS turns before their own (util/mem.h; a hint, no value changes).
static inline void ppo_prefetch_sum_row(GradSum *acc, const double *g, size_t off, size_t H) {
    mem_prefetch(g + off, sizeof(double) * H);
    mem_prefetch_w(acc->hi + off, sizeof(int64_t) * H);
    mem_prefetch_w(acc->lo + off, sizeof(int64_t) * H);
}

// The threads' exact sums of a minibatch of M samples into p->g (times 1/M) on p->rows
// (ascending) and the tail; under MPI the ranks' total, with the chunks' loss terms in
// p->chunk_stats summed over the ranks (ppo_merge.c). 0; 1: a sum passed 2^31 (diverged); -1:
// the ranks could not be reached (p->why says so).
int ppo_merge(Ppo *p, int M, int chunks);

// ----------------------------------------------------------------------------
// the rollout's envs (ppo_envs.c) and inputs (ppo_inputs.c)

// Every env at its episode 0. 0, or -1 (out of memory).
int ppo_envs_start(Ppo *p);
// Env e's step t with action index a: reward, end and, when the episode ended, its record in
// p->ended_slot and the env's next episode started (autoreset).
void ppo_env_step(Ppo *p, int e, int t, int a);
// Room for `need` input entries of env e. 0, or -1 (out of memory).
int ppo_reserve_inputs(Ppo *p, int e, size_t need);
// Every rank's envs to every rank (ppo_wire.c): then each holds the whole rollout and every
// env's state. 0, or -1 with a line in p->why.
int ppo_exchange(Ppo *p);

// ----------------------------------------------------------------------------
// Adam (ppo_adam.c), as torch.optim.Adam (eps outside the square root, bias corrections at
// step t >= 1):
//   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
//   w -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// One step's constants (adam_step: the bias corrections, once a step rather than once a row),
// then adam_update on each range the step moves.
typedef struct {
    double beta1, beta2, eps;
    double step;      // lr / (1 - b1^t)
    double bc2;       // sqrt(1 - b2^t)
} AdamStep;
AdamStep adam_step(double lr, double beta1, double beta2, double eps, int64_t t);
void adam_update(double *w, double *m, double *v, const double *g, size_t n, const AdamStep *s);

#endif
