// rowset.h: a set of W1 rows (input pixels of the 80x80 grid) and the order they joined it.
// The one "set of touched rows" of the program: the rows an episode's gradient uses
// (rl/rollout.h), the rows a worker thread's sum holds (train/pool.c), the rows a batch
// touched (algo/pg.h, the MPI transport). Adding and testing cost one byte read;
// clearing costs the members, not D: a batch touches a few thousand of 6400 rows.
#ifndef PONGRL_ROWSET_H
#define PONGRL_ROWSET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int n, D;
    uint16_t *list; // (D,) the members, in the order they were added
    uint8_t *in;    // (D,) in list's block: 0 not a member; else the member's mark (1 unless
                    // set with rowset_add_marked: a caller's note about the row)
} RowSet;

int rowset_alloc(RowSet *r, int D); // empty; 0, or -1 (out of memory, or D > 65536)
void rowset_free(RowSet *r);
void rowset_clear(RowSet *r); // empty again, in time proportional to r->n

// Adds row with a non-zero mark; true when it was not yet a member (its mark is then set).
static inline bool rowset_add_marked(RowSet *r, int row, uint8_t mark) {
    if (r->in[row]) return false;
    r->in[row] = mark;
    r->list[r->n++] = (uint16_t)row;
    return true;
}
static inline bool rowset_add(RowSet *r, int row) { return rowset_add_marked(r, row, 1); }
static inline bool rowset_has(const RowSet *r, int row) { return r->in[row] != 0; }

#endif
