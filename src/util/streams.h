// streams.h: the one rule of pongrl's random streams, and the keys every part shares. A stream
// is rng_key (rng.h) of four words: the run's seed, then indices (iteration, episode, env) and
// one purpose word (a key), so that no two streams can draw the same numbers. The shared keys
// are here; each learner declares its own in its folder (algo/<name>/*_streams.h) and lists
// them in its Learner table (train/learner.h's Learner.streams), and a unit test
// (test_streams.c) proves no two keys of the build collide. The words and their places are
// those the streams have always had (same seed, same bits): a new stream takes a new word,
// never a place of an existing one.
#ifndef PONGRL_STREAMS_H
#define PONGRL_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

// One key: its word (up to 4 ASCII bytes, the first in the high byte: "venv" is 0x76656e76),
// its name (those bytes), and whether a vector env (env/vecenv.h) may take it as the word of
// its episodes' seeds (rng_key(seed, env, episode, word)). A list of them ends with a zeroed one.
typedef struct {
    uint32_t word;
    const char *name;
    bool env_episode;
} StreamDecl;

// The shared keys.
typedef enum {
    STREAM_EVAL = 0x6576616c,   // "eval": eval, record and watch: game e's env and actions
    STREAM_VECENV = 0x76656e76, // "venv": the vector env's env i, episode j
    STREAM_ATARI = 0x61746172,  // "atar": an Atari-preprocessed env's sticky stream
} StreamKey;

static inline const StreamDecl *stream_shared(void) {
    static const StreamDecl shared[] = {
        { STREAM_EVAL, "eval", false },
        { STREAM_VECENV, "venv", true },
        { STREAM_ATARI, "atar", false },
        { 0, NULL, false },
    };
    return shared;
}

// Game e of eval, record and watch from --seed: its env (1) and its action draws (2).
static inline uint64_t stream_eval_env(uint64_t seed, int64_t e) { return rng_key(seed, STREAM_EVAL, (uint64_t)e, 1); }
static inline uint64_t stream_eval_act(uint64_t seed, int64_t e) { return rng_key(seed, STREAM_EVAL, (uint64_t)e, 2); }

// Env `env`'s episode `episode` of a vector of envs (env/vecenv.h), with the word its creator
// chose: STREAM_VECENV (the default) or a learner's own env word (declared env_episode in its
// list). A vector env refuses the other shared words, the only ones it knows; that a learner
// passes its own env word, not another of its words, is the learner's to keep (its words are
// its folder's, and no learner can name another's).
static inline bool stream_is_env_episode(uint32_t word) {
    for (const StreamDecl *d = stream_shared(); d->name; d++)
        if (d->word == word) return d->env_episode;
    return true;
}
static inline uint64_t stream_env_episode(uint64_t seed, uint64_t env, uint64_t episode, uint32_t word) {
    return rng_key(seed, env, episode, word);
}

// An Atari-preprocessed env: its sticky stream from the reset's seed, then its episode k's env.
static inline uint64_t stream_atari_sticky(uint64_t seed) { return rng_key(seed, 0, 0, STREAM_ATARI); }
static inline uint64_t stream_atari_episode(uint64_t sticky, uint64_t k) { return rng_key(sticky, k, 1, STREAM_ATARI); }

// The name a key's word spells (its bytes, the first in the high byte, leading zero bytes
// dropped), into out[5]; false when a byte after the first is zero or one is not printable.
static inline bool stream_word_name(uint32_t word, char *out) {
    int n = 0;
    for (int shift = 24; shift >= 0; shift -= 8) {
        unsigned c = (word >> shift) & 0xff;
        if (c == 0 && n == 0) continue;
        if (c < 0x21 || c > 0x7e) return false;
        out[n++] = (char)c;
    }
    out[n] = 0;
    return n > 0;
}

#endif
