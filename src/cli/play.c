// play.c: one agent step at a time, as rollout_play does it but keeping nothing for a gradient.
#include "play.h"

#include <stdlib.h>
#include <string.h>

int player_init(Player *pl, const Policy *p, const char *env_id, int mode, int difficulty, bool greedy) {
    memset(pl, 0, sizeof(*pl));
    if (env_init_flavour(&pl->env, env_id, mode, difficulty, 0) != ENV_OK) return -1;
    pl->h = malloc(sizeof(double) * (size_t)p->H);
    pl->greedy = greedy;
    return pl->h ? 0 : -1;
}

void player_free(Player *pl) {
    free(pl->h);
    pl->h = NULL;
}

void player_reset(Player *pl, uint64_t env_seed, uint64_t act_seed) {
    env_reset(&pl->env, env_seed);
    rng_seed(&pl->rng, act_seed);
    pl->cur = 0;
    pl->have_prev = false;
}

int player_step(Player *pl, const Policy *p, EnvStep *out) {
    uint8_t *cur = pl->obs[pl->cur], *prev = pl->obs[pl->cur ^ 1];
    env_render_obs80(&pl->env, cur);
    pl->nnz = 0;
    for (int i = 0; i < POLICY_D; i++) {
        int d = pl->have_prev ? (int)cur[i] - (int)prev[i] : 0;
        pl->x[i] = (int8_t)d;
        if (d) { pl->idx[pl->nnz] = (uint16_t)i; pl->sign[pl->nnz] = (int8_t)d; pl->nnz++; }
    }
    pl->have_prev = true;
    pl->cur ^= 1;
    double aprob = policy_forward(p, (SparseX){ pl->nnz, pl->idx, pl->sign }, pl->h);
    pl->last_p = aprob;
    // the draw is made in greedy mode too, so both modes walk the stream alike
    double u = rng_uniform(&pl->rng);
    int action = (pl->greedy ? aprob > 0.5 : u < aprob) ? ACTION_RIGHT : ACTION_LEFT;
    env_step(&pl->env, action, out);      // cannot fail: valid action, episode not over
    return action;
}

uint64_t play_env_seed(uint64_t seed, int64_t e) { return rng_key(seed, 0x6576616c /* "eval" */, (uint64_t)e, 1); }
uint64_t play_act_seed(uint64_t seed, int64_t e) { return rng_key(seed, 0x6576616c, (uint64_t)e, 2); }
