// ppo_adam.c: the optimiser: the minibatch gradient's global norm clipped, then one step of
// Adam. Adam on W1 is lazy (torch.optim.SparseAdam's rule): a step moves only the W1 rows its
// minibatch touched, and only their moments decay; the dense part (b1, the heads) gets
// torch.optim.Adam.
#include "ppo_parts.h"

#include <math.h>

#include "../../util/digest.h"

// ----------------------------------------------------------------------------
// Adam on a range (ppo_parts.h)

AdamStep adam_step(double lr, double beta1, double beta2, double eps, int64_t t) {
    return (AdamStep){ beta1, beta2, eps, lr / (1.0 - pow(beta1, (double)t)), 1.0 / sqrt(1.0 - pow(beta2, (double)t)) };
}

void adam_update(double *restrict w, double *restrict m, double *restrict v, const double *restrict g, size_t n,
    double coef, const AdamStep *s) {
    const double beta1 = s->beta1, beta2 = s->beta2, eps = s->eps, step = s->step, inv_bc2 = s->inv_bc2;
    for (size_t k = 0; k < n; k++) {
        const double gk = g[k] * coef; // (a product by 1.0 is exact: no clipping, no change)
        m[k] = beta1 * m[k] + (1.0 - beta1) * gk;
        v[k] = beta2 * v[k] + (1.0 - beta2) * (gk * gk);
        w[k] -= step * (m[k] / (sqrt(v[k]) * inv_bc2 + eps)); // a product, not torch's quotient: one division less
    }
}

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
    const int n = p->rows.n;
    const bool digest = p->comm && p->comm->size > 1; // only ranks compare it
    uint64_t d = 0;
    const int r1 = (int)((int64_t)n * (part + 1) / parts);
    for (int r = (int)((int64_t)n * part / parts); r < r1; r++) {
        if (r + MEM_AHEAD_ROWS < r1) {
            const size_t ahead = (size_t)p->rows.list[r + MEM_AHEAD_ROWS] * H;
            mem_prefetch_w(p->net.w + ahead, sizeof(double) * H);
            mem_prefetch_w(p->adam_m + ahead, sizeof(double) * H);
            mem_prefetch_w(p->adam_v + ahead, sizeof(double) * H);
        }
        const size_t off = (size_t)p->rows.list[r] * H;
        adam_update(p->net.w + off, p->adam_m + off, p->adam_v + off, p->g + (size_t)r * H, H, job->coef, &job->adam);
        if (digest) d += digest_range(p->net.w, off, H);
    }
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
