// qr_streams.h: QR-DQN's random streams, under util/streams.h's one rule (run seed, indices,
// word). The words and their places are those QR-DQN's streams have always had.
#ifndef PONGRL_QR_STREAMS_H
#define PONGRL_QR_STREAMS_H

#include <stdint.h>

#include "../../util/streams.h"

typedef enum {
    STREAM_QR_ENV = 0x71726465,   // "qrde": env e, episode j (its vector env's word)
    STREAM_QR_ACT = 0x71726461,   // "qrda": env e, epsilon-greedy draws in iteration i
    STREAM_QR_BATCH = 0x71726462, // "qrdb": the minibatch of update u
    STREAM_QR_INIT = 0x71726477,  // "qrdw": the initial weights
} QrStreamKey;

// Its keys, for QRDQN_LEARNER.streams (qr_learner.c).
extern const StreamDecl QR_STREAMS[];

static inline uint64_t stream_qr_act(uint64_t seed, uint64_t iteration, uint64_t env) {
    return rng_key(seed, iteration, env, STREAM_QR_ACT);
}
static inline uint64_t stream_qr_batch(uint64_t seed, uint64_t update) {
    return rng_key(seed, update, 0, STREAM_QR_BATCH);
}
static inline uint64_t stream_qr_init(uint64_t seed) { return rng_key(seed, 0, 0, STREAM_QR_INIT); }

#endif
