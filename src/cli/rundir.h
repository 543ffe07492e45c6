// rundir.h: a run directory on disk.
//
//   RUN_DIR/config.txt                     the run's configuration, one "key = value" a line
//   RUN_DIR/metrics.csv                    one row per iteration (metrics.h)
//   RUN_DIR/checkpoints/ckpt-NNNNNNNN.bin  the newest --keep checkpoints (checkpoint.h)
//   RUN_DIR/curve.png                      learning curves (pongrl plot; refreshed at checkpoints)
#ifndef PONGRL_RUNDIR_H
#define PONGRL_RUNDIR_H

#include <stddef.h>

#include "../train/state.h"

// Writes RUN_DIR/config.txt atomically from s (config and where the run stands).
int rundir_write_config(const TrainState *s, char *err, size_t errlen);

// One process at a time owns a run directory: a write lock (fcntl) on RUN_DIR/.lock, held
// until the process exits. The kernel drops it whatever the death, so a dead owner never
// leaves it stuck. An owner that is exiting is waited for, a second at most. 0, or -1 with
// one line in err (the directory is in use, or cannot be written). A file system without
// locks is said on stderr and let through. The owner removes the temporaries that a kill left
// of the run's config.txt, metrics.csv and curve.png.
int rundir_lock(const char *run_dir, char *err, size_t errlen);

// The run directory that owns dir: dir itself, or, where dir is a run's checkpoints/ folder,
// the run above it (its absolute path in out), so that a --resume given the folder takes the
// run's own lock and continues the run in place.
const char *rundir_owner(const char *dir, char *out, size_t outlen);

#endif
