// rollout.c: play one episode with the current weights and turn it into a gradient.
#include "rollout.h"
#include "../../util/arrays.h"
#include "../../util/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// trajectory storage (grows geometrically; a worker reuses it for every episode)

static int grow(void **p, size_t elem, size_t n) {
    void *q = realloc(*p, elem * n);
    if (!q) return -1;
    *p = q;
    return 0;
}

static int trajectory_reserve_steps(Trajectory *tr, int T) {
    if (T <= tr->cap) return 0;
    int cap = tr->cap ? tr->cap : 1024;
    while (cap < T) cap *= 2;
    if (grow((void **)&tr->h, sizeof(double) * tr->H, cap) || grow((void **)&tr->dlogp, sizeof(double), cap) ||
        grow((void **)&tr->reward, sizeof(double), cap) || grow((void **)&tr->adv, sizeof(double), cap) ||
        grow((void **)&tr->action, 1, cap) || grow((void **)&tr->xoff, sizeof(uint32_t), (size_t)cap + 1))
        return -1;
    tr->cap = cap;
    return 0;
}

static int trajectory_reserve_nz(Trajectory *tr, size_t nz) {
    if (nz <= tr->nz_cap) return 0;
    size_t cap = tr->nz_cap ? tr->nz_cap : 65536;
    while (cap < nz) cap *= 2;
    if (grow((void **)&tr->idx, sizeof(uint16_t), cap) || grow((void **)&tr->sign, 1, cap)) return -1;
    tr->nz_cap = cap;
    return 0;
}

static SparseX trajectory_x(const Trajectory *tr, int t) {
    return (SparseX){ (int)(tr->xoff[t + 1] - tr->xoff[t]), tr->idx + tr->xoff[t], tr->sign + tr->xoff[t] };
}

// A worker's arrays (util/arrays.h), one mapping: field, element type, length. Its trajectory
// grows with the episode (above), so it is not among them.
#define WORKER_ARRAYS(X) \
    X(grad, double, p->n) \
    X(dh, double, (size_t)p->H) \
    X(fresh, uint8_t, (size_t)p->D)

int worker_alloc(Worker *w, const Policy *p) {
    memset(w, 0, sizeof(*w));
    w->tr.H = p->H;
#define X(FIELD, TYPE, LEN) { sizeof(TYPE), (LEN), 0, NULL },
    ArraySpec spec[] = { WORKER_ARRAYS(X) };
#undef X
    if (arrays_make(spec, (int)(sizeof(spec) / sizeof(spec[0])), &w->mem) || rowset_alloc(&w->touched, p->D)) {
        worker_free(w);
        return -1;
    }
    int i = 0;
#define X(FIELD, TYPE, LEN) w->FIELD = (TYPE *)spec[i++].at;
    WORKER_ARRAYS(X)
#undef X
    return 0;
}

void worker_free(Worker *w) {
    Trajectory *tr = &w->tr;
    rowset_free(&w->touched);
    arrays_free(&w->mem);
    mem_free_all(tr->h, tr->dlogp, tr->reward, tr->adv, tr->action, tr->xoff, tr->idx, tr->sign);
}

// ----------------------------------------------------------------------------
// play

static const int PG_ACTIONS[2] = { ACTION_RIGHT, ACTION_LEFT };

// probs: (P(RIGHT), P(LEFT))
static int act_probs(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *probs) {
    (void)cur;
    (void)prev;
    double p = policy_forward(ap->net, x, h);
    probs[0] = p;
    probs[1] = 1.0 - p;
    return (ap->greedy ? p > 0.5 : u < p) ? ACTION_RIGHT : ACTION_LEFT; // 2 if u < p else 3
}

static int act(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *p_up) {
    double probs[2];
    int a = act_probs(ap, x, cur, prev, u, h, probs);
    *p_up = probs[0];
    return a;
}

AgentPolicy pg_agent_policy(const Policy *p, bool greedy) {
    return (AgentPolicy){ act, p, p->H, greedy, act_probs, PG_ACTIONS, 2 };
}

int rollout_play(Worker *w, const Policy *p, Env *env, uint64_t env_seed, uint64_t act_seed, EpisodeStats *st) {
    Trajectory *tr = &w->tr;
    const AgentPolicy ap = pg_agent_policy(p, false); // sampling, as the seed trains
    agent_reset(&w->agent, env, env_seed, act_seed);
    memset(st, 0, sizeof(*st));
    tr->T = 0;
    tr->nz = 0;
    if (trajectory_reserve_steps(tr, 1)) return -1;
    tr->xoff[0] = 0;
    for (;;) {
        int t = tr->T;
        if (trajectory_reserve_steps(tr, t + 1) || trajectory_reserve_nz(tr, tr->nz + POLICY_D)) return -1;
        AgentInput in = { tr->idx + tr->nz, tr->sign + tr->nz, 0 }; // the input goes on the trajectory
        double aprob;
        EnvStep s;
        int action = agent_step(&w->agent, &ap, &in, tr->h + (size_t)t * tr->H, &aprob, &s);
        tr->nz += (size_t)in.nnz;
        tr->xoff[t + 1] = (uint32_t)tr->nz;
        double y = action == ACTION_RIGHT ? 1.0 : 0.0; // the fake label
        tr->dlogp[t] = y - aprob;
        tr->action[t] = (uint8_t)action;
        tr->reward[t] = s.reward;
        tr->T = t + 1;
        st->reward_sum += s.reward;
        st->frames += s.frames;
        if (s.terminated || s.truncated) {
            st->truncated = s.truncated;
            break;
        }
    }
    st->steps = tr->T;
    return 0;
}

// ----------------------------------------------------------------------------
// returns and gradient

void discount_rewards(const double *r, double *out, int T, double gamma) {
    double running_add = 0.0;
    for (int t = T - 1; t >= 0; t--) {
        if (r[t] != 0.0) running_add = 0.0; // a point ended here: a game boundary
        running_add = running_add * gamma + r[t];
        out[t] = running_add;
    }
}

void standardize(double *x, int T) {
    if (T <= 0) return;
    double mean = 0.0;
    for (int t = 0; t < T; t++) mean += x[t];
    mean /= T;
    double var = 0.0;
    for (int t = 0; t < T; t++) {
        x[t] -= mean;
        var += x[t] * x[t];
    }
    double sd = sqrt(var / T);
    // The seed divides by np.std unconditionally: 0/0 = NaN when every return is equal. A
    // spread at rounding level (1e-12 of the mean) carries no signal either: leave it centred.
    if (sd > 1e-12 * fabs(mean))
        for (int t = 0; t < T; t++) x[t] /= sd;
}

int rollout_gradient(Worker *w, const Policy *p, double gamma) {
    Trajectory *tr = &w->tr;
    const int T = tr->T, H = p->H;
    double *adv = tr->adv;
    discount_rewards(tr->reward, adv, T, gamma);
    standardize(adv, T);
    // forget the rows the previous episode used: a row's first step here writes it (fresh)
    rowset_clear(&w->touched);
    memset(w->grad + (size_t)p->D * H, 0, sizeof(double) * H);
    for (int t = 0; t < T; t++) {
        SparseX x = trajectory_x(tr, t);
        for (int k = 0; k < x.nnz; k++) w->fresh[k] = rowset_add(&w->touched, x.idx[k]);
        tr->dlogp[t] *= adv[t]; // epdlogp *= discounted_epr
        policy_backward_step(p, x, tr->h + (size_t)t * H, tr->dlogp[t], w->grad, w->dh, w->fresh);
    }
    return 0;
}
