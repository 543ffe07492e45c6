// ppo_rollout.c: one rollout: every env plays T steps with the current weights (the pool's
// threads share the envs; under MPI this rank plays its range of them, then the ranks exchange
// what they played), keeping each step's sparse input, action, log-probability, value, reward
// and end, and the value of each env's state after the rollout.
#include "ppo_parts.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/rng.h"
#include "ppo_streams.h"

typedef struct {
    Ppo *p;
    atomic_int bad;
} CollectJob;

// This rank's envs, shared among the threads: each plays T steps of its envs.
static void collect_part(void *ctx, int part, int parts) {
    CollectJob *job = ctx;
    Ppo *p = job->p;
    const int T = p->cfg.steps, A = PPO_ACTIONS, e0 = p->env0, n = p->env1 - p->env0;
    PpoThread *th = &p->th[part];
    uint8_t cur[POLICY_D];
    // the lit pixels of the frame at hand (lit[c]) and of the previous one (lit[!c]): the input
    // from them (sparse_input_lit) is ppo_input's, without scanning the previous frame again
    // and building its coarse view at every step
    uint16_t lit[2][POLICY_D];
    int nlit[2];
    double logits[ACNET_A_MAX], logp[ACNET_A_MAX];
    int lo, hi;
    part_range(n, part, parts, &lo, &hi);
    for (int e = e0 + lo; e < e0 + hi; e++) {
        PpoEnv *v = &p->envs[e];
        uint32_t *off = p->xoff + (size_t)e * (T + 1);
        Rng rng;
        rng_seed(&rng, stream_ppo_act(p->cfg.seed, (uint64_t)p->iteration, (uint64_t)e));
        v->frames = 0;
        off[0] = 0;
        int c = 0;
        nlit[1] = sparse_lit(v->prev, lit[1]); // as the last rollout, a load or the ranks' exchange left it
        for (int t = 0; t <= T; t++) {
            // the state's input (at t = T: the state after the rollout, for its value)
            if (ppo_reserve_inputs(p, e, (size_t)off[t] + (size_t)p->net.D)) {
                atomic_store(&job->bad, 1);
                return;
            }
            uint16_t *idx = p->xidx[e] + off[t];
            int8_t *sign = p->xsign[e] + off[t];
            env_render_obs80(vecenv_env(p->venv, e), cur);
            nlit[c] = sparse_lit(cur, lit[c]);
            const int nnz = sparse_input_lit(lit[c], nlit[c], lit[!c], nlit[!c], p->cfg.coarse, idx, sign);
            if (t == T) {
                // (the next rollout starts from the same state and recomputes it)
                p->next_value[e] = acnet_forward(&p->net, (SparseX){ nnz, idx, sign }, th->h, logits);
                break;
            }
            off[t + 1] = off[t] + (uint32_t)nnz;
            const size_t s = (size_t)e * T + t;
            p->value[s] = acnet_forward(&p->net, (SparseX){ nnz, idx, sign }, th->h, logits);
            acnet_log_softmax(logits, A, logp);
            int a = ppo_sample_action(logp, A, rng_uniform(&rng));
            p->action[s] = (uint8_t)a;
            p->logp[s] = logp[a];
            memcpy(v->prev, cur, POLICY_D);
            ppo_env_step(p, e, t, a);
            if (p->done[s]) nlit[c] = 0; // the next episode's first frame: the previous one is zeros
            c = !c;
        }
    }
}

int ppo_collect(Ppo *p) {
    const int N = p->cfg.envs, T = p->cfg.steps;
    CollectJob job = { p, 0 };
    memset(p->done, 0, (size_t)N * T);
    pool_for_fixed(p->pool, collect_part, &job);
    if (atomic_load(&job.bad)) {
        snprintf(p->why, sizeof(p->why), "out of memory");
        return -1;
    }
    if (p->comm && p->comm->size > 1 && ppo_exchange(p)) return -1;
    // episodes in (t, env) order, whoever played them
    p->n_ended = 0;
    for (int t = 0; t < T; t++)
        for (int e = 0; e < N; e++)
            if (p->done[(size_t)e * T + t]) p->ended[p->n_ended++] = p->ended_slot[(size_t)e * T + t];
    p->agent_steps += (int64_t)N * T;
    p->episodes += p->n_ended;
    p->frames = 0;
    for (int e = 0; e < N; e++) p->frames += p->envs[e].frames;
    return 0;
}
