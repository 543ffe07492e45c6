// arrays.h: a struct's many arrays declared once, after llm.c's malloc_and_point_parameters: a
// table names each array's element size, length and block (its role: weights, moments, a
// buffer), and one call makes every block as one allocation and points each array into it;
// one call frees them all. Adding an array is a row of the table.
//
// Inside a block each array starts on a MEM_PAD line of its own (mem.h: no two arrays, and so
// no two threads' arrays, share a line) and one of HUGE_PAGE_BYTES or more starts on a huge page,
// as big_calloc's do. A block is mapped anonymous memory, zero and not resident until written
// (an array that is never written costs no memory, as calloc's large ones did), and one of
// HUGE_PAGE_BYTES or more is aligned to and marked for transparent huge pages. Under
// AddressSanitizer the arrays are MEM_PAD bytes apart and the gaps poisoned, so that a run past an
// array's end is still reported.
#ifndef PONGRL_ARRAYS_H
#define PONGRL_ARRAYS_H

#include <stddef.h>

#define ARRAYS_BLOCKS 6 // the most blocks (roles) a table names

typedef struct {
    size_t elem, count; // element bytes, elements
    int block;          // in [0, ARRAYS_BLOCKS)
    void *at;           // where arrays_make put it (NULL: count 0)
} ArraySpec;

typedef struct {
    void *base[ARRAYS_BLOCKS]; // each block's mapping (NULL: none)
    size_t bytes[ARRAYS_BLOCKS];
} ArrayBlocks;

// Every array of spec (n rows) zeroed and pointed into its block (spec[i].at). 0, or -1 (out of
// memory, or a length past size_t) with nothing made.
int arrays_make(ArraySpec *spec, int n, ArrayBlocks *out);
// Frees what arrays_make made (a zeroed ArrayBlocks too) and zeroes *b.
void arrays_free(ArrayBlocks *b);

#endif
