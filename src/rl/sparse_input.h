// sparse_input.h: the sparse input of a state that PPO and QR-DQN read: the 80x80 binary frame
// (6400) and its difference from the previous frame (6400, the previous frame is zeros at an
// episode's start); with coarse views, also a coarse view of the frame (+1 where lit) and its
// difference from the previous frame's coarse view, each of
//   20x20 cells of 4x4 pixels (lit when any pixel is)               400
//   4 bands of 20 columns: which of the 80 rows are lit in the band  320
//   4 bands of 20 rows: which of the 80 columns are lit in the band  320
// The coarse inputs are shared by many positions, so what is learnt at one position carries
// to its neighbours (tile coding): the ball's row, wherever the ball is in its band.
#ifndef PONGRL_SPARSE_INPUT_H
#define PONGRL_SPARSE_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "agent.h"

#define SPARSE_POOL        4
#define SPARSE_BAND        20
#define SPARSE_COARSE_ROWS 400
#define SPARSE_COARSE_COLS 720
#define SPARSE_COARSE      1040
#define SPARSE_INPUT_MAX   (2 * POLICY_D + 2 * SPARSE_COARSE)

static inline int sparse_input_size(bool coarse) { return 2 * POLICY_D + (coarse ? 2 * SPARSE_COARSE : 0); }
// The sparse input of frame cur after prev (binary 80x80) into idx/sign (room for
// sparse_input_size entries), ascending; returns the count.
int sparse_input(const uint8_t *cur, const uint8_t *prev, bool coarse, uint16_t *idx, int8_t *sign);
// The lit pixels of frame f (binary 80x80) into lit (room for POLICY_D), ascending; returns the
// count: what sparse_input_lit takes, one scan of the frame.
int sparse_lit(const uint8_t *f, uint16_t *lit);
// The same from the frames' lit pixels (nc and np indices of the 80x80 grid, each list ascending
// and without repeats, as a replay memory keeps a frame): the same entries in the same order, in
// time that grows with the lit pixels rather than with the grid.
int sparse_input_lit(
    const uint16_t *cur, int nc, const uint16_t *prev, int np, bool coarse, uint16_t *idx, int8_t *sign);

#endif
