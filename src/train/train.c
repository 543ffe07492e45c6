// train.c: the iteration loop: weights out, a batch of episodes played, gradients summed,
// RMSProp, the caller told.
#include "train.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "update.h"

// ----------------------------------------------------------------------------
// stop requests (signal handlers may only touch a lock-free atomic)

static atomic_int stop_flag;
void train_request_stop(void) { atomic_store(&stop_flag, 1); }
bool train_stop_requested(void) { return atomic_load(&stop_flag) != 0; }

// ----------------------------------------------------------------------------
// the loop

static bool should_stop(const TrainState *s) {
    const TrainConfig *c = &s->cfg;
    if (train_stop_requested()) return true;
    if (c->iterations >= 0 && s->iteration >= c->iterations) return true;
    if (c->has_target && s->episodes > 0 && s->running_reward >= c->target_reward) return true;
    return false;
}

// Fold a batch into the counters; the running mean is taken in episode-index order.
static void account_batch(TrainState *s, const EpisodeStats *stats, int count, TrainBatch *b) {
    double rsum = 0, lsum = 0;
    b->steps = 0;
    for (int i = 0; i < count; i++) {
        double r = stats[i].reward_sum;
        s->running_reward = s->episodes == 0 ? r : s->running_reward * TRAIN_RUNNING_DECAY + r * (1.0 - TRAIN_RUNNING_DECAY);
        s->episodes++;
        s->agent_steps += stats[i].steps;
        s->frames += stats[i].frames;
        b->steps += stats[i].steps;
        rsum += r;
        lsum += stats[i].steps;
    }
    b->batch_mean = rsum / count;
    b->mean_len = lsum / count;
}

int train_run(TrainState *s, Pool *pool, Comm *comm, const TrainHooks *hooks, char *err, size_t errlen) {
    const int B = s->cfg.batch_size;
    const bool learner = comm->rank == 0;
    const bool call = learner && hooks && hooks->on_iteration;
    EpisodeStats *stats = calloc((size_t)B, sizeof(EpisodeStats));
    RowSet rows = {0};
    const int parts = pool_threads(pool);
    double *scratch = calloc((size_t)parts * (size_t)s->policy.H, sizeof(double));
    uint64_t *digests = calloc((size_t)parts, sizeof(uint64_t));
    int rc = -1;
    if (!stats || !scratch || !digests || train_state_defer(s) || rowset_alloc(&rows, s->policy.D)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (;;) {
        bool stop = learner && should_stop(s);
        if (comm->begin(comm, &s->policy, &stop)) { snprintf(err, errlen, "lost contact with the other ranks"); goto out; }
        if (stop) break;
        double t0 = clock_now_s();
        int64_t first = s->episodes;
        memset(stats, 0, sizeof(EpisodeStats) * (size_t)B);
        EpisodeSource *src = comm->source(comm, first, B);
        const GradSum *sum;
        if (pool_play(pool, &s->policy, s->cfg.seed, s->cfg.gamma, src, first, B, stats, &sum, &rows, err, errlen))
            goto out;
        const double *g;
        if (comm->end(comm, pool, sum, &rows, stats, B, &g, err, errlen)) goto out;
        TrainBatch b;
        account_batch(s, stats, B, &b);
        update_apply_pool(s, pool, g, sum, &rows, scratch, digests);
        s->iteration++;
        b.secs = clock_now_s() - t0;
        s->wall_s += b.secs;
        if (call && hooks->on_iteration(s, &b, false, hooks->ctx, err, errlen)) goto out;
    }
    if (call && hooks->on_iteration(s, NULL, true, hooks->ctx, err, errlen)) goto out;
    rc = 0;
out:
    free(stats);
    free(scratch);
    free(digests);
    rowset_free(&rows);
    return rc;
}
