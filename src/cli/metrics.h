// metrics.h: RUN_DIR/metrics.csv, one row per iteration of a training run. Its first line is
// METRICS_HEADER; each row after it: iteration,episodes,agent_steps,wall_s,batch_mean_reward,
// running_mean,mean_episode_length (%lld,%lld,%lld,%.3f,%.4f,%.6f,%.1f), then the learner's
// diagnostics (Learner.metrics, %.6g each; none for pg). A field with no value is empty:
// batch_mean_reward and mean_episode_length of an iteration that ended no episode (a rollout
// learner's), running_mean before the run's first episode.
#ifndef PONGRL_METRICS_H
#define PONGRL_METRICS_H

#include <stddef.h>

#include "../train/train.h"

#define METRICS_HEADER "iteration,episodes,agent_steps,wall_s,batch_mean_reward,running_mean,mean_episode_length"

// Appends the row of the iteration s has just done (b: its batch) to RUN_DIR/metrics.csv,
// with the header first if the file is new. 0, or -1 with one line in err.
int metrics_append(const char *run_dir, const TrainState *s, const TrainBatch *b, char *err, size_t errlen);

// On resume, makes RUN_DIR/metrics.csv agree with the checkpoint s: one row per iteration up
// to s->iteration, in order, the last one matching the checkpoint's counters. Rows past it (a
// killed run writes rows after its last checkpoint) and a half-written last line are dropped
// without a word. Lines that are not such rows are dropped and said, the old file kept as
// metrics.csv.damaged; missing rows are said. 0, or -1 with one line in err.
int metrics_sync(const char *run_dir, const TrainState *s, char *err, size_t errlen);

// Before plotting: every complete line of a metrics.csv is a row, in increasing iteration
// order (a half-written last line, of a run in progress, is let through). A missing file is
// left to the plotter. 0, or -1 with one line in err.
int metrics_check(const char *csv, char *err, size_t errlen);

#endif
