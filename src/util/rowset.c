// rowset.c: allocation and clearing of a RowSet (rowset.h).
#include "rowset.h"

#include <stdlib.h>

int rowset_alloc(RowSet *r, int D) {
    r->n = 0;
    r->D = D;
    r->list = calloc((size_t)D, sizeof(uint16_t));
    r->in = calloc((size_t)D, 1);
    if (D > 65536 || !r->list || !r->in) {
        rowset_free(r);
        return -1;
    }
    return 0;
}

void rowset_free(RowSet *r) {
    free(r->list);
    free(r->in);
    r->list = NULL;
    r->in = NULL;
    r->n = 0;
}

void rowset_clear(RowSet *r) {
    for (int k = 0; k < r->n; k++) r->in[r->list[k]] = 0;
    r->n = 0;
}
