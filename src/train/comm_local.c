// comm_local.c: the single-process transport: episodes from an atomic counter, nothing to send.
#include "comm.h"

#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
    EpisodeSource src;
    atomic_llong next;
    int64_t end;
} LocalSource;

static int64_t local_next(EpisodeSource *src) {
    LocalSource *ls = src->ctx;
    long long k = atomic_fetch_add(&ls->next, 1);
    return k < ls->end ? k : -1;
}

static int local_begin(Comm *c, Policy *p, bool *stop) {
    (void)c; (void)p; (void)stop;
    return 0;
}

static EpisodeSource *local_source(Comm *c, int64_t first, int count) {
    LocalSource *ls = c->ctx;
    atomic_store(&ls->next, first);
    ls->end = first + count;
    ls->src = (EpisodeSource){ local_next, NULL, ls };
    return &ls->src;
}

static int local_end(Comm *c, Pool *pool, const GradSum *sum, RowSet *rows, EpisodeStats *stats, int count,
                     const double **g, char *err, size_t errlen) {
    (void)c; (void)pool; (void)sum; (void)rows; (void)stats; (void)count; (void)err; (void)errlen;
    *g = NULL;                      // the sum is the batch's: the update converts it as it goes
    return 0;
}

Comm *comm_local_create(void) {
    Comm *c = calloc(1, sizeof(Comm));
    LocalSource *ls = calloc(1, sizeof(LocalSource));
    if (!c || !ls) { free(c); free(ls); return NULL; }
    *c = (Comm){ 0, 1, local_begin, local_source, local_end, ls };
    return c;
}

void comm_local_destroy(Comm *c) {
    if (c) free(c->ctx);
    free(c);
}
