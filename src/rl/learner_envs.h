// learner_envs.h: a learner's N games as env/vecenv's vector of envs, caller-stepped (the pool's
// threads step their ranges of envs themselves, a forward pass between two steps of an env), and
// each env with the learner's previous 80x80 frame of it as float64s, the numbers a checkpoint's
// arrays hold. PPO's rollout and QR-DQN's envs are made, saved and loaded here.
//
// An env's record, ENV_RECORD_DOUBLES of them: the episodes the env started (one more than
// vecenv's index of the running one: the number PPO's checkpoints have always held), the running
// episode's return and length, then its state (vecenv_clone, with its random stream) and the
// previous frame as bytes, packed 4 to a double (little end first; exact, below 2^32). With the
// run's seed it is all it takes to go on with that env exactly.
#ifndef PONGRL_LEARNER_ENVS_H
#define PONGRL_LEARNER_ENVS_H

#include <stddef.h>
#include <stdint.h>

#include "../env/vecenv.h"
#include "agent.h"

#define ENV_RECORD_BYTES   (ENV_STATE_BYTES + POLICY_D)
#define ENV_RECORD_DOUBLES (3 + (ENV_RECORD_BYTES + 3) / 4)

// n envs of the preset env_id in the given mode and difficulty, with autoreset in the step
// (SAME_STEP), env e's episode j seeded from (seed, e, j) with the learner's env word
// (its Learner.streams), every env at its episode 0. NULL: out of memory, or a preset, flavour or word
// the run's checks let through by mistake.
VecEnv *learner_envs_create(const char *env_id, int n, int mode, int difficulty, uint32_t stream, uint64_t seed);

// Env e of v and its previous frame prev (POLICY_D bytes, each 0 or 1) into out.
void env_record_save(const VecEnv *v, int e, const uint8_t *prev, double *out);
// Env e of v (its game and counters) and prev from a record. 0, or -1 for a record no save
// writes (a number not an integer or out of range, a pixel other than 0 or 1, a state
// env_restore refuses); on -1 prev is untouched, the env may not be.
int env_record_load(VecEnv *v, int e, const double *in, uint8_t *prev);

// The records of envs 0..n-1 one after another, env e's previous frame at prev + e * stride
// (the previous frame's place in the learner's array of per-env structs, and their size).
void env_records_save(const VecEnv *v, int n, const uint8_t *prev, size_t stride, double *out);
int env_records_load(VecEnv *v, int n, const double *in, uint8_t *prev, size_t stride);

#endif
