// dump_common.h: what the learners' dump programs (ppo_dump.c, qrdqn_dump.c) share, test
// support like them (not part of the product binary): their settings as text through the settings
// table, their arrays owned by one list, an array written as DIR/NAME.npy, and a failure said in
// one line prefixed with the program's name, exit 1.
#ifndef PONGRL_DUMP_COMMON_H
#define PONGRL_DUMP_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/config.h"
#include "util/npy.h"

// "PROGRAM: what", then exit 1 (program_invocation_short_name: glibc's, with _GNU_SOURCE).
static inline void dump_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_invocation_short_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

// Sets c's settings from "name=value name=value" (config.txt's names and values, each checked as
// its flag is), or dies saying which is wrong.
static inline void dump_settings(TrainConfig *c, const char *settings) {
    char text[1024], why[256];
    snprintf(text, sizeof(text), "%s ", settings);
    for (char *sp = text; (sp = strchr(sp, ' '));) *sp = '\n'; // train_config_read's lines
    if (train_config_read(c, text, strlen(text), SETTING_RUN | SETTING_GOAL | SETTING_HOST, why, sizeof(why)))
        dump_die("%s", why);
}

// One setting from a flag's value.
static inline void dump_setting(TrainConfig *c, const char *name, const char *value) {
    char text[256];
    snprintf(text, sizeof(text), "%s=%s", name, value);
    dump_settings(c, text);
}

// The arrays a dump program allocates, freed together (dump_free).
typedef struct {
    void *p[16];
    int n;
} DumpHeap;

// n zeroed bytes owned by h, or dies "out of memory".
static inline void *dump_alloc(DumpHeap *h, size_t n) {
    void *p = h->n < 16 ? calloc(n ? n : 1, 1) : NULL;
    if (!p) dump_die("out of memory");
    return h->p[h->n++] = p;
}

static inline void dump_free(DumpHeap *h) {
    while (h->n > 0) free(h->p[--h->n]);
}

// data (ndim 1 or 2, of this shape, numpy's descr: "<f8", "<i4", "|u1", ...) as DIR/NAME.npy.
static inline void dump_save(
    const char *dir, const char *name, const char *descr, int ndim, size_t rows, size_t cols, const void *data) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s.npy", dir, name);
    const size_t shape[2] = { rows, cols };
    if (npy_write(path, descr, ndim, shape, data)) dump_die("cannot write %s", path);
}

// A learner's weights and Adam's moments (n float64 each) as DIR/w, m, v.npy, or with suffix
// "_new" as w_new, m_new, v_new.npy (the update's before and after).
static inline void dump_weights(
    const char *dir, const char *suffix, const double *w, const double *m, const double *v, size_t n) {
    const char *what[3] = { "w", "m", "v" };
    const double *data[3] = { w, m, v };
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof(name), "%s%s", what[k], suffix);
        dump_save(dir, name, "<f8", 1, n, 0, data[k]);
    }
}

#endif
