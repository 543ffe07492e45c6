// update.c: the learner's RMSProp step over the touched rows, and its digest (update.h).
#include "update.h"

#include <string.h>

// A sum of hashes of (position, bits): the same whatever the order the rows come in.
static uint64_t digest_range(const double *w, size_t off, size_t len) {
    uint64_t d = 0;
    for (size_t k = 0; k < len; k++) {
        uint64_t x;
        memcpy(&x, &w[off + k], sizeof(x));
        x ^= (off + k) * 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        d += x ^ (x >> 31);
    }
    return d;
}

// The update of W1 rows rows->list[a .. b) and its digest. The gradient is g's packed rows or,
// where g is NULL, the sum's rows converted here (into scratch, H entries: one pass instead of
// a conversion pass and an update pass).
static uint64_t update_rows(TrainState *s, const double *g, const GradSum *sum, const RowSet *rows, int a,
                            int b, double *scratch) {
    Policy *p = &s->policy;
    const size_t H = (size_t)p->H;
    const double lr = s->cfg.lr, decay = s->cfg.decay;
    uint64_t d = 0;
    for (int r = a; r < b; r++) {
        const int i = rows->list[r];
        const size_t off = (size_t)i * H;
        const double *gr = g ? g + (size_t)r * H : scratch;
        if (!g) gradsum_to_double_range(sum, scratch, off, H);
        rmsprop_decay(s->cache + off, H, s->iteration - s->cache_at[i], decay);
        rmsprop_update(p->w + off, s->cache + off, gr, H, lr, decay);
        s->cache_at[i] = s->iteration + 1;
        d += digest_range(p->w, off, H);
    }
    return d;
}

static uint64_t update_w2(TrainState *s, const double *g, const GradSum *sum, const RowSet *rows, double *scratch) {
    Policy *p = &s->policy;
    const size_t H = (size_t)p->H, w2 = (size_t)p->D * H;
    const double *gr = g ? g + (size_t)rows->n * H : scratch;
    if (!g) gradsum_to_double_range(sum, scratch, w2, H);
    rmsprop_update(p->w + w2, s->cache + w2, gr, H, s->cfg.lr, s->cfg.decay);
    return digest_range(p->w, w2, H);
}

void update_apply(TrainState *s, const double *g, const RowSet *rows) {
    s->digest += update_rows(s, g, NULL, rows, 0, rows->n, NULL) + update_w2(s, g, NULL, rows, NULL);
}

// A share of the rows for each of the pool's threads (the digest is a sum: the same whatever
// the split).
typedef struct {
    TrainState *s;
    const double *g;
    const GradSum *sum;
    const RowSet *rows;
    double *scratch;          // (parts x H)
    uint64_t *digest;         // (parts,)
} Update;

static void update_part(void *ctx, int part, int parts) {
    Update *u = ctx;
    const int n = u->rows->n;
    double *scratch = u->scratch + (size_t)part * (size_t)u->s->policy.H;
    uint64_t d = update_rows(u->s, u->g, u->sum, u->rows, (int)((int64_t)n * part / parts),
                             (int)((int64_t)n * (part + 1) / parts), scratch);
    if (part == parts - 1) d += update_w2(u->s, u->g, u->sum, u->rows, scratch);
    u->digest[part] = d;
}

void update_apply_pool(TrainState *s, Pool *pool, const double *g, const GradSum *sum, const RowSet *rows,
                       double *scratch, uint64_t *digests) {
    Update up = { s, g, sum, rows, scratch, digests };
    pool_for(pool, update_part, &up);
    for (int k = 0; k < pool_threads(pool); k++) s->digest += digests[k];
}
