// pg_streams.h: pg's random streams, under util/streams.h's one rule (run seed, indices, word).
// Episode k (counted from 0 over the whole run): its env's stream and its action sampling,
// from (run seed, k) alone, so any episode can be replayed exactly, whoever plays it. The words
// and their places are those pg's streams have always had.
#ifndef PONGRL_PG_STREAMS_H
#define PONGRL_PG_STREAMS_H

#include <stdint.h>

#include "../../util/streams.h"

typedef enum {
    STREAM_PG_EPISODE_ENV = 0x656e76, // "env":  episode k, its env (sticky actions, frameskip)
    STREAM_PG_EPISODE_ACT = 0x616374, // "act":  episode k, its action sampling
    STREAM_PG_INIT = 0x696e6974,      // "init": the initial weights
} PgStreamKey;

// Its keys, for PG_LEARNER.streams (pg.c).
extern const StreamDecl PG_STREAMS[];

static inline uint64_t episode_env_seed(uint64_t run_seed, int64_t k) {
    return rng_key(run_seed, 1, (uint64_t)k, STREAM_PG_EPISODE_ENV);
}
static inline uint64_t episode_act_seed(uint64_t run_seed, int64_t k) {
    return rng_key(run_seed, 2, (uint64_t)k, STREAM_PG_EPISODE_ACT);
}
static inline uint64_t stream_pg_init(uint64_t run_seed) { return rng_key(run_seed, STREAM_PG_INIT, 0, 0); }

#endif
