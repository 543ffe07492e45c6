// checkpoint.h: a training run on disk (TrainState, state.h). One file holds everything needed to continue a run
// bit-identically: the configuration, the counters, the weights and the RMSProp cache. There
// is no random-number state to save: every episode's streams derive from (run seed, global
// episode index), and the episode count is saved.
//
// File layout (format version 1, every number little-endian):
//   magic "PONGRLCK" (8) | u32 version | u32 header bytes (CKPT_HEADER_BYTES, from offset 0)
//   config:  char env_id[64] | i32 batch_size | i32 hidden | f64 lr, gamma, decay | u64 seed |
//            i64 iterations | f64 target_reward | u32 has_target | i64 checkpoint_every |
//            f64 checkpoint_secs | i32 keep
//   state:   i64 iteration, episodes, agent_steps, frames | f64 running_reward, wall_s
//   shape:   i32 D | i32 H | u64 n (= D*H + H) | u32 flags (CKPT_FLAG_*)
//   data:    f64 w[n] (W1 transposed (D, H), then W2 (H,)) | f64 cache[n]
//   u32 CRC-32 (zlib) of every byte before it
//
// Version 2, written for any learner but the seeds' (whose runs are still written as version 1,
// byte for byte as before): the same header, then char algo[16] | i32 envs, steps, epochs,
// minibatches | u32 coarse | f64 lambda, clip, ent_coef, vf_coef, max_grad_norm |
// i64 anneal_steps (CKPT_V2_HEADER_BYTES in all); the policy's weights f64 w[n]; the learner's
// arrays (learner.h): u32 count, each char name[24] | u64 n | u32 nonneg | f64 data[n]; the CRC.
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

#define CKPT_MAGIC "PONGRLCK"
#define CKPT_VERSION 2u                // the newest this build writes; it reads 1 and 2
#define CKPT_HEADER_BYTES 228u        // everything before the weights (version 1)
#define CKPT_V2_HEADER_BYTES 312u     // version 2: version 1's and the second learner's settings
#define CKPT_H_MAX TRAIN_H_MAX        // the largest H a run may have
#define CKPT_FLAG_IMPORTED 1u         // weights imported from .npy: no training history
#define CKPT_PATH_MAX (RUN_DIR_MAX + 512)   // a run dir, a file name, room for ".tmp"

// Bytes of a checkpoint of n parameters.
size_t checkpoint_size(size_t n);

// Writes s to path atomically (path.tmp, fsync, rename, fsync dir). flags: CKPT_FLAG_*.
// Returns 0, or -1 with one line in err; on failure an existing file at path is untouched.
int checkpoint_write(const char *path, const TrainState *s, uint32_t flags, char *err, size_t errlen);

// Reads a checkpoint into s (allocating its policy and cache; free with train_state_free).
// Refuses, with one line in err saying which, an empty, truncated, corrupted (checksum),
// foreign (magic), newer or older (version) or inconsistent (shape, config) file. The
// run_dir of the loaded config is left empty. flags_out may be NULL. 0 or -1.
int checkpoint_load(const char *path, TrainState *s, uint32_t *flags_out, char *err, size_t errlen);

// The same from memory. check_crc = false skips the checksum (the fuzzer uses it to reach
// the checks behind it); every length is still validated before it is used.
int checkpoint_parse(const uint8_t *buf, size_t len, bool check_crc, TrainState *s, uint32_t *flags_out,
                     char *err, size_t errlen);

// ----------------------------------------------------------------------------
// A run directory's checkpoints: RUN_DIR/checkpoints/ckpt-<iteration, 8 digits>.bin

// The path of the checkpoint of `iteration` in run_dir (what checkpoint_save writes).
void checkpoint_path(const char *run_dir, int64_t iteration, char *out, size_t outlen);

// Saves s as the checkpoint of its iteration, then deletes all but the newest `keep`
// (and any temporary file a killed run left). path_out (may be NULL) gets the file name.
int checkpoint_save(const char *run_dir, const TrainState *s, int keep, char *path_out, size_t pathlen,
                    char *err, size_t errlen);

// What RUN_DIR/checkpoints holds: checkpoint files (ckpt-*.bin, loadable or not) and the
// temporary files of writes that a kill interrupted (ckpt-*.tmp).
void checkpoint_scan(const char *run_dir, int *checkpoints, int *temporaries);

// Loads the newest checkpoint of a run directory (or of its checkpoints/ folder itself) that
// loads; each newer one that does not is named on `warn` (if not NULL) and skipped.
// path_out (may be NULL) gets the file used. 0, or -1 with one line in err.
int checkpoint_load_latest(const char *dir, TrainState *s, char *path_out, size_t pathlen, FILE *warn,
                           char *err, size_t errlen);

#endif
