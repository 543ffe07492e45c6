// wire.h: the packing of a learner's training envs (train_envs.h) for the ranks' exchange under
// MPI, as bytes that a transport (train/comm.h's allgather) carries whole. Each rank plays its
// range of the envs; after each round every rank gets every env's step (its Transition and the
// frame's lit pixels), so that every rank writes the same transitions into its replay memory;
// after the last round the envs' states (learner_envs.h records) go round too, with the frames
// each emulated, so that any rank holds every env (rank 0 writes the checkpoint).
//
// A step on the wire: env (int32), action, flags, reward, ended (a byte each), ret (float64), len
// (int64), the frame's lit pixel count (uint16), then the pixels' indices (uint16 each); all in
// the host's byte order. An env on the wire: ENV_RECORD_DOUBLES + 2 float64s: the env's index, its
// record, its frames emulated.
#ifndef PONGRL_WIRE_H
#define PONGRL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "learner_envs.h"
#include "train_envs.h"

#define WIRE_STEP_HEAD   (4 + 4 + 8 + 8 + 2)
#define WIRE_ENV_DOUBLES (ENV_RECORD_DOUBLES + 2)

// *buf of at least need bytes (*cap: its size, grown by realloc). 0, or -1 (out of memory; *buf kept).
int wire_reserve(uint8_t **buf, size_t *cap, size_t need);

// The most bytes the steps of n envs take.
size_t wire_steps_bound(int n);
// The steps of envs [e0, e1) (step[e], frame[e]) into out; returns the bytes written.
size_t wire_steps_pack(const TrainEnvs *t, int e0, int e1, uint8_t *out);
// Every step in in (len bytes, any ranks' one after another) into step[e] and frame[e]. 0, or -1
// for bytes no pack writes: *bad the env index out of range, or -1 for a step cut short.
int wire_steps_unpack(TrainEnvs *t, const uint8_t *in, size_t len, int *bad);

// The bytes the states of n envs take.
size_t wire_envs_bytes(int n);
// The states of envs [e0, e1) (the game, prev[e], frames[e]) into out.
void wire_envs_pack(const TrainEnvs *t, int e0, int e1, uint8_t *out);
// Every env state in in (len bytes) but those of [e0, e1), this rank's own, into t. 0, or -1 for
// one no pack writes (*bad: its env index).
int wire_envs_unpack(TrainEnvs *t, const uint8_t *in, size_t len, int e0, int e1, int *bad);

#endif
