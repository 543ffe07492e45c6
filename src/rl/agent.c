// agent.c: the agent's step (agent.h).
#include "agent.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

// ----------------------------------------------------------------------------
// the input: the difference of two binary frames

// A 64-bit mask of the pixels that differ in the block of 64 at b0 (bit k: pixel b0 + k).
static inline uint64_t diff_mask64(const uint8_t *cur, const uint8_t *prev, int b0) {
#if defined(__AVX512BW__)
    return _mm512_cmpneq_epi8_mask(_mm512_loadu_si512(cur + b0), _mm512_loadu_si512(prev + b0));
#elif defined(__AVX2__)
    uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
        _mm256_loadu_si256((const __m256i *)(cur + b0)), _mm256_loadu_si256((const __m256i *)(prev + b0))));
    uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
        _mm256_loadu_si256((const __m256i *)(cur + b0 + 32)), _mm256_loadu_si256((const __m256i *)(prev + b0 + 32))));
    return ~((uint64_t)hi << 32 | lo);
#elif defined(__SSE2__)
    uint64_t m = 0;
    for (int q = 0; q < 4; q++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(cur + b0 + 16 * q));
        __m128i b = _mm_loadu_si128((const __m128i *)(prev + b0 + 16 * q));
        m |= (uint64_t)(uint16_t)~_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) << (16 * q);
    }
    return m;
#else
    uint64_t m = 0;
    for (int k = 0; k < 64; k++) m |= (uint64_t)(cur[b0 + k] != prev[b0 + k]) << k;
    return m;
#endif
}

int agent_diff(const uint8_t *cur, const uint8_t *prev, uint16_t *idx, int8_t *sign) {
    int nz = 0;
    // A difference frame is ~99% zeros: one compare a block of 64 pixels, then a visit to each
    // pixel that differs, in order
    for (int b0 = 0; b0 < POLICY_D; b0 += 64)
        for (uint64_t m = diff_mask64(cur, prev, b0); m; m &= m - 1) {
            int k = b0 + __builtin_ctzll(m);
            idx[nz] = (uint16_t)k;
            sign[nz] = (int8_t)((int)cur[k] - (int)prev[k]);
            nz++;
        }
    return nz;
}

// ----------------------------------------------------------------------------
// the step

void agent_reset(Agent *a, Env *env, uint64_t env_seed, uint64_t act_seed) {
    a->env = env;
    rng_seed(&a->rng, act_seed);
    env_reset(env, env_seed);
    a->cur = 0;
    a->have_prev = false;
}

int agent_step(Agent *a, const AgentPolicy *ap, AgentInput *in, double *h, double *p_up, EnvStep *out) {
    uint8_t *cur = a->obs[a->cur], *prev = a->obs[a->cur ^ 1];
    env_render_obs80(a->env, cur);
    // x = cur_x - prev_x, or zeros on the first step
    const bool had_prev = a->have_prev;
    in->nnz = had_prev ? agent_diff(cur, prev, in->idx, in->sign) : 0;
    a->have_prev = true;
    a->cur ^= 1;
    double u = rng_uniform(&a->rng);
    int action = ap->act(ap, (SparseX){ in->nnz, in->idx, in->sign }, cur, had_prev ? prev : NULL, u, h, p_up);
    env_step(a->env, action, out); // cannot fail: a valid action, the episode not over
    return action;
}
