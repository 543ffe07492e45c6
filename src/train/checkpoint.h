// checkpoint.h: a training run on disk (TrainState, state.h). One file holds everything needed to continue a run
// bit-identically: the settings, the counters and the learner's state (its arrays, learner.h:
// for pg its weights and RMSProp cache, for PPO its network, Adam's moments and its envs).
// There is no random-number state to save: every stream derives from the run seed and the
// counters (util/streams.h), and the counters are saved.
//
// File layout (format version 4, every number little-endian):
//   magic "PONGRLCK" (8) | u32 version | u32 header bytes (everything before the arrays' data)
//   settings: u32 bytes | "name=value\n" for each setting of roles RUN and GOAL that applies to
//             the run (config.h: the table's rows, its text form; a setting missing from the file
//             gets its default, an unknown one is refused)
//   state:    i64 iteration, episodes, agent_steps, frames | f64 running_reward, wall_s
//             | u32 flags (CKPT_FLAG_*)
//   arrays:   u32 count | each: char name[24] (NUL-padded) | u32 nonneg | u64 length
//             | u64 stored bytes | u32 CRC-32 of its float64s as the run holds them (packed_crc)
//   data:     each array packed (packed.h): deflated, its bits XOR those of the same array of a
//             fresh run of the same settings where CKPT_FLAG_FROM_FRESH (what is not zero is
//             what the run moved); stored-bytes each
//   u32 CRC-32 (zlib) of every byte before it: of what is written, so a damaged file is
//             refused before anything is inflated; each array's own CRC then says it came back
//             whole once its learner has undone the difference (train_state_attach).
// Versions 1 to 3 are still read: models and runs made before them load and resume. Version 3
// is version 4 without the stored bytes and CRCs, the arrays raw float64s, and a block of the
// pg network before them (i32 D | i32 H | u64 n after the state; f64 w[n] before the
// arrays; all 0 where the run had none): it loads as the array "weights" ahead of the others,
// which is pg's, and a learner without that array drops it. Version 2 always has that block
// (PPO runs carried an unused one); version 1 has fixed settings in a 228-byte header, then
// w[n] and pg's RMSProp cache[n].
//
// Writes are atomic: a temporary file in the same directory, fsync, rename, fsync of the
// directory. A crash at any moment leaves either the old file or the new one, never half.
#ifndef PONGRL_CHECKPOINT_H
#define PONGRL_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "state.h"

#define CKPT_MAGIC           "PONGRLCK"
#define CKPT_VERSION         4u
#define CKPT_SETTINGS_MAX    4096u       // bytes of the settings text at most
#define CKPT_H_MAX           TRAIN_H_MAX // the largest H a run may have
#define CKPT_FLAG_IMPORTED   1u          // weights imported from .npy: no training history
#define CKPT_FLAG_FROM_FRESH 2u          // the arrays are stored as their difference from a fresh run's
#define CKPT_FLAGS_KNOWN     (CKPT_FLAG_IMPORTED | CKPT_FLAG_FROM_FRESH)
#define CKPT_LEGACY_WEIGHTS  "weights" // versions 1 to 3: Karpathy's network's block, as an array
// No counter of a run gets past 2^50 (config.h): a state that says more is neither written nor
// read, so the loop's sums cannot overflow on the way (a learner that multiplies a counter
// checks its own product: PPO's Adam step count).
#define CKPT_COUNTER_BITS TRAIN_COUNTER_BITS
#define CKPT_COUNTER_MAX  TRAIN_COUNTER_MAX
#define CKPT_WALL_MAX_S   1e12                // training seconds (31,000 years)
#define CKPT_PATH_MAX     (RUN_DIR_MAX + 512) // a run dir, a file name, room for ".tmp"
// No valid file is larger: the largest network's weights and arrays of up to 4 times their size
#define CKPT_SIZE_MAX    (((uint64_t)POLICY_D * CKPT_H_MAX + CKPT_H_MAX) * 8 * (1 + 4) + (1u << 20))
#define CKPT_ENTRIES_MAX (CKPT_SIZE_MAX / 8) // float64s in all, packed or not

// Writes s to path atomically (path.tmp, fsync, rename, fsync dir). flags: CKPT_FLAG_*.
// Returns 0, or -1 with one line in err; on failure an existing file at path is untouched.
int checkpoint_write(const char *path, const TrainState *s, uint32_t flags, char *err, size_t errlen);

// Reads a checkpoint into s (the learner's arrays held for train_state_attach, which a loaded
// state needs before it is used or written again; free with train_state_free).
// Refuses, with one line in err saying which, an empty, truncated, corrupted (checksum),
// foreign (magic), newer or older (version) or inconsistent (shape, config) file. The
// run_dir of the loaded config is left empty. flags_out may be NULL. 0 or -1.
int checkpoint_load(const char *path, TrainState *s, uint32_t *flags_out, char *err, size_t errlen);

// The same from memory. check_crc = false skips the checksum (the fuzzer uses it to reach
// the checks behind it); every length is still validated before it is used.
int checkpoint_parse(
    const uint8_t *buf, size_t len, bool check_crc, TrainState *s, uint32_t *flags_out, char *err, size_t errlen);

// The iteration a checkpoint file says it holds, from its header alone (what the pruning of a
// run's checkpoints needs; the file is not checked whole: checkpoint_load does that). 0, or -1
// with one line in err and errno that of a file that could not be opened (else 0).
int checkpoint_peek_iteration(const char *path, int64_t *iteration, char *err, size_t errlen);

// ----------------------------------------------------------------------------
// A run directory's checkpoints: RUN_DIR/checkpoints/ckpt-<iteration>.bin, the iteration in
// at least 8 digits (zero-padded; more past 99,999,999). A name is only an index: a file is
// used, and counted among the --keep newest, only where its own header says the iteration of
// its name (a file renamed or copied under another name is not trusted). Only names of this
// pattern, and their temporaries (file.h), are ever read or removed.

// The path of the checkpoint of `iteration` in run_dir (what checkpoint_save writes).
void checkpoint_path(const char *run_dir, int64_t iteration, char *out, size_t outlen);

// Saves s as the checkpoint of its iteration, then deletes all but the newest `keep` that
// hold the iteration of their name (those that do not, or cannot be read, go too), and any
// temporary file a killed write left. path_out (may be NULL) gets the file name.
int checkpoint_save(
    const char *run_dir, const TrainState *s, int keep, char *path_out, size_t pathlen, char *err, size_t errlen);

// What RUN_DIR/checkpoints holds: checkpoint files (by name; loadable or not) and the
// temporary files of writes that a kill interrupted.
void checkpoint_scan(const char *run_dir, int *checkpoints, int *temporaries);

// Removes the temporary files of checkpoint writes that kills left in RUN_DIR/checkpoints
// (their names alone: pongrl's own). Only for the holder of the run's lock, which writes none now.
void checkpoint_sweep_tmps(const char *run_dir);

// Loads the newest checkpoint of a run directory (or of its checkpoints/ folder itself) that
// loads and holds the iteration of its name; each newer one whose name says another iteration
// is named on `warn` (if not NULL) with both numbers, those that do not load in one line, and
// all are skipped. path_out (may be NULL) gets the file used. 0, or -1 with one line in err.
int checkpoint_load_latest(
    const char *dir, TrainState *s, char *path_out, size_t pathlen, FILE *warn, char *err, size_t errlen);

#endif
