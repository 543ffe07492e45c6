// ppo_policy.c: the network's side of acting: the input it reads (a state's sparse frame, its
// difference and their coarse views, beside the network of acnet.h), the draw of an action
// from its output, and the network playing outside training (eval, record, watch) exactly as
// a rollout plays.
#include "ppo.h"

#include <math.h>
#include <string.h>

const int PPO_ACTION_ID[PPO_ACTIONS] = { ACTION_NOOP, ACTION_RIGHT, ACTION_LEFT };

// ----------------------------------------------------------------------------
// the input

// The input of a state (ppo.h): the frame's pixels (+1), then at 6400 + k the difference
// cur - prev; with coarse views, then the coarse view of the frame (+1) and its difference from
// the previous frame's. The scans skip 64 zero (or unchanged) bytes at a time, then 8: ~99% of
// the 80x80 grid is zeros, and a scan of words alone was a tenth of a training run's time.
#define SPAN 64 // POLICY_D is a multiple
static inline bool span_zero(const uint8_t *a) {
    uint64_t w[SPAN / 8], o = 0;
    memcpy(w, a, SPAN);
    for (int k = 0; k < SPAN / 8; k++) o |= w[k];
    return !o;
}
static inline bool span_same(const uint8_t *a, const uint8_t *b) {
    uint64_t u[SPAN / 8], v[SPAN / 8], o = 0;
    memcpy(u, a, SPAN);
    memcpy(v, b, SPAN);
    for (int k = 0; k < SPAN / 8; k++) o |= u[k] ^ v[k];
    return !o;
}

static void coarse_view(const uint8_t *f, uint8_t *c) {
    memset(c, 0, PPO_COARSE);
    for (int b = 0; b < POLICY_D; b += 8) {
        if (b % SPAN == 0 && span_zero(f + b)) {
            b += SPAN - 8;
            continue;
        }
        uint64_t w;
        memcpy(&w, f + b, 8);
        if (!w) continue;
        for (int k = b; k < b + 8; k++) {
            if (!f[k]) continue;
            const int y = k / 80, x = k % 80;
            c[(y / PPO_POOL) * (80 / PPO_POOL) + x / PPO_POOL] = 1;
            c[PPO_COARSE_ROWS + (x / PPO_BAND) * 80 + y] = 1;
            c[PPO_COARSE_COLS + (y / PPO_BAND) * 80 + x] = 1;
        }
    }
}

int ppo_input(const uint8_t *cur, const uint8_t *prev, bool coarse, uint16_t *idx, int8_t *sign) {
    int n = 0;
    for (int b = 0; b < POLICY_D; b += 8) {
        if (b % SPAN == 0 && span_zero(cur + b)) {
            b += SPAN - 8;
            continue;
        }
        uint64_t c;
        memcpy(&c, cur + b, 8);
        if (!c) continue;
        for (int k = b; k < b + 8; k++)
            if (cur[k]) {
                idx[n] = (uint16_t)k;
                sign[n++] = 1;
            }
    }
    for (int b = 0; b < POLICY_D; b += 8) {
        if (b % SPAN == 0 && span_same(cur + b, prev + b)) {
            b += SPAN - 8;
            continue;
        }
        uint64_t c, q;
        memcpy(&c, cur + b, 8);
        memcpy(&q, prev + b, 8);
        if (c == q) continue;
        for (int k = b; k < b + 8; k++)
            if (cur[k] != prev[k]) {
                idx[n] = (uint16_t)(POLICY_D + k);
                sign[n++] = (int8_t)(cur[k] - prev[k]);
            }
    }
    if (!coarse) return n;
    uint8_t cc[PPO_COARSE], pc[PPO_COARSE];
    coarse_view(cur, cc);
    coarse_view(prev, pc);
    // 8 cells at a time, as the pixels (PPO_COARSE is a multiple of 8): most are zeros
    for (int b = 0; b < PPO_COARSE; b += 8) {
        uint64_t c;
        memcpy(&c, cc + b, 8);
        if (!c) continue;
        for (int k = b; k < b + 8; k++)
            if (cc[k]) {
                idx[n] = (uint16_t)(2 * POLICY_D + k);
                sign[n++] = 1;
            }
    }
    for (int b = 0; b < PPO_COARSE; b += 8) {
        uint64_t c, q;
        memcpy(&c, cc + b, 8);
        memcpy(&q, pc + b, 8);
        if (c == q) continue;
        for (int k = b; k < b + 8; k++)
            if (cc[k] != pc[k]) {
                idx[n] = (uint16_t)(2 * POLICY_D + PPO_COARSE + k);
                sign[n++] = (int8_t)(cc[k] - pc[k]);
            }
    }
    return n;
}

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
    static const uint8_t zeros[POLICY_D];
    uint16_t idx[ACNET_D + 2 * PPO_COARSE];
    int8_t sign[ACNET_D + 2 * PPO_COARSE];
    double logits[ACNET_A_MAX], logp[ACNET_A_MAX];
    const int nnz = ppo_input(cur, prev ? prev : zeros, p->cfg.coarse, idx, sign);
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
