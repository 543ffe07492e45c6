// ppo_gae.c: the advantages and returns of a rollout, GAE(gamma, lambda) as CleanRL computes
// them: done[t] cuts the bootstrap from step t to t + 1, and the value after the rollout
// bootstraps its last step.
#include "ppo.h"

void ppo_advantages(Ppo *p) {
    const int N = p->cfg.envs, T = p->cfg.steps;
    const double gamma = p->cfg.gamma, lambda = p->cfg.lambda;
    for (int e = 0; e < N; e++) {
        const size_t s0 = (size_t)e * T;
        double last = 0.0;
        for (int t = T - 1; t >= 0; t--) {
            const size_t s = s0 + t;
            const double nonterminal = p->done[s] ? 0.0 : 1.0;
            const double next = t == T - 1 ? p->next_value[e] : p->value[s + 1];
            const double delta = p->reward[s] + gamma * next * nonterminal - p->value[s];
            last = delta + gamma * lambda * nonterminal * last;
            p->adv[s] = last;
            p->ret[s] = last + p->value[s];
        }
    }
}
