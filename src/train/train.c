// train.c: the iteration loop: the stop decision, one iteration of the learner, the counters,
// the caller told. It does not know which learner (learner.h) nor which transport (comm.h).
#include "train.h"

#include <stdatomic.h>
#include <stdio.h>

#include "../util/clock.h"

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
    if (s->iteration >= TRAIN_COUNTER_MAX) return true; // the most a run may have (config.h)
    if (c->has_target_reward && s->episodes > 0 && s->running_reward >= c->target_reward) return true;
    return false;
}

// Fold an iteration into the counters; the running mean takes the finished episodes in the
// learner's fixed order.
static void account(TrainState *s, const LearnerBatch *lb, TrainBatch *b) {
    double rsum = 0, lsum = 0;
    for (int i = 0; i < lb->count; i++) {
        double r = lb->episodes[i].reward_sum;
        s->running_reward =
            s->episodes == 0 ? r : s->running_reward * TRAIN_RUNNING_DECAY + r * (1.0 - TRAIN_RUNNING_DECAY);
        s->episodes++;
        rsum += r;
        lsum += lb->episodes[i].steps;
    }
    s->agent_steps += lb->steps;
    s->frames += lb->frames;
    b->episodes = lb->count;
    b->steps = lb->steps;
    b->batch_mean = lb->count ? rsum / lb->count : 0;
    b->mean_len = lb->count ? lsum / lb->count : 0;
    for (int k = 0; k < LEARNER_METRICS_MAX; k++) b->metrics[k] = lb->metrics[k];
}

int train_run(TrainState *s, Pool *pool, Comm *comm, const TrainHooks *hooks, char *err, size_t errlen) {
    const bool learner = comm->rank == 0;
    const bool call = learner && hooks && hooks->on_iteration;
    for (;;) {
        bool stop = learner && should_stop(s);
        if (comm->begin(comm, s, &stop)) {
            snprintf(err, errlen, "lost contact with the other ranks");
            return -1;
        }
        if (stop) break;
        double t0 = clock_now_s();
        LearnerBatch lb = { 0 };
        if (s->learner->iterate(s, pool, comm, &lb, err, errlen)) return -1;
        TrainBatch b;
        account(s, &lb, &b);
        s->iteration++;
        b.secs = clock_now_s() - t0;
        s->wall_s += b.secs;
        if (call && hooks->on_iteration(s, &b, false, hooks->ctx, err, errlen)) return -1;
    }
    if (call && hooks->on_iteration(s, NULL, true, hooks->ctx, err, errlen)) return -1;
    return 0;
}
