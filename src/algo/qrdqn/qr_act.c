// qr_act.c: QR-DQN's network acting outside training (eval, record, watch: rl/agent.h), greedy
// (the action of the largest mean quantile) or epsilon-greedy with epsilon 0.001 (as Dopamine
// evaluates).
#include "qrdqn.h"


// The step's one uniform draw u serves both: u < eps explores, and then u / eps is uniform in
// [0, 1) and picks the action.
static int qr_act_probs(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *probs) {
    (void)x;
    const Qr *q = ap->net;
    uint16_t idx[SPARSE_INPUT_MAX], lit[POLICY_D], lit_prev[POLICY_D];
    int8_t sign[SPARSE_INPUT_MAX];
    // sparse_input's entries from the two frames' lit pixels (as qr_envs.c's rollout)
    const int nc = sparse_lit(cur, lit), np = prev ? sparse_lit(prev, lit_prev) : 0;
    const int nnz = sparse_input_lit(lit, nc, lit_prev, np, true, idx, sign);
    qr_forward(&q->sh, q->w, (SparseX){ nnz, idx, sign }, h, h + q->sh.H);
    const int best = qr_greedy(&q->sh, h + q->sh.H, NULL);
    // the probabilities are the sampling agent's, greedy or not (as PPO's are its softmax)
    for (int a = 0; a < QR_ACTIONS; a++) probs[a] = QR_EVAL_EPS / QR_ACTIONS + (a == best ? 1.0 - QR_EVAL_EPS : 0.0);
    int a = best;
    if (!ap->greedy && u < QR_EVAL_EPS) {
        a = (int)(u / QR_EVAL_EPS * QR_ACTIONS);
        if (a >= QR_ACTIONS) a = QR_ACTIONS - 1;
    }
    return QR_ACTION_ID[a];
}

static int qr_act(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *p_up) {
    double probs[QR_ACTIONS];
    const int a = qr_act_probs(ap, x, cur, prev, u, h, probs);
    *p_up = probs[1]; // RIGHT: the paddle up
    return a;
}

AgentPolicy qr_agent_policy(const Qr *q, bool greedy) {
    return (AgentPolicy){ qr_act, q, q->sh.H + q->sh.A * q->sh.N, greedy, qr_act_probs, QR_ACTION_ID, QR_ACTIONS };
}
