// rundir.h: a run directory on disk.
//
//   RUN_DIR/config.txt                     the run's configuration, one "key = value" a line
//   RUN_DIR/metrics.csv                    one row per iteration (metrics.h)
//   RUN_DIR/checkpoints/ckpt-NNNNNNNN.bin  the newest --keep checkpoints (checkpoint.h)
//   RUN_DIR/curve.png                      learning curves (pongrl plot; refreshed at checkpoints)
#ifndef PONGRL_RUNDIR_H
#define PONGRL_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "../train/state.h"

// Writes RUN_DIR/config.txt atomically from s (config and where the run stands).
int rundir_write_config(const TrainState *s, char *err, size_t errlen);

// One process at a time owns a run directory: a write lock (fcntl) on RUN_DIR/.lock, held
// until the process exits. The kernel drops it whatever the death, so a dead owner never
// leaves it stuck. An owner that is exiting is waited for, a second at most. The lock file is
// never opened through a symlink (nor made at its target) and must be a regular file. 0, or
// -1 with one line in err (the directory is in use or cannot be written; .lock is a symlink or
// not a file). A file system without locks is said on stderr and let through. The owner
// removes the temporaries that a kill left of the run's config.txt, metrics.csv and curve.png
// (those of its checkpoints: checkpoint_sweep_tmps).
int rundir_lock(const char *run_dir, char *err, size_t errlen);

// A run directory never lies inside another run, live or ended (a folder above it holding a
// pongrl run: its config.txt, a checkpoint, or a lock held now): the two would be taken for each
// other (eval and --resume of RUN/checkpoints). dir need not exist yet (nothing is made here).
// 0, or -1 with one line in err naming the run around it (resume: said as --resume's).
int rundir_outside_runs(const char *dir, bool resume, char *err, size_t errlen);

// The run directory that owns dir: dir itself, or, where dir is a run's checkpoints/ folder,
// the run above it (its absolute path in out), so that a --resume given the folder takes the
// run's own lock and continues the run in place.
const char *rundir_owner(const char *dir, char *out, size_t outlen);

#endif
