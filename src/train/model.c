// model.c: a model loaded from whatever the user points at (model.h), for the CLI (eval,
// record, watch, export) and for bindings (pongrl.load in Python).
#include "model.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint.h"
#include "weights_npy.h"

static bool is_dir(const char *p) { struct stat st; return stat(p, &st) == 0 && S_ISDIR(st.st_mode); }
static bool exists(const char *p) { struct stat st; return stat(p, &st) == 0; }

int model_load(const char *src, TrainState *s, char *desc, size_t desclen, char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    if (!exists(src)) { snprintf(err, errlen, "%s: %s", src, strerror(errno)); return -1; }
    char path[CKPT_PATH_MAX];
    if (!is_dir(src)) {
        uint32_t flags;
        if (checkpoint_load(src, s, &flags, err, errlen)) return -1;
        snprintf(desc, desclen, "%s (%s, H=%d, iteration %lld, %lld episodes)", src,
                 flags & CKPT_FLAG_IMPORTED ? "imported weights" : "checkpoint", s->policy.H,
                 (long long)s->iteration, (long long)s->episodes);
        return 0;
    }
    snprintf(path, sizeof(path), "%s/W1.npy", src);
    if (exists(path)) {
        train_config_default(&s->cfg);
        if (weights_import_npy(src, &s->policy, err, errlen)) return -1;
        s->cfg.hidden = s->policy.H;
        snprintf(desc, desclen, "%s (W1.npy/W2.npy, H=%d)", src, s->policy.H);
        return 0;
    }
    if (checkpoint_load_latest(src, s, path, sizeof(path), stderr, err, errlen)) {
        snprintf(path, sizeof(path), "%s/checkpoints", src);
        if (!is_dir(path) && !strstr(err, "no usable"))
            snprintf(err, errlen, "%s: not a checkpoint, a run directory, nor a folder with W1.npy and W2.npy", src);
        return -1;
    }
    snprintf(desc, desclen, "%s (checkpoint, H=%d, iteration %lld, %lld episodes)", path, s->policy.H,
             (long long)s->iteration, (long long)s->episodes);
    return 0;
}

TrainState *model_open(const char *src, char *err, size_t errlen) {
    TrainState *s = malloc(sizeof *s);
    char desc[CKPT_PATH_MAX + 128];
    if (s == NULL) { snprintf(err, errlen, "out of memory"); return NULL; }
    if (model_load(src, s, desc, sizeof desc, err, errlen)) { free(s); return NULL; }
    if (strcmp(s->cfg.algo, "pg")) {       // its weights are the seeds' network's only
        snprintf(err, errlen, "%s: a model of --algo %s: only the seeds' network (--algo pg) can be read here", src,
                 s->cfg.algo);
        model_close(s);
        return NULL;
    }
    return s;
}

int model_hidden(const TrainState *s) { return s->policy.H; }
const double *model_weights(const TrainState *s) { return s->policy.w; }
const char *model_algo(const TrainState *s) { return s->cfg.algo[0] ? s->cfg.algo : "pg"; }

const double *model_array(const TrainState *s, int i, const char **name, size_t *n) {
    if (i < 0 || i >= s->saved.count) return NULL;
    *name = s->saved.name[i];
    *n = s->saved.n[i];
    return s->saved.data[i];
}

void model_close(TrainState *s) {
    if (s == NULL) return;
    train_state_free(s);
    free(s);
}
