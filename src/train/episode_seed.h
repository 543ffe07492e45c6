// episode_seed.h: the random streams of episode k (counted from 0 over the whole run) of a
// run: the env's (sticky actions, random frameskip) and the agent's action sampling. They
// derive from (run seed, k) alone, so any episode can be replayed exactly, whoever plays it.
#ifndef PONGRL_EPISODE_SEED_H
#define PONGRL_EPISODE_SEED_H

#include <stdint.h>

#include "../util/rng.h"

static inline uint64_t episode_env_seed(uint64_t run_seed, int64_t k) { return rng_key(run_seed, 1, (uint64_t)k, 0x656e76); }
static inline uint64_t episode_act_seed(uint64_t run_seed, int64_t k) { return rng_key(run_seed, 2, (uint64_t)k, 0x616374); }

#endif
