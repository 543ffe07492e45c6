// ppo_policy.c: the network's side of acting: the draw of an action from its output, and the
// network playing outside training (eval, record, watch) exactly as a rollout plays (its input
// is rl/sparse_input.h's).
#include "ppo.h"

#include <math.h>

const int PPO_ACTION_ID[PPO_ACTIONS] = { ACTION_NOOP, ACTION_RIGHT, ACTION_LEFT };

// ----------------------------------------------------------------------------
// the action

int ppo_sample_action(const double *logp, int A, double u) {
    double c = 0.0;
    for (int a = 0; a < A - 1; a++) {
        c += exp(logp[a]);
        if (u < c) return a;
    }
    return A - 1;
}

// ----------------------------------------------------------------------------
// acting outside training (eval, record, watch: rl/agent.h), as a rollout does

static int ppo_act_probs(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *probs) {
    (void)x;
    const Ppo *p = ap->net;
    uint16_t idx[ACNET_D + 2 * PPO_COARSE];
    int8_t sign[ACNET_D + 2 * PPO_COARSE];
    double logits[ACNET_A_MAX], logp[ACNET_A_MAX];
    // ppo_input's entries from the two frames' lit pixels, as a rollout builds them
    uint16_t lit[POLICY_D], lit_prev[POLICY_D];
    const int nc = sparse_lit(cur, lit), np = prev ? sparse_lit(prev, lit_prev) : 0;
    const int nnz = sparse_input_lit(lit, nc, lit_prev, np, p->cfg.coarse, idx, sign);
    acnet_forward(&p->net, (SparseX){ nnz, idx, sign }, h, logits);
    acnet_log_softmax(logits, PPO_ACTIONS, logp);
    int a = 0;
    if (ap->greedy) {
        for (int k = 1; k < PPO_ACTIONS; k++)
            if (logp[k] > logp[a]) a = k;
    } else
        a = ppo_sample_action(logp, PPO_ACTIONS, u);
    for (int k = 0; k < PPO_ACTIONS; k++) probs[k] = exp(logp[k]);
    return PPO_ACTION_ID[a];
}

static int ppo_act(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *p_up) {
    double probs[PPO_ACTIONS];
    int a = ppo_act_probs(ap, x, cur, prev, u, h, probs);
    *p_up = probs[1]; // RIGHT: the paddle up
    return a;
}

AgentPolicy ppo_agent_policy(const Ppo *p, bool greedy) {
    return (AgentPolicy){ ppo_act, p, p->net.H, greedy, ppo_act_probs, PPO_ACTION_ID, PPO_ACTIONS };
}
