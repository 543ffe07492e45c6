// ppo_inputs.c: where a rollout keeps its sparse inputs: per env one growing array of the
// (index, sign) pairs of its steps, step t's at [xoff[e][t], xoff[e][t+1]); the rollout and the
// ranks' exchange fill them, the minibatches read sample s's.
#include "ppo_parts.h"

#include <stdlib.h>

SparseX ppo_sample_x(const Ppo *p, int s) {
    const int T = p->cfg.steps, e = s / T, t = s % T;
    const uint32_t *off = p->xoff + (size_t)e * (T + 1);
    return (SparseX){ (int)(off[t + 1] - off[t]), p->xidx[e] + off[t], p->xsign[e] + off[t] };
}

int ppo_reserve_inputs(Ppo *p, int e, size_t need) {
    if (need <= p->xcap[e]) return 0;
    size_t cap = p->xcap[e] ? p->xcap[e] : 16384;
    while (cap < need) cap *= 2;
    uint16_t *i = realloc(p->xidx[e], cap * sizeof(uint16_t));
    if (!i) return -1;
    p->xidx[e] = i;
    int8_t *s = realloc(p->xsign[e], cap);
    if (!s) return -1;
    p->xsign[e] = s;
    p->xcap[e] = cap;
    return 0;
}
