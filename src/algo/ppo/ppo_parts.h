// ppo_parts.h: what the files of PPO share among themselves (ppo.h is what the rest of pongrl
// calls): the threads' scratch of the update, the optimiser's step, the envs' stepping and the
// ranks' exchange, each defined in the file of its job.
#ifndef PONGRL_PPO_PARTS_H
#define PONGRL_PPO_PARTS_H

#include <stdatomic.h>

#include "ppo.h"

#include "../../rl/adam.h"
#include "../../util/mem.h"

#define PPO_N_STATS 6 // a block's loss terms (ppo_minibatch_update)
// Samples a block: the piece of the per-sample pass that a thread (and a rank) takes, and the
// samples whose tail gradients (b1, the heads) make one float64 partial sum before the exact
// sum. It fixes the tail's bits (a constant, not a setting); W1's rows do not depend on it.
#define PPO_BLOCK     8
#define PPO_ROW_PIECE 16 // W1 rows a piece of the rows' pass

// ----------------------------------------------------------------------------
// per-thread scratch (ppo_grad.c)

struct PpoThread {
    double *h;     // (PPO_BLOCK, H) the hidden layers of the samples at hand (the rollout's: one)
    double *dh;    // (H,) its gradient, before p->dh's rounding to float32
    double *gt;    // (n - tail) float64 tail gradient of the current block
    GradSum acc;   // (n - tail) exact sum of this thread's blocks' tails
    bool used;     // acc holds a block
    int bad;       // a block's sum passed 2^31
    int merge_bad; // this part's columns of the merged tails did
    int *pieces;   // (2 (D / PPO_ROW_PIECE + parts + 1)) the pieces of rows this thread summed, which it
    int npieces;   // then steps: piece i is rows [pieces[2 i], pieces[2 i + 1]) of p->rows.list
};

// (Its arrays are ppo_bind's: ppo.c's table.)

// The rows' plan's scratch (ppo_merge.c): the pool's parts each take a range of W1's rows, whole
// units of PPO_PLAN_ROWS rows (a multiple of 16), count its entries, then place them (a row's
// cursor in p->row_at). A unit's counts and list fill whole lines, so those lines are each one
// part's; p->ent's, p->row_at's and rows.in's are shared at a range's ends alone. On a minibatch at the defaults, units of 64 rows
// left the largest of 16 parts half as much again as the mean; of 32, 15% more.
#define PPO_PLAN_ROWS 32
typedef struct {
    _Alignas(MEM_PAD) size_t ents, ent_base; // the entries of the part's rows; those before them
    int rows, row_base;                      // the touched rows in the part's range; those before them
    atomic_int next;                         // the next piece of those rows to sum (ppo_rows_claim)
} PpoPlanPart;

typedef struct PpoPlan {
    int parts, units;  // the pool's parts; units of rows in D
    int *bound;        // (parts + 1) part s's rows: units [bound[s], bound[s + 1])
    size_t *unit_ents; // (units) the last plan's entries per unit: the next one's split
    uint32_t *cnt;     // (units x PPO_PLAN_ROWS) entries per row; zeros between plans
    uint16_t *list;    // (units x PPO_PLAN_ROWS) each range's touched rows, ascending, at its start
    PpoPlanPart *part; // (parts)
    int M;             // the minibatch's samples
    size_t total;      // and their entries
    int cap;           // samples the two below hold
    SparseX *xs;       // (cap) the minibatch's inputs
    uint16_t *cut;     // (parts, cap, 2) where each part's range starts and ends in each input
} PpoPlan;

// Its arrays are ppo_bind's (ppo.c's table), its inputs' and cuts' its own (they grow):
// init sets a plan of those arrays for parts parts of D rows; free frees what it grew.
void ppo_plan_init(PpoPlan *pl, int parts, int D);
void ppo_plan_free(PpoPlan *pl);

// The minibatch's W1 rows (ppo_merge.c): g_r = sum over its samples s with x_s[r] != 0 of
// x_s[r] dh_s, summed in sample order, the same bits whoever sums a row.
// p->rows: the rows the M samples of mb touch, ascending; each row's (sample, sign) list in
// sample order (p->ent, p->row_off): a counting sort by row, in steps around the pool's jobs
// (ppo_grad.c): begin (one thread: the inputs; 0, or -1 out of memory), count (every part of
// a job, its own range of rows), prefix (one thread), place (every part), end (one thread: the
// next plan's ranges).
int ppo_plan_begin(Ppo *p, const int32_t *mb, int M);
void ppo_plan_count(Ppo *p, int part);
void ppo_plan_prefix(Ppo *p);
void ppo_plan_place(Ppo *p, int part);
void ppo_plan_end(Ppo *p);
// Pieces of up to PPO_ROW_PIECE rows, claimed until none is left (every part of a job calls it):
// row p->rows.list[k]'s gradient times scale into p->gw1 at k H (float32), its squared norm into
// p->rowsq[k], from dh (M, H). Part `part` claims the pieces of its own range of the plan first
// (the rows whose entries it placed), then what is left of the others': the ranges move little
// from one minibatch to the next and a part runs on the same thread every time (pool_for_fixed), so a
// row's gradient, entries and Adam moments stay in one core's caches rather than passing between
// cores (its Adam step, ppo_adam_pieces, takes the same pieces). The pieces into th->pieces.
void ppo_rows_claim(Ppo *p, PpoThread *th, const float *dh, float scale, int part);

// The minibatch's hidden sums by rows rather than by samples: each part takes a range of tiles of
// PPO_TILE columns and walks the rows in ascending order, adding each row's tile to the running
// sums of the samples in its list (p->hacc, tile by tile: a tile's sums for 256 samples, 32 KB,
// stay in L1); a sample's sum gets its rows in ascending order, its input's order, so
// acnet_hidden's bits. A part reads its tiles of a row once a minibatch, not once for each of the
// row's samples, and no part reads the columns another part's Adam steps wrote. Used where it
// was measured faster (used: more than one thread, the tiles split evenly among them, one
// process): on one thread the samples' own sums (acnet_hidden) were 6% faster a step, on two
// these 7 to 10% (bench/scaling.py, 2-core Xeon). rows_hidden: sample i's hidden layer (b1
// added in float64), acnet_hidden's.
#define PPO_TILE 32
bool ppo_rows_forward_used(const Ppo *p);
void ppo_rows_forward(Ppo *p, int part, int parts);
void ppo_rows_hidden(const Ppo *p, int i, double *h);

// ----------------------------------------------------------------------------
// the rollout's envs (ppo_envs.c) and inputs (ppo_inputs.c)

// p->venv, every env at its episode 0. 0, or -1 (out of memory).
int ppo_envs_start(Ppo *p);
// Env e's step t with action index a: reward, end and, when the episode ended, its record in
// p->ended_slot and the env's next episode started (autoreset). Threads may step distinct envs.
void ppo_env_step(Ppo *p, int e, int t, int a);
// Env e's counters as the checkpoint and the ranks' exchange hold them: the episodes it
// started (its next episode's seed index), the running episode's return and length.
void ppo_env_counters(const Ppo *p, int e, int64_t *episodes, double *ep_return, int64_t *ep_len);
// Env e's game from its state (env_clone's bytes) and its counters as above. 0, or -1 (a state
// or a counter no save writes).
int ppo_env_set(Ppo *p, int e, const uint8_t *state, int64_t episodes, double ep_return, int64_t ep_len);
// Room for `need` input entries of env e. 0, or -1 (out of memory).
int ppo_reserve_inputs(Ppo *p, int e, size_t need);
// Every rank's envs to every rank (ppo_wire.c): then each holds the whole rollout and every
// env's state. 0, or -1 with a line in p->why.
int ppo_exchange(Ppo *p);

// ----------------------------------------------------------------------------
// the optimiser (ppo_adam.c): Adam, rl/adam.h

// The step's start (one thread, the gradient whole): p->adam_t + 1, the step at lr, and the
// clip of the global norm sqrt(sq) into *coef.
AdamStep ppo_adam_begin(Ppo *p, double lr, double sq, double *coef);
// The step of th's pieces of rows (ppo_rows_claim's), and of the tail if `tail`; the digest of
// what it wrote into p->digests[part] (under MPI: the ranks compare the sum).
void ppo_adam_pieces(Ppo *p, const PpoThread *th, const AdamStep *adam, double coef, bool tail, int part);

#endif
