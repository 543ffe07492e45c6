// streams.h: every random stream of pongrl, in one list. A stream is rng_key (rng.h) of four
// words, one of them a purpose word below, so that no two streams can draw the same numbers;
// the functions say where each word goes. The words and their places are those the streams have
// always had (same seed, same bits): a new stream takes a new word here, never a place of an
// existing one.
#ifndef PONGRL_STREAMS_H
#define PONGRL_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

typedef enum {
    STREAM_EPISODE_ENV = 0x656e76, // "env":  pg's episode k, its env (sticky actions, frameskip)
    STREAM_EPISODE_ACT = 0x616374, // "act":  pg's episode k, its action sampling
    STREAM_PG_INIT = 0x696e6974,   // "init": pg's initial weights
    STREAM_EVAL = 0x6576616c,      // "eval": eval, record and watch: game e's env and actions
    STREAM_VECENV = 0x76656e76,    // "venv": the vector env's env i, episode j
    STREAM_ATARI = 0x61746172,     // "atar": an Atari-preprocessed env's sticky stream
    STREAM_PPO_ENV = 0x70706f65,   // "ppoe": ppo's env e, episode j
    STREAM_PPO_ACT = 0x70706f61,   // "ppoa": ppo's env e, action sampling in iteration i
    STREAM_PPO_PERM = 0x70706f70,  // "ppop": ppo's minibatch shuffle of iteration i
    STREAM_PPO_INIT = 0x70706f77,  // "ppow": ppo's initial weights
    STREAM_QR_ENV = 0x71726465,    // "qrde": qrdqn's env e, episode j
    STREAM_QR_ACT = 0x71726461,    // "qrda": qrdqn's env e, epsilon-greedy draws in iteration i
    STREAM_QR_BATCH = 0x71726462,  // "qrdb": qrdqn's minibatch of update u
    STREAM_QR_INIT = 0x71726477,   // "qrdw": qrdqn's initial weights
} StreamKey;

// Its name; a word listed twice is a compile error here (duplicate case value).
static inline const char *stream_name(StreamKey k) {
    switch (k) {
        case STREAM_EPISODE_ENV: return "env";
        case STREAM_EPISODE_ACT: return "act";
        case STREAM_PG_INIT: return "init";
        case STREAM_EVAL: return "eval";
        case STREAM_VECENV: return "venv";
        case STREAM_ATARI: return "atar";
        case STREAM_PPO_ENV: return "ppoe";
        case STREAM_PPO_ACT: return "ppoa";
        case STREAM_PPO_PERM: return "ppop";
        case STREAM_PPO_INIT: return "ppow";
        case STREAM_QR_ENV: return "qrde";
        case STREAM_QR_ACT: return "qrda";
        case STREAM_QR_BATCH: return "qrdb";
        case STREAM_QR_INIT: return "qrdw";
    }
    return "?";
}

// Episode k (counted from 0 over the whole run) of a whole-episode learner: its env's stream and
// its action sampling, from (run seed, k) alone, so any episode can be replayed exactly,
// whoever plays it.
static inline uint64_t episode_env_seed(uint64_t run_seed, int64_t k) {
    return rng_key(run_seed, 1, (uint64_t)k, STREAM_EPISODE_ENV);
}
static inline uint64_t episode_act_seed(uint64_t run_seed, int64_t k) {
    return rng_key(run_seed, 2, (uint64_t)k, STREAM_EPISODE_ACT);
}
static inline uint64_t stream_pg_init(uint64_t run_seed) { return rng_key(run_seed, STREAM_PG_INIT, 0, 0); }
// Game e of eval, record and watch from --seed: its env (1) and its action draws (2).
static inline uint64_t stream_eval_env(uint64_t seed, int64_t e) { return rng_key(seed, STREAM_EVAL, (uint64_t)e, 1); }
static inline uint64_t stream_eval_act(uint64_t seed, int64_t e) { return rng_key(seed, STREAM_EVAL, (uint64_t)e, 2); }
// Env `env`'s episode `episode` of a vector of envs (env/vecenv.h), with the word its creator
// chose: STREAM_VECENV (the default), STREAM_PPO_ENV (PPO's rollout) or STREAM_QR_ENV (QR-DQN's
// envs), the words of this place.
static inline bool stream_is_env_episode(uint32_t word) {
    return word == STREAM_VECENV || word == STREAM_PPO_ENV || word == STREAM_QR_ENV;
}
static inline uint64_t stream_env_episode(uint64_t seed, uint64_t env, uint64_t episode, StreamKey word) {
    return rng_key(seed, env, episode, word);
}
// An Atari-preprocessed env: its sticky stream from the reset's seed, then its episode k's env.
static inline uint64_t stream_atari_sticky(uint64_t seed) { return rng_key(seed, 0, 0, STREAM_ATARI); }
static inline uint64_t stream_atari_episode(uint64_t sticky, uint64_t k) { return rng_key(sticky, k, 1, STREAM_ATARI); }
static inline uint64_t stream_ppo_act(uint64_t seed, uint64_t iteration, uint64_t env) {
    return rng_key(seed, iteration, env, STREAM_PPO_ACT);
}
static inline uint64_t stream_ppo_perm(uint64_t seed, uint64_t iteration, uint64_t epoch) {
    return rng_key(seed, iteration, epoch, STREAM_PPO_PERM);
}
static inline uint64_t stream_ppo_init(uint64_t seed) { return rng_key(seed, 0, 0, STREAM_PPO_INIT); }
static inline uint64_t stream_qr_act(uint64_t seed, uint64_t iteration, uint64_t env) {
    return rng_key(seed, iteration, env, STREAM_QR_ACT);
}
static inline uint64_t stream_qr_batch(uint64_t seed, uint64_t update) {
    return rng_key(seed, update, 0, STREAM_QR_BATCH);
}
static inline uint64_t stream_qr_init(uint64_t seed) { return rng_key(seed, 0, 0, STREAM_QR_INIT); }

#endif
