// ppo_streams.h: PPO's random streams, under util/streams.h's one rule (run seed, indices,
// word). The words and their places are those PPO's streams have always had.
#ifndef PONGRL_PPO_STREAMS_H
#define PONGRL_PPO_STREAMS_H

#include <stdint.h>

#include "../../util/streams.h"

typedef enum {
    STREAM_PPO_ENV = 0x70706f65,  // "ppoe": env e, episode j (its vector env's word)
    STREAM_PPO_ACT = 0x70706f61,  // "ppoa": env e, action sampling in iteration i
    STREAM_PPO_PERM = 0x70706f70, // "ppop": the minibatch shuffle of iteration i
    STREAM_PPO_INIT = 0x70706f77, // "ppow": the initial weights
} PpoStreamKey;

// Its keys, for PPO_LEARNER.streams (ppo_learner.c).
extern const StreamDecl PPO_STREAMS[];

static inline uint64_t stream_ppo_act(uint64_t seed, uint64_t iteration, uint64_t env) {
    return rng_key(seed, iteration, env, STREAM_PPO_ACT);
}
static inline uint64_t stream_ppo_perm(uint64_t seed, uint64_t iteration, uint64_t epoch) {
    return rng_key(seed, iteration, epoch, STREAM_PPO_PERM);
}
static inline uint64_t stream_ppo_init(uint64_t seed) { return rng_key(seed, 0, 0, STREAM_PPO_INIT); }

#endif
