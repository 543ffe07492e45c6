// ppo_adam.c: the optimiser: the minibatch gradient's global norm clipped, then one step of
// Adam. Adam on W1 is lazy (torch.optim.SparseAdam's rule): a step moves only the W1 rows its
// minibatch touched, and only their moments decay; the dense part (b1, the heads) gets
// torch.optim.Adam.
#include "ppo_parts.h"

#include <math.h>

#include "../../util/digest.h"

// ----------------------------------------------------------------------------
// clip the global norm, then a step on the rows the minibatch touched and the tail

typedef struct {
    Ppo *p;
    AdamStep adam;
    double coef;
} StepJob;

// The rows' share of this part (rows.list[k]'s gradient packed at g[k H]), then the tail.
static void adam_part(void *ctx, int part, int parts) {
    StepJob *job = ctx;
    Ppo *p = job->p;
    const size_t H = (size_t)p->net.H;
    const bool digest = p->comm && p->comm->size > 1; // only ranks compare it
    uint64_t d = 0;
    int r0, r1;
    part_range(p->rows.n, part, parts, &r0, &r1);
    adam_rows(p->net.w, p->adam_m, p->adam_v, p->g + (size_t)r0 * H, p->rows.list + r0, r1 - r0, H, 0, H, job->coef,
        &job->adam);
    if (digest)
        for (int r = r0; r < r1; r++) d += digest_range(p->net.w, (size_t)p->rows.list[r] * H, H);
    if (part == parts - 1) {
        const size_t off = p->net.tail, len = p->net.n - p->net.tail;
        adam_update(p->net.w + off, p->adam_m + off, p->adam_v + off, p->g + off, len, job->coef, &job->adam);
        if (digest) d += digest_range(p->net.w, off, len);
    }
    p->digests[part] = d;
}

double ppo_step(Ppo *p, double lr) {
    p->adam_t++;
    StepJob job = { p, adam_step(lr, PPO_ADAM_BETA1, PPO_ADAM_BETA2, PPO_ADAM_EPS, p->adam_t), 1.0 };
    // the norm (ppo_minibatch_grad): rows in ascending order, then the tail (torch sums per
    // parameter, then the norms' squares; the difference is rounding)
    const double norm = sqrt(p->gsq);
    const double coef = p->cfg.max_grad_norm / (norm + PPO_NORM_EPS);
    job.coef = coef < 1.0 ? coef : 1.0;
    pool_for(p->pool, adam_part, &job);
    for (int i = 0; i < p->threads; i++) p->digest += p->digests[i];
    return norm;
}
