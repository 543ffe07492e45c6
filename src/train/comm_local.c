// comm_local.c: the single-process transport: work items from an atomic counter, nothing to send.
#include "comm.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "../util/say.h"

typedef struct {
    EpisodeSource src;
    atomic_llong next;
    int64_t end;
    size_t gathered; // allgather's one size
} LocalSource;

static int64_t local_next(EpisodeSource *src) {
    LocalSource *ls = src->ctx;
    long long k = atomic_fetch_add(&ls->next, 1);
    return k < ls->end ? k : -1;
}

static int local_begin(Comm *c, TrainState *s, bool *stop) {
    (void)c;
    (void)s;
    (void)stop;
    return 0;
}

static EpisodeSource *local_source(Comm *c, int64_t first, int count) {
    LocalSource *ls = c->ctx;
    atomic_store(&ls->next, first);
    ls->end = first + count;
    ls->src = (EpisodeSource){ local_next, NULL, ls };
    return &ls->src;
}

static int local_reduce(Comm *c, Pool *pool, const GradSum *sum, RowSet *rows, size_t H, int64_t *x, int nx,
    uint64_t digest, const double **g, char *err, size_t errlen) {
    (void)c;
    (void)pool;
    (void)sum;
    (void)rows;
    (void)H;
    (void)x;
    (void)nx;
    (void)digest;
    (void)err;
    (void)errlen;
    *g = NULL; // the sum is the batch's: the update converts it as it goes
    return 0;
}

static int local_allgather(
    Comm *c, const void *mine, size_t n, const uint8_t **all, const size_t **sizes, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    LocalSource *ls = c->ctx;
    ls->gathered = n;
    *all = mine;
    *sizes = &ls->gathered;
    return 0;
}

static int local_agree(Comm *c, TrainConfig *cfg, bool adopt, char *err, size_t errlen) {
    (void)c;
    (void)cfg;
    (void)adopt;
    (void)err;
    (void)errlen;
    return 0;
}

static void local_describe(Comm *c, char *out, size_t n) {
    (void)c;
    if (n) out[0] = 0;
}

static int local_report(Comm *c, const TrainState *s, FILE *out) {
    (void)c;
    (void)s;
    (void)out;
    return 0;
}

static void local_fail(Comm *c, const char *msg) {
    (void)c;
    say_error("%s", msg);
}

static void local_destroy(Comm *c) {
    if (c) free(c->ctx);
    free(c);
}

Comm *comm_local_create(void) {
    Comm *c = calloc(1, sizeof(Comm));
    LocalSource *ls = calloc(1, sizeof(LocalSource));
    if (!c || !ls) {
        free(c);
        free(ls);
        return NULL;
    }
    *c = (Comm){ COMM_SLOTS(local), .rank = 0, .size = 1, .local_size = 1, .ctx = ls };
    return c;
}
