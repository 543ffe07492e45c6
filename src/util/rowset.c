// rowset.c: allocation and clearing of a RowSet (rowset.h).
#include "rowset.h"

#include <stdlib.h>

int rowset_alloc(RowSet *r, int D) {
    *r = (RowSet){ .D = D };
    // the list and the marks in one block: (D,) uint16_t, then (D,) uint8_t
    if (D > 65536 || !(r->list = calloc((size_t)D, sizeof(uint16_t) + 1))) return -1;
    r->in = (uint8_t *)(r->list + D);
    return 0;
}

void rowset_free(RowSet *r) {
    free(r->list); // in with it
    *r = (RowSet){ .D = r->D };
}

void rowset_clear(RowSet *r) {
    for (int k = 0; k < r->n; k++) r->in[r->list[k]] = 0;
    r->n = 0;
}
