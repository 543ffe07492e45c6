// rundir.h: a run directory on disk, and the models the other subcommands read.
//
//   RUN_DIR/config.txt                     the run's configuration, one "key = value" a line
//   RUN_DIR/metrics.csv                    one row per iteration (train.c writes it)
//   RUN_DIR/checkpoints/ckpt-NNNNNNNN.bin  the newest --keep checkpoints (checkpoint.h)
//   RUN_DIR/curve.png                      learning curves (pongrl plot; refreshed at checkpoints)
#ifndef PONGRL_RUNDIR_H
#define PONGRL_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../train/train.h"

// Writes RUN_DIR/config.txt atomically from s (config and where the run stands).
int rundir_write_config(const TrainState *s, char *err, size_t errlen);

// One process at a time owns a run directory: a write lock (fcntl) on RUN_DIR/.lock, held
// until the process exits. The kernel drops it whatever the death, so a dead owner never
// leaves it stuck. An owner that is exiting is waited for, a second at most. 0, or -1 with
// one line in err (the directory is in use, or cannot be written). A file system without
// locks is said on stderr and let through.
int rundir_lock(const char *run_dir, char *err, size_t errlen);

// What RUN_DIR/checkpoints holds: checkpoint files (ckpt-N.bin, loadable or not) and the
// temporary files of writes that a kill interrupted (ckpt-N.bin.tmp).
void rundir_scan(const char *run_dir, int *checkpoints, int *temporaries);

// On resume, makes RUN_DIR/metrics.csv agree with the checkpoint s: one row per iteration up
// to s->iteration, in order, the last one matching the checkpoint's counters. Rows past it (a
// killed run writes rows after its last checkpoint) and a half-written last line are dropped
// without a word. Lines that are not such rows are dropped and said, the old file kept as
// metrics.csv.damaged; missing rows are said. 0, or -1 with one line in err.
int rundir_sync_metrics(const char *run_dir, const TrainState *s, char *err, size_t errlen);

// Before plotting: every complete line of a metrics.csv is a row, in increasing iteration
// order (a half-written last line, of a run in progress, is let through). A missing file is
// left to the plotter. 0, or -1 with one line in err.
int rundir_check_metrics(const char *csv, char *err, size_t errlen);

// The checkpoint schedule, as TrainState.on_iteration: every cfg.checkpoint_every
// iterations, every cfg.checkpoint_secs seconds, and at the end; each save also refreshes
// config.txt and curve.png (a missing gnuplot is said once, then ignored).
typedef struct {
    int64_t last_iteration;   // iteration of the newest checkpoint on disk
    double last_time;         // monotonic seconds of that save
    bool plot_off;            // gnuplot failed once: stop trying
    double save_s_total;      // time spent saving, for the summary
    int saves;
} Checkpointer;

void checkpointer_init(Checkpointer *ck, int64_t iteration);
int checkpointer_on_iteration(TrainState *s, bool final, void *ctx, char *err, size_t errlen);

// A model for eval, record and export: a checkpoint file, a run directory (its newest
// usable checkpoint), a checkpoints/ folder, or a folder holding the seed's W1.npy and
// W2.npy. Fills s (cfg default except what the source says; cache zero for .npy) and a
// short description of what was loaded. 0, or -1 with one line in err.
int model_load(const char *src, TrainState *s, char *desc, size_t desclen, char *err, size_t errlen);

#endif
