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
#include "config.h"
#include "weights_npy.h"

static bool is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}
static bool exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

// A folder that `pongrl export` wrote for a learner with a network of its own: that learner
// reads it, once model.txt's crc32 line says the arrays beside it are the ones it was written
// with (a folder with model.txt of one export and arrays of another is refused, naming the first
// file that differs). The check is made again once the arrays are read: a reader of a folder
// that `export --force` swaps meanwhile may have read model.txt of the old model and arrays of
// the new; any file read after the swap is the new one, so the second check sees it.
static int load_exported(const char *src, const Learner *const *learners, TrainState *s, char *desc, size_t desclen,
    char *err, size_t errlen) {
    ModelNotes notes;
    if (model_txt_read(src, &s->cfg, &notes, err, errlen) || model_files_check(src, &notes, err, errlen)) return -1;
    const Learner *l = learner_find(learners, s->cfg.algo);
    if (!l || !l->import_npy) {
        snprintf(err, errlen,
            learners ? "%s: an exported model of --algo %s, which this build cannot read"
                     : "%s: an exported model of --algo %s: pongrl's commands read it, and pongrl.load "
                       "reads it with NumPy, not model_open",
            src, s->cfg.algo);
        return -1;
    }
    if (l->import_npy(s, src, &notes, err, errlen) || model_files_check(src, &notes, err, errlen)) {
        train_state_free(s);
        return -1;
    }
    snprintf(desc, desclen, "%s (%s .npy files, H=%d)", src, s->cfg.algo, s->cfg.hidden);
    return 0;
}

// A loaded checkpoint goes on with its learner (of `learners`), which takes its arrays.
static int attach_own(TrainState *s, const char *src, const Learner *const *learners, char *err, size_t errlen) {
    const Learner *l = learner_find(learners, s->cfg.algo);
    char why[512];
    if (!l)
        snprintf(err, errlen, "%s: a checkpoint of --algo %s, which this build cannot read", src, s->cfg.algo);
    else if (train_state_attach(s, l, why, sizeof(why)))
        snprintf(err, errlen, "%s: %s", src, why);
    else
        return 0;
    train_state_free(s);
    return -1;
}

int model_load(const char *src, const Learner *const *learners, TrainState *s, char *desc, size_t desclen, char *err,
    size_t errlen) {
    memset(s, 0, sizeof(*s));
    if (!exists(src)) {
        snprintf(err, errlen, "%s: %s", src, strerror(errno));
        return -1;
    }
    char path[CKPT_PATH_MAX];
    if (!is_dir(src)) {
        uint32_t flags;
        if (checkpoint_load(src, s, &flags, err, errlen) || attach_own(s, src, learners, err, errlen)) return -1;
        snprintf(desc, desclen, "%s (%s, H=%d, iteration %lld, %lld episodes)", src,
            flags & CKPT_FLAG_IMPORTED ? "imported weights" : "checkpoint", s->cfg.hidden, (long long)s->iteration,
            (long long)s->episodes);
        return 0;
    }
    snprintf(path, sizeof(path), "%s/%s", src, MODEL_TXT);
    if (exists(path)) return load_exported(src, learners, s, desc, desclen, err, errlen);
    // a folder of .npy files without model.txt: the learner whose files they are reads them
    for (const Learner *const *l = learners; l && *l; l++) {
        const char *files = (*l)->bare_npy ? (*l)->bare_npy(src) : NULL;
        if (!files) continue;
        train_config_default(&s->cfg);
        snprintf(s->cfg.algo, sizeof(s->cfg.algo), "%s", (*l)->name);
        if ((*l)->import_npy(s, src, NULL, err, errlen)) {
            train_state_free(s);
            return -1;
        }
        snprintf(desc, desclen, "%s (%s, H=%d)", src, files, s->cfg.hidden);
        return 0;
    }
    if (checkpoint_load_latest(src, s, path, sizeof(path), stderr, err, errlen)) {
        snprintf(path, sizeof(path), "%s/checkpoints", src);
        if (!is_dir(path) && !strstr(err, "no usable"))
            snprintf(err, errlen,
                "%s: not a checkpoint, a run directory, nor a folder with W1.npy and W2.npy or model.txt", src);
        return -1;
    }
    if (attach_own(s, path, learners, err, errlen)) return -1;
    snprintf(desc, desclen, "%s (checkpoint, H=%d, iteration %lld, %lld episodes)", path, s->cfg.hidden,
        (long long)s->iteration, (long long)s->episodes);
    return 0;
}

TrainState *model_open_with(const char *src, const Learner *const *learners, char *err, size_t errlen) {
    TrainState *s = malloc(sizeof *s);
    char desc[CKPT_PATH_MAX + 128];
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (model_load(src, learners, s, desc, sizeof desc, err, errlen)) {
        free(s);
        return NULL;
    }
    return s;
}

int model_hidden(const TrainState *s) { return s->cfg.hidden; }
const double *model_weights(const TrainState *s) {
    LearnerArray a[LEARNER_ARRAYS_MAX];
    const int count = train_state_arrays((TrainState *)s, a);
    for (int i = 0; i < count; i++)
        if (!strcmp(a[i].name, MODEL_WEIGHTS_ARRAY)) return a[i].data;
    return NULL;
}
const char *model_algo(const TrainState *s) { return s->cfg.algo; }

const char *model_setting(const TrainState *s, const char *name) {
    static _Thread_local char text[TRAIN_STR_MAX + 32];
    const TrainSetting *row = train_setting_find(name);
    return row ? train_setting_text(row, &s->cfg, text, sizeof(text)) : NULL;
}

const double *model_array(const TrainState *s, int i, const char **name, size_t *n) {
    LearnerArray a[LEARNER_ARRAYS_MAX];
    // the arrays as loaded, or, where a learner read its own files (attached), its own
    const int count = train_state_arrays((TrainState *)s, a);
    if (i < 0 || i >= count) return NULL;
    *name = a[i].name;
    *n = a[i].n;
    return a[i].data;
}

void model_close(TrainState *s) {
    if (s == NULL) return;
    train_state_free(s);
    free(s);
}
