// weights_npy.c: networks in and out of .npy files (weights_npy.h).
#include "weights_npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../env/env.h"
#include "../util/file.h"
#include "../util/npy.h"
#include "state.h"

#define NPY_PATH_MAX (RUN_DIR_MAX + 512)

// ----------------------------------------------------------------------------
// files created new (an export's directory is new: util/dir_replace.h), and their crc32

// path created exclusively (O_EXCL: never a file that exists; O_NOFOLLOW: never through a
// symlink), open to write and read back. A descriptor, or -1 with one line in err.
static int create_new(const char *path, char *err, size_t errlen) {
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return fd;
}

// The file written as fd: its bytes' crc32 (zlib's) read back into *crc, synced, closed. 0, or -1
// with one line in err (fd closed all the same).
static int finish_new(int fd, const char *path, uint32_t *crc, char *err, size_t errlen) {
    const size_t CHUNK = 1 << 20;
    unsigned char *buf = malloc(CHUNK);
    uLong c = crc32(0L, Z_NULL, 0);
    off_t at = 0;
    ssize_t got = -1;
    while (buf && (got = pread(fd, buf, CHUNK, at)) != 0) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        c = crc32(c, buf, (uInt)got);
        at += got;
    }
    free(buf);
    if (!buf) errno = ENOMEM;
    if (got || fsync(fd)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (crc) *crc = (uint32_t)c;
    if (close(fd)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

// Every array as DIR/name, each created new; crc[k] (if crc) gets a[k]'s file's crc32. On failure
// the files this call created are removed.
static int write_arrays(const char *dir, const NpyArray *a, int n, uint32_t *crc, char *err, size_t errlen) {
    char path[NPY_PATH_MAX];
    int made = 0;
    for (; made < n; made++) {
        snprintf(path, sizeof(path), "%s/%s", dir, a[made].name);
        int fd = create_new(path, err, errlen);
        if (fd < 0) goto fail;
        int wfd = fcntl(fd, F_DUPFD_CLOEXEC, 3); // the stream's own descriptor: fclose closes it alone
        FILE *out = wfd < 0 ? NULL : fdopen(wfd, "wb");
        int bad = !out || npy_write_to(out, "<f8", a[made].ndim, a[made].shape, a[made].data);
        if (out && fclose(out)) bad = 1;
        if (!out && wfd >= 0) close(wfd);
        if (bad) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            close(fd);
            made++;
            goto fail;
        }
        if (finish_new(fd, path, crc ? &crc[made] : NULL, err, errlen)) {
            made++;
            goto fail;
        }
    }
    return 0;
fail:
    for (int k = 0; k < made; k++) {
        snprintf(path, sizeof(path), "%s/%s", dir, a[k].name);
        unlink(path);
    }
    return -1;
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

int npy_arrays_export(const char *dir, const NpyArray *a, int n, uint32_t *crc, char *err, size_t errlen) {
    for (int k = 0; k < n; k++) {
        const char *bad = weights_unusable(a[k].data, count_of(&a[k]));
        if (bad) {
            snprintf(err, errlen, "cannot export: %s", bad);
            return -1;
        }
    }
    return write_arrays(dir, a, n, crc, err, errlen);
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
    const size_t cap = 256 + (size_t)MODEL_NOTES_MAX * 168 + (size_t)NPY_ARRAYS_MAX * (MODEL_FILE_MAX + 10) + st + 1;
    char *text = malloc(cap), path[NPY_PATH_MAX];
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t used = (size_t)snprintf(text, cap,
        "# a pongrl model (pongrl export): the settings of the network beside it "
        "(docs/runs.md)\nformat=%d\n",
        MODEL_TXT_FORMAT);
    for (int k = 0; k < notes->files; k++)
        used += (size_t)snprintf(text + used, cap - used, "%s%s:%08x%s", k ? "" : MODEL_CRC32 "=", notes->file[k],
            (unsigned)notes->crc[k], k + 1 < notes->files ? "," : "\n");
    for (int i = 0; i < notes->n; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s=%s\n", notes->key[i], notes->value[i]);
    used += train_config_write(cfg, SETTING_RUN, text + used, cap - used);
    snprintf(path, sizeof(path), "%s/%s", dir, MODEL_TXT);
    int fd = create_new(path, err, errlen), rc = -1;
    if (fd >= 0 && file_write_all(fd, (const uint8_t *)text, used)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
    } else if (fd >= 0)
        rc = finish_new(fd, path, NULL, err, errlen);
    if (rc && fd >= 0) unlink(path);
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
    // model.txt last, with each array's crc32: a reader checks that the files beside it are these
    ModelNotes with = *notes;
    uint32_t crc[NPY_ARRAYS_MAX];
    if (n > NPY_ARRAYS_MAX || npy_arrays_export(dir, a, n, crc, err, errlen)) return -1;
    with.files = n;
    for (int k = 0; k < n; k++) {
        snprintf(with.file[k], sizeof(with.file[k]), "%s", a[k].name);
        with.crc[k] = crc[k];
    }
    if (model_txt_write(dir, cfg, &with, err, errlen)) return -1;
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

// The crc32 line's value into notes: NAME:hhhhhhhh entries (8 hex digits), separated by commas,
// each NAME a .npy file of the folder itself (no '/', not hidden), none twice, at most
// NPY_ARRAYS_MAX. 0, or -1 with the reason in why.
static int crc32_line_read(char *v, ModelNotes *notes, char *why, size_t whylen) {
    if (notes->files) {
        snprintf(why, whylen, "crc32 given twice");
        return -1;
    }
    for (char *e = v, *next; e; e = next) {
        next = strchr(e, ',');
        if (next) *next++ = 0;
        char *colon = strrchr(e, ':');
        const size_t len = colon ? (size_t)(colon - e) : 0;
        bool hex = colon && strlen(colon + 1) == 8;
        for (int i = 1; hex && i <= 8; i++) hex = strchr("0123456789abcdefABCDEF", colon[i]) != NULL;
        if (!hex || len < 5 || len >= MODEL_FILE_MAX || strncmp(colon - 4, ".npy", 4) || e[0] == '.' ||
            memchr(e, '/', len)) {
            snprintf(why, whylen, "crc32: '%.40s' is not NAME.npy:hhhhhhhh (8 hex digits)", e);
            return -1;
        }
        *colon = 0;
        for (int k = 0; k < notes->files; k++)
            if (!strcmp(notes->file[k], e)) {
                snprintf(why, whylen, "crc32: %s given twice", e);
                return -1;
            }
        if (notes->files == NPY_ARRAYS_MAX) {
            snprintf(why, whylen, "crc32: more than %d files", NPY_ARRAYS_MAX);
            return -1;
        }
        snprintf(notes->file[notes->files], sizeof(notes->file[0]), "%s", e);
        notes->crc[notes->files++] = (uint32_t)strtoul(colon + 1, NULL, 16);
    }
    return 0;
}

int model_files_check(const char *dir, const ModelNotes *notes, char *err, size_t errlen) {
    const size_t CHUNK = 1 << 20;
    unsigned char *buf = notes->files ? malloc(CHUNK) : NULL;
    if (notes->files && !buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int k = 0; k < notes->files && !rc; k++) {
        char path[NPY_PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, notes->file[k]);
        int fd = file_open_read(path, err, errlen); // a FIFO or a device: refused, never waited on
        if (fd < 0) {
            rc = -1;
            break;
        }
        uLong c = crc32(0L, Z_NULL, 0);
        ssize_t got;
        while ((got = read(fd, buf, CHUNK)) != 0) {
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) break;
            c = crc32(c, buf, (uInt)got);
        }
        if (got < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            rc = -1;
        } else if ((uint32_t)c != notes->crc[k]) {
            snprintf(err, errlen,
                "%s: not the file %s/%s was written with (crc32 %08x, model.txt says %08x): the folder mixes "
                "two exports",
                path, dir, MODEL_TXT, (unsigned)c, (unsigned)notes->crc[k]);
            rc = -1;
        }
        close(fd);
    }
    free(buf);
    return rc;
}

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
        } else if (!strcmp(line, MODEL_CRC32)) {
            if (crc32_line_read(eq + 1, notes, why, sizeof(why))) {
                snprintf(err, errlen, "%s: %s", path, why);
                goto out;
            }
        } else if (train_setting_find(line) || train_setting_retired(line)) { // read, or skipped
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

// ----------------------------------------------------------------------------
// an export's folder

static bool export_name(const char *name, size_t len) {
    return (len == strlen(MODEL_TXT) && !strncmp(name, MODEL_TXT, len)) ||
        (len > 4 && !strncmp(name + len - 4, ".npy", 4));
}

// A pure function of name (dir_replace.h: the signal handler calls it): no locale, no allocation.
bool npy_export_owns(const char *name) {
    const size_t len = strlen(name);
    if (name[0] == '.') return false; // hidden: a user's
    if (export_name(name, len)) return true;
    // NAME.p<pid>.<8 hex>.tmp or NAME.<8 hex>.tmp (file.h's temporaries) of such a NAME
    char base[MODEL_FILE_MAX];
    for (size_t i = 1; i < len && i < sizeof(base); i++)
        if (name[i] == '.' && export_name(name, i)) {
            memcpy(base, name, i);
            base[i] = 0;
            if (file_tmp_of(name, base) >= 0) return true;
        }
    return false;
}
