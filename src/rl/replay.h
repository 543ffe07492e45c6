// replay.h: a replay memory of sparse frames, for any learner that learns from stored
// transitions (QR-DQN's; an IQN's or a CNN's alike). Each slot keeps a transition's 80x80 binary
// frame as its lit pixels (a few dozen uint16 indices of the grid: ~140 bytes rather than
// 12,800), its action, reward and flags. Two rings: the slots, and the pool of their pixels; a
// slot is gone when the ring of slots passes it or when the pool overwrites its pixels.
//
// A learner that writes its N envs' steps of a round in env order gets the layout the helpers
// below assume: slot k is env k % N's step k / N, so the same env's previous step is k - N and
// its n-th next k + n N (stride N).
#ifndef PONGRL_REPLAY_H
#define PONGRL_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent.h"

// What an env's step left: the action (the learner's index of it), the reward, flags, and the
// episode it ended, if it did.
typedef struct {
    uint8_t action, flags; // flags: REPLAY_DONE, REPLAY_START
    int8_t reward;
    bool ended; // an episode ended: its return and length
    double ret;
    int64_t len;
} Transition;
#define REPLAY_DONE  1 // the episode ended with this step's action (no bootstrap past it)
#define REPLAY_START 2 // this step's frame is an episode's first

typedef struct {
    int64_t cap, pool_cap;
    int actions;   // the learner's action count: a loaded action is below it
    uint64_t *off; // (cap) where slot k's pixels start in the pool, counted over the run
    uint16_t *count;
    uint8_t *action, *flags;
    int8_t *reward;
    uint16_t *pool;      // (pool_cap)
    int64_t total;       // slots written
    uint64_t pool_total; // pixels written
    int64_t oldest;      // the oldest slot whose pixels are all there
} Replay;

// cap slots, pool_cap pixels (room for pool_cap / cap lit pixels a slot on average), actions
// below `actions` (at most 256). 0, or -1 (out of memory: free it all the same).
int replay_alloc(Replay *r, int64_t cap, int64_t pool_cap, int actions);
void replay_free(Replay *r);
// Slot r->total: frame (binary 80x80) and t's action, flags and reward.
void replay_put(Replay *r, const uint8_t *frame, const Transition *t);

// Slot k's place in the arrays (k counted over the run).
static inline size_t replay_slot(const Replay *r, int64_t k) { return (size_t)(k % r->cap); }
// Slot k's frame (binary 80x80) into out.
void replay_frame(const Replay *r, int64_t k, uint8_t *out);
// Slot k's lit pixels, ascending, into out (room for POLICY_D); returns their count.
int replay_lit(const Replay *r, int64_t k, uint16_t *out);
// The sparse input (rl/sparse_input.h, coarse views or not) of slot k's state: its frame after
// the previous one of its env, slot k - stride, or after nothing where k starts an episode; into
// idx/sign, with cur and prev room for POLICY_D pixels each. Returns the count.
int replay_state_input(const Replay *r, int64_t k, int64_t stride, bool coarse, uint16_t *cur, uint16_t *prev,
    uint16_t *idx, int8_t *sign);
// The n-step return of slot k: *R = sum_m gamma^m r_{k + m stride} over m < n, stopping after
// the step that ends the episode, and *disc = gamma^(the steps summed). True when the episode
// ended within them (no bootstrap).
bool replay_nstep(const Replay *r, int64_t k, int64_t stride, int n, double gamma, double *R, double *disc);
// n slots drawn uniformly from those with `before` slots kept before them and `after` written
// after them (a state's previous step and its n-th next), with one Rng seeded from key:
// slots[b] = lo + rng_below(hi - lo + 1) in draw order. False when there is none.
bool replay_draw(const Replay *r, int64_t before, int64_t after, uint64_t key, int n, int64_t *slots);

// Its state as float64s (replay_doubles of them), and back into one of the same capacities;
// load: -1 for values no save writes.
size_t replay_doubles(const Replay *r);
void replay_save(const Replay *r, double *out);
int replay_load(Replay *r, const double *in);

#endif
