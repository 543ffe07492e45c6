// train_progress.h: what `pongrl train` does on the learner after every iteration (as the
// loop's hook, TrainHooks): the batch's line on stdout (with how far along the run is, when it
// ends at an iteration), its metrics.csv row, and the checkpoint schedule: every
// cfg.checkpoint_every iterations, every cfg.checkpoint_secs seconds, and at the end; each
// save also refreshes config.txt and curve.png (a missing gnuplot is said once, then ignored).
#ifndef PONGRL_TRAIN_PROGRESS_H
#define PONGRL_TRAIN_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../train/train.h"

typedef struct {
    int64_t last_iteration; // iteration of the newest checkpoint on disk
    double last_time;       // monotonic seconds of that save
    bool plot_off;          // gnuplot failed once: stop trying
    double save_s_total;    // time spent saving, for the summary
    int saves;
    double session_t0; // when this session's loop started (for the eta)
    int64_t session_it0;
    // Set when a batch's line could not be written (stdout closed: `train | head`); the run
    // then stops after the batch, as on Ctrl-C, and the caller says why.
    int stdout_errno;
} TrainProgress;

// The running mean as the lines on stdout show it: "-" until an episode has ended (the
// counter holds 0 then, as metrics.csv's running_mean column does), else "%.4f".
const char *train_progress_running_mean(const TrainState *s, char *buf, size_t n);

// The header's second line: when the run stops (its iteration, its target, both or neither).
void train_progress_print_goal(const TrainState *s);

// Just before train_run: s's iteration is the one on disk.
void train_progress_init(TrainProgress *tp, const TrainState *s);
// TrainHooks.on_iteration, ctx a TrainProgress.
int train_progress_on_iteration(TrainState *s, const TrainBatch *b, bool final, void *ctx, char *err, size_t errlen);

#endif
