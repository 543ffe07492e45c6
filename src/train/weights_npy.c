// weights_npy.c: networks in and out of .npy files (weights_npy.h).
#include "weights_npy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../env/env.h"
#include "../util/file.h"
#include "../util/npy.h"
#include "state.h"

#define NPY_PATH_MAX (RUN_DIR_MAX + 512)

// Every file is written whole beside its name first, then all are renamed (file_replace): a
// failure before the renames leaves the previous files as they were.
static int write_arrays(const char *dir, const NpyArray *a, int n, char *err, size_t errlen) {
    FileReplace f[NPY_ARRAYS_MAX];
    bool pending[NPY_ARRAYS_MAX] = { false }; // a temporary file to remove on failure
    char path[NPY_PATH_MAX];
    int rc = -1;
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof(path), "%s/%s", dir, a[k].name);
        if (file_replace_begin(&f[k], path, err, errlen)) goto out;
        pending[k] = true;
    }
    for (int k = 0; k < n; k++) {
        FILE *out = file_replace_fopen(&f[k], err, errlen); // the temporary's own descriptor, not its name
        if (!out) goto out;
        int bad = npy_write_to(out, "<f8", a[k].ndim, a[k].shape, a[k].data);
        if (fclose(out)) bad = 1;
        if (bad) {
            snprintf(err, errlen, "cannot write %s: %s", f[k].tmp, strerror(errno));
            goto out;
        }
    }
    for (int k = 0; k < n; k++) {
        pending[k] = false; // commit removes it itself on failure
        if (file_replace_commit(&f[k], err, errlen)) goto out;
    }
    rc = 0;
out:
    for (int k = 0; k < n; k++)
        if (pending[k]) file_replace_abort(&f[k]);
    return rc;
}

static size_t count_of(const NpyArray *a) { return a->shape[0] * (a->ndim == 2 ? a->shape[1] : 1); }

int npy_array_read(
    const char *dir, const char *name, int *ndim, size_t *shape, double **out, char *err, size_t errlen) {
    char path[NPY_PATH_MAX], why[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    *out = NULL;
    if (npy_read(path, "<f8", ndim, shape, (void **)out, why, sizeof(why))) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    return 0;
}

// DIR/name, float64, of exactly this shape, into *out (free() it). 0, or -1 with one line in err.
static int read_array(
    const char *dir, const char *name, int ndim, const size_t *shape, double **out, char *err, size_t errlen) {
    char why[64];
    int nd;
    size_t s[4];
    if (npy_array_read(dir, name, &nd, s, out, err, errlen)) return -1;
    bool same = nd == ndim;
    for (int i = 0; same && i < nd; i++) same = s[i] == shape[i];
    if (!same) {
        if (ndim == 1)
            snprintf(why, sizeof(why), "(%zu,)", shape[0]);
        else
            snprintf(why, sizeof(why), "(%zu, %zu)", shape[0], shape[1]);
        snprintf(err, errlen, "%s/%s: shape must be %s for the model's settings (model.txt)", dir, name, why);
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

int npy_arrays_export(const char *dir, const NpyArray *a, int n, char *err, size_t errlen) {
    for (int k = 0; k < n; k++) {
        const char *bad = weights_unusable(a[k].data, count_of(&a[k]));
        if (bad) {
            snprintf(err, errlen, "cannot export: %s", bad);
            return -1;
        }
    }
    return write_arrays(dir, a, n, err, errlen);
}

int npy_arrays_import(const char *dir, const NpyArray *a, int n, char *err, size_t errlen) {
    for (int k = 0; k < n; k++) {
        double *v;
        if (read_array(dir, a[k].name, a[k].ndim, a[k].shape, &v, err, errlen)) return -1;
        const size_t count = count_of(&a[k]);
        const bool bad = weights_unusable(v, count) != NULL;
        if (!bad) memcpy(a[k].data, v, sizeof(double) * count);
        free(v);
        if (bad) {
            snprintf(err, errlen, "%s/%s: weights contain NaN or infinity", dir, a[k].name);
            return -1;
        }
    }
    return 0;
}

// ----------------------------------------------------------------------------
// model.txt

int model_notes_add(ModelNotes *notes, const char *key, const char *value) {
    if (notes->n == MODEL_NOTES_MAX || strlen(key) >= sizeof(notes->key[0]) || strlen(value) >= sizeof(notes->value[0]))
        return -1;
    snprintf(notes->key[notes->n], sizeof(notes->key[0]), "%s", key);
    snprintf(notes->value[notes->n], sizeof(notes->value[0]), "%s", value);
    notes->n++;
    return 0;
}

const char *model_notes_get(const ModelNotes *notes, const char *key) {
    for (int i = 0; i < notes->n; i++)
        if (!strcmp(notes->key[i], key)) return notes->value[i];
    return NULL;
}

int model_txt_write(const char *dir, const TrainConfig *cfg, const ModelNotes *notes, char *err, size_t errlen) {
    const size_t st = train_config_write(cfg, SETTING_RUN, NULL, 0);
    const size_t cap = 256 + (size_t)MODEL_NOTES_MAX * 168 + st + 1;
    char *text = malloc(cap), path[NPY_PATH_MAX];
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t used = (size_t)snprintf(text, cap,
        "# a pongrl model (pongrl export): the settings of the network beside it "
        "(docs/runs.md)\nformat=%d\n",
        MODEL_TXT_FORMAT);
    for (int i = 0; i < notes->n; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s=%s\n", notes->key[i], notes->value[i]);
    used += train_config_write(cfg, SETTING_RUN, text + used, cap - used);
    snprintf(path, sizeof(path), "%s/%s", dir, MODEL_TXT);
    int rc = file_replace(path, text, used, err, errlen);
    free(text);
    return rc;
}

// ALE's names of the actions, by env.h's ACTION_* index (what get_action_meanings() says)
static const char *const ACTION_NAME[ACTION_COUNT] = { "NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE" };

void model_notes_network(ModelNotes *notes, int input_size, const int *ids, int n) {
    char size[16], names[64] = "", list[32] = "";
    memset(notes, 0, sizeof(*notes));
    snprintf(size, sizeof(size), "%d", input_size);
    for (int a = 0; a < n; a++) {
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", a ? "," : "", ACTION_NAME[ids[a]]);
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", a ? "," : "", ids[a]);
    }
    model_notes_add(notes, "input_size", size);
    model_notes_add(notes, "actions", names);
    model_notes_add(notes, "action_ids", list);
}

int model_notes_match(
    const char *dir, const ModelNotes *notes, const ModelNotes *want, const char *network, char *err, size_t errlen) {
    for (int i = 0; i < notes->n; i++) {
        const char *v = model_notes_get(want, notes->key[i]);
        if (!v) {
            snprintf(err, errlen, "%s/%s: unknown line '%s'", dir, MODEL_TXT, notes->key[i]);
            return -1;
        }
        if (strcmp(v, notes->value[i])) {
            snprintf(err, errlen, "%s/%s: %s=%s, but this build's %s network with these settings has %s=%s", dir,
                MODEL_TXT, notes->key[i], notes->value[i], network, notes->key[i], v);
            return -1;
        }
    }
    for (int i = 0; i < want->n; i++)
        if (!model_notes_get(notes, want->key[i])) {
            snprintf(err, errlen, "%s/%s: no %s line", dir, MODEL_TXT, want->key[i]);
            return -1;
        }
    return 0;
}

int model_export(const char *dir, const TrainConfig *cfg, const NpyArray *a, int n, const ModelNotes *notes,
    char *wrote, size_t wlen, char *err, size_t errlen) {
    if (npy_arrays_export(dir, a, n, err, errlen) || model_txt_write(dir, cfg, notes, err, errlen)) return -1;
    size_t used = 0;
    for (int k = 0; k < n && used < wlen; k++) {
        // the first array by its path, the others by their names without ".npy"; matrices with their shape
        const size_t len = strlen(a[k].name), stem = len > 4 && !strcmp(a[k].name + len - 4, ".npy") ? len - 4 : len;
        used += k ? (size_t)snprintf(wrote + used, wlen - used, ", %.*s", (int)stem, a[k].name)
                  : (size_t)snprintf(wrote + used, wlen - used, "%s/%s", dir, a[k].name);
        if (a[k].ndim == 2 && used < wlen)
            used += (size_t)snprintf(wrote + used, wlen - used, " (%zu, %zu)", a[k].shape[0], a[k].shape[1]);
    }
    if (used < wlen) snprintf(wrote + used, wlen - used, " (.npy, float64) and %s/%s", dir, MODEL_TXT);
    return 0;
}

#define MODEL_TXT_MAX 65536 // far more than any model.txt

int model_txt_read(const char *dir, TrainConfig *cfg, ModelNotes *notes, char *err, size_t errlen) {
    char path[NPY_PATH_MAX], why[256];
    snprintf(path, sizeof(path), "%s/%s", dir, MODEL_TXT);
    memset(notes, 0, sizeof(*notes));
    train_config_default(cfg);
    FILE *f = file_fopen_read(path, err, errlen); // a FIFO or a device: refused, never waited on
    if (!f) return -1;
    char *text = malloc(MODEL_TXT_MAX + 1), *settings = malloc(MODEL_TXT_MAX + 1);
    size_t len = text ? fread(text, 1, MODEL_TXT_MAX + 1, f) : 0, slen = 0;
    fclose(f);
    int rc = -1, format = -1;
    if (!text || !settings) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (len > MODEL_TXT_MAX || memchr(text, 0, len) || (len && text[len - 1] != '\n')) {
        snprintf(err, errlen, "%s: not a pongrl model.txt (too long, binary, or its last line unfinished)", path);
        goto out;
    }
    // comments go; format is checked; the table's rows are the settings, every other line a note
    for (size_t pos = 0; pos < len;) {
        char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        const size_t whole = (size_t)(nl - line), n = whole && line[whole - 1] == '\r' ? whole - 1 : whole;
        pos += whole + 1;
        line[n] = 0; // a CRLF line end (an editor on Windows) too
        char *eq = strchr(line, '=');
        if (line[0] == '#') continue;
        if (!eq) {
            snprintf(err, errlen, "%s: a line without '=' ('%.40s')", path, line);
            goto out;
        }
        *eq = 0;
        if (!strcmp(line, "format")) {
            format = atoi(eq + 1);
            if (format != MODEL_TXT_FORMAT) {
                snprintf(err, errlen, "%s: format %.20s, this build reads format %d", path, eq + 1, MODEL_TXT_FORMAT);
                goto out;
            }
        } else if (train_setting_find(line)) {
            *eq = '=';
            memcpy(settings + slen, line, n);
            settings[slen + n] = '\n';
            slen += n + 1;
        } else if (model_notes_get(notes, line) || model_notes_add(notes, line, eq + 1)) {
            snprintf(err, errlen, "%s: '%.32s' given twice, too long, or one line too many", path, line);
            goto out;
        }
    }
    if (format < 0) {
        snprintf(err, errlen, "%s: no format line: not a pongrl model.txt", path);
        goto out;
    }
    const char *bad = train_config_read(cfg, settings, slen, SETTING_RUN, why, sizeof(why));
    if (bad) {
        snprintf(err, errlen, "%s: %s", path, bad);
        goto out;
    }
    rc = 0;
out:
    free(text);
    free(settings);
    return rc;
}
