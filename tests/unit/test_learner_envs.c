// test_learner_envs.c: a learner's vector of envs (rl/learner_envs.h) seeds env e's episodes
// with the learner's word and plays the env env_init makes from that seed; an env's record
// (counters, state, previous frame) carried into a fresh vector made with the same seed goes on
// with the same steps, observations, ended episodes and next episodes' seeds; the record's
// layout is the one PPO's checkpoints hold (episodes started, return, length, then the bytes 4
// to a double); a record no save writes is refused and leaves the previous frame alone; the
// strided save and load of a learner's array are the single-env ones.
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rl/learner_envs.h"
#include "algo/ppo/ppo_streams.h"
#include "algo/qrdqn/qr_streams.h"
#include "util/streams.h"

#define LE_N     3
#define LE_STEPS 1400 // a random player's Pong episode is ~800 steps: every env ends one each half

typedef struct {
    uint8_t prev[POLICY_D];
    int64_t other; // a learner's own field between two frames: the stride is the struct's
} LeEnv;

static void steps(VecEnv *v, int t0, int t1, uint64_t action_seed, VecEnvStep *out, int *ends) {
    Rng r;
    rng_seed(&r, action_seed);
    for (int t = 0; t < t1; t++)
        for (int e = 0; e < LE_N; e++) {
            const int a = (int)rng_below(&r, ACTION_COUNT);
            if (t < t0) continue; // the actions of the steps already played, drawn again
            VecEnvStep *s = &out[(size_t)(t - t0) * LE_N + e];
            cr_assert_eq(vecenv_step_env(v, e, a, s), ENV_OK);
            if (s->terminated || s->truncated) ends[e]++;
        }
}

Test(learner_envs, a_record_carries_an_env_into_a_fresh_vector) {
    const uint64_t seed = 41;
    VecEnv *v = learner_envs_create("ALE/Pong-v5", LE_N, 0, 0, STREAM_QR_ENV, seed);
    cr_assert_not_null(v);
    for (int e = 0; e < LE_N; e++) { // episode 0 of (seed, e) with the learner's word
        Env ref;
        cr_assert_eq(env_init(&ref, "ALE/Pong-v5", rng_key(seed, (uint64_t)e, 0, STREAM_QR_ENV)), ENV_OK);
        uint8_t a[ENV_STATE_BYTES], b[ENV_STATE_BYTES];
        env_clone(&ref, true, a);
        cr_assert_eq(vecenv_clone(v, e, true, b), ENV_OK);
        cr_assert(memcmp(a, b, sizeof a) == 0, "env %d: not episode 0 of (seed, %d, \"qrde\")", e, e);
    }
    static VecEnvStep first[LE_STEPS * LE_N], a[LE_STEPS * LE_N], b[LE_STEPS * LE_N];
    int ends[LE_N] = { 0 }, later[LE_N] = { 0 }, later_b[LE_N] = { 0 };
    steps(v, 0, LE_STEPS, 9, first, ends);
    for (int e = 0; e < LE_N; e++) cr_assert_gt(ends[e], 0, "env %d ended no episode before the hand-over", e);

    // every env's record (with a previous frame of the learner's) into a fresh vector
    static LeEnv mine[LE_N], theirs[LE_N];
    for (int e = 0; e < LE_N; e++) env_render_obs80(vecenv_env(v, e), mine[e].prev);
    static double rec[LE_N * ENV_RECORD_DOUBLES], one[ENV_RECORD_DOUBLES];
    env_records_save(v, LE_N, (const uint8_t *)mine + offsetof(LeEnv, prev), sizeof(LeEnv), rec);
    for (int e = 0; e < LE_N; e++) { // the layout
        VecEnvCounters c;
        vecenv_env_counters(v, e, &c);
        env_record_save(v, e, mine[e].prev, one);
        cr_assert(memcmp(one, rec + (size_t)e * ENV_RECORD_DOUBLES, sizeof one) == 0, "env %d: strided save", e);
        cr_assert(one[0] == (double)(c.episode + 1) && one[1] == c.ep_return && one[2] == (double)c.ep_length,
            "env %d: the counters are not episodes started, return, length", e);
        uint8_t s[ENV_STATE_BYTES];
        vecenv_clone(v, e, true, s);
        cr_assert_eq(
            one[3], (double)((uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24));
    }
    VecEnv *w = learner_envs_create("ALE/Pong-v5", LE_N, 0, 0, STREAM_QR_ENV, seed);
    cr_assert_not_null(w);
    cr_assert_eq(env_records_load(w, LE_N, rec, (uint8_t *)theirs + offsetof(LeEnv, prev), sizeof(LeEnv)), 0);
    for (int e = 0; e < LE_N; e++) {
        cr_assert(memcmp(mine[e].prev, theirs[e].prev, POLICY_D) == 0, "env %d: previous frame", e);
        VecEnvCounters c, d;
        vecenv_env_counters(v, e, &c);
        vecenv_env_counters(w, e, &d);
        cr_assert(c.episode == d.episode && c.ep_return == d.ep_return && c.ep_length == d.ep_length, "env %d", e);
    }
    steps(v, LE_STEPS, 2 * LE_STEPS, 9, a, later);
    steps(w, LE_STEPS, 2 * LE_STEPS, 9, b, later_b);
    for (int e = 0; e < LE_N; e++) cr_assert_gt(later[e], 0, "env %d ended no episode after the hand-over", e);
    for (size_t k = 0; k < (size_t)LE_STEPS * LE_N; k++)
        cr_assert(memcmp(&a[k], &b[k], sizeof a[k]) == 0, "step %zu of env %zu: the carried env went another way",
            k / LE_N + LE_STEPS, k % LE_N);
    for (int e = 0; e < LE_N; e++) {
        uint8_t s[ENV_STATE_BYTES], t[ENV_STATE_BYTES];
        vecenv_clone(v, e, true, s);
        vecenv_clone(w, e, true, t);
        cr_assert(memcmp(s, t, sizeof s) == 0, "env %d: another state at the end", e);
    }
    vecenv_free(w);
    vecenv_free(v);
}

Test(learner_envs, a_record_no_save_writes_is_refused) {
    VecEnv *v = learner_envs_create("ALE/Pong-v5", 2, 1, 2, STREAM_PPO_ENV, 5);
    cr_assert_not_null(v);
    uint8_t prev[POLICY_D] = { 0 }, kept[POLICY_D];
    prev[100] = 1;
    static double good[ENV_RECORD_DOUBLES], bad[ENV_RECORD_DOUBLES];
    env_record_save(v, 1, prev, good);
    const size_t pix = 3 + ENV_STATE_BYTES / 4 + 10; // a word of the previous frame's bytes
    struct {
        size_t at;
        double value;
        const char *what;
    } cases[] = {
        { 0, 0.0, "no episode started" },
        { 0, 2.5, "a fraction of an episode" },
        { 1, 1e7, "a return no game scores" },
        { 1, NAN, "a return that is not a number" },
        { 2, -1.0, "a negative length" },
        { 2, 3.5, "a fraction of a step" },
        { 3, 4294967296.0, "a word of 33 bits" },
        { 3, 0.5, "a word that is not whole" },
        { 3, -1.0, "a negative word" },
        { pix, 2.0, "a pixel of 2" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(bad, good, sizeof bad);
        bad[cases[k].at] = cases[k].value;
        memset(kept, 7, sizeof kept);
        cr_assert_eq(env_record_load(v, 0, bad, kept), -1, "%s: not refused", cases[k].what);
        cr_assert_eq(kept[0], 7, "%s: the previous frame was written", cases[k].what);
    }
    cr_assert_eq(env_record_load(v, 0, good, kept), 0);
    cr_assert(memcmp(kept, prev, sizeof prev) == 0);
    // env 1's game (mode 1, difficulty 2) went to env 0
    uint8_t s[ENV_STATE_BYTES], t[ENV_STATE_BYTES];
    vecenv_clone(v, 0, true, s);
    vecenv_clone(v, 1, true, t);
    cr_assert(memcmp(s, t, sizeof s) == 0);
    vecenv_free(v);

    // the learners' env words; a shared word other than "venv" is refused
    VecEnv *q = learner_envs_create("ALE/Pong-v5", 1, 0, 0, STREAM_QR_ENV, 5);
    VecEnv *p = learner_envs_create("ALE/Pong-v5", 1, 0, 0, STREAM_PPO_ENV, 5);
    cr_assert(q && p);
    vecenv_clone(q, 0, true, s);
    vecenv_clone(p, 0, true, t);
    cr_assert(memcmp(s, t, sizeof s) != 0, "\"qrde\" and \"ppoe\": the same game");
    vecenv_free(q);
    vecenv_free(p);
    cr_assert_null(learner_envs_create("ALE/Pong-v5", 1, 0, 0, STREAM_EVAL, 5));
    cr_assert_null(learner_envs_create("Breakout-v5", 1, 0, 0, STREAM_QR_ENV, 5));
    cr_assert_null(learner_envs_create("ALE/Pong-v5", 1, 2, 0, STREAM_QR_ENV, 5));
}
