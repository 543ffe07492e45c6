// workpool.h: the one pool of worker threads. A job is `parts` calls fn(ctx, part, worker),
// part in [0, parts); the pool's threads (and, in workpool_run, the calling thread) claim parts
// one at a time until none is left, and the call returns when every part has finished.
//
// Why claiming: on a busy machine a thread that the scheduler has not run yet claims nothing,
// and the others (the caller among them) take its parts instead of waiting a time slice for it.
// (A fixed job, workpool_run_fixed, is the exception: one part a thread, part w on thread w,
// for work whose data should stay with one core from job to job.)
// Why spin, then sleep: between jobs a thread watches the job counter for a few microseconds
// (pause, then sched_yield) before it sleeps on a condition variable; a caller that starts the
// next job at once (a Python loop stepping a vector env) does not pay a wake-up of tens of
// microseconds, and an idle pool costs nothing. Measured against the condition variable alone
// (build/workpool_bench): bench/README.md.
//
// Usage:
//     WorkPool *wp = workpool_create(3);               // 3 threads + the caller: 4 workers
//     workpool_run(wp, n_chunks, step_chunk, &job);    // step_chunk(&job, chunk, worker)
//     workpool_destroy(wp);
// `worker` (0 .. workpool_workers(wp) - 1) says which thread runs the part: state a part needs
// for itself (scratch, an Env) is indexed by part or by worker, never by a thread id. Parts may
// run in any order, on any worker, at the same time: results that must not depend on that are
// written to a slot per part. While the caller waits, every part it does not run itself runs at
// once with the others: a part may wait for another (a barrier among parts <= workers).
// One job at a time: workpool_run is not reentrant and not for two callers at once.
#ifndef PONGRL_WORKPOOL_H
#define PONGRL_WORKPOOL_H

#include <stdatomic.h>

typedef struct WorkPool WorkPool;
typedef void (*WorkFn)(void *ctx, int part, int worker);

// A pool of `threads` threads (0: the caller does every part itself). NULL on failure.
WorkPool *workpool_create(int threads);
// Waits for nothing: call it between jobs. NULL is fine.
void workpool_destroy(WorkPool *wp);
// Distinct `worker` values a part may see: the threads, and the caller (the last one).
int workpool_workers(const WorkPool *wp);
// Runs every part and returns when all have finished; the caller claims parts too. With no
// threads, or one part, the caller runs them inline.
void workpool_run(WorkPool *wp, int parts, WorkFn fn, void *ctx);
// One part for each of the pool's threads, part w always on thread w (the caller waits; with
// one thread or none it runs part 0 itself): what a part leaves in its core's caches (the rows it
// owns, the entries it placed) is there for the same part of the next job, rather than on
// whichever core claimed it. parts = the threads: a part may wait for another (a barrier).
void workpool_run_fixed(WorkPool *wp, WorkFn fn, void *ctx);
// As workpool_run, but the caller claims no part: it calls poll(poll_ctx) about every 0.2 ms until all
// have finished (the MPI transport's progress while the threads play).
void workpool_run_polling(WorkPool *wp, int parts, WorkFn fn, void *ctx, void (*poll)(void *), void *poll_ctx);


// A barrier among the `parts` parts of one job (parts <= workers: they run at once): each waits
// until all have arrived, then all go on. It spins (pause, then sched_yield: a part that shares
// a core with another lets it run); reusable, job after job, once initialised for a part count.
typedef struct {
    atomic_uint arrived, phase;
    unsigned parts;
} PartBarrier;
void part_barrier_init(PartBarrier *b, int parts);
void part_barrier_wait(PartBarrier *b);

#endif
