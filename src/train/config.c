// config.c: the settings table's rows (config.h), the defaults, and the walks over the rows
// that every user of the settings shares: set from text, print as text, copy by role.
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../env/env.h"
#include "../util/fmt.h"
#include "../util/num.h"

// ----------------------------------------------------------------------------
// the rows

#define SETTING_HAS_OPT(name) .has_offset = offsetof(TrainConfig, has_##name),
#define SETTING_HAS_STR(name)
#define SETTING_HAS_INT(name)
#define SETTING_HAS_I64(name)
#define SETTING_HAS_U64(name)
#define SETTING_HAS_F64(name)
#define SETTING_HAS_BOOL(name)

// clang-format off
const TrainSetting TRAIN_SETTING_ROWS[] = {
#define SETTING(kind_, name_, flag_, def_, before_, min_, max_, role_, learner_, help_) \
    { .kind = SETTING_##kind_, .name = #name_, .flag = flag_, .offset = offsetof(TrainConfig, name_), \
      SETTING_HAS_##kind_(name_) .def = def_, .before = before_, \
      .min = (double)(min_), .max = (double)(max_), .role = SETTING_##role_, .learner = learner_, .help = help_ },
#include "settings.def"
};
// clang-format on
const int TRAIN_SETTING_COUNT = (int)(sizeof(TRAIN_SETTING_ROWS) / sizeof(TRAIN_SETTING_ROWS[0]));

const TrainSettingUse TRAIN_SETTING_USES[] = {
#define SETTING(...)
#define SETTING_USE(learner_, name_, def_) { .learner = learner_, .name = #name_, .def = def_ },
#include "settings.def"
};
const int TRAIN_SETTING_USE_COUNT = (int)(sizeof(TRAIN_SETTING_USES) / sizeof(TRAIN_SETTING_USES[0]));

static const char *const TRAIN_SETTINGS_RETIRED[] = {
    "chunk", // PPO's gradient chunk before its sums became exact (any value gave the same bits)
    NULL,
};

// The learner's SETTING_USE row for the row, or NULL.
static const TrainSettingUse *setting_use(const TrainSetting *row, const char *learner) {
    for (int i = 0; i < TRAIN_SETTING_USE_COUNT; i++)
        if (!strcmp(TRAIN_SETTING_USES[i].name, row->name) && !strcmp(TRAIN_SETTING_USES[i].learner, learner))
            return &TRAIN_SETTING_USES[i];
    return NULL;
}

bool train_setting_retired(const char *name) {
    for (int i = 0; TRAIN_SETTINGS_RETIRED[i]; i++)
        if (!strcmp(TRAIN_SETTINGS_RETIRED[i], name)) return true;
    return false;
}

// ----------------------------------------------------------------------------
// defaults

int train_cores_available(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

static void *field(TrainConfig *c, const TrainSetting *row) { return (char *)c + row->offset; }
static const void *cfield(const TrainConfig *c, const TrainSetting *row) { return (const char *)c + row->offset; }

static const char *parse(const TrainSetting *row, TrainConfig *c, const char *text, bool ranged, char *why, size_t n);

// The table's own text: a default that does not read is the table's mistake (a unit test reads
// every one), never a user's.
static void set_default(TrainConfig *c, const TrainSetting *row, const char *text) {
    char why[128];
    parse(row, c, text, false, why, sizeof(why));
}

void train_config_default(TrainConfig *c) {
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        set_default(c, row, row->before[0] ? row->before : row->def);
    }
    c->workers = train_cores_available();
}

const char *train_setting_default(const TrainSetting *row, const char *algo, char *out, size_t n) {
    const TrainSettingUse *use = setting_use(row, algo);
    snprintf(out, n, "%s", use && use->def[0] ? use->def : row->def);
    return out;
}

void train_config_fresh(TrainConfig *c, const char *algo) {
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        char text[TRAIN_STR_MAX];
        set_default(c, &TRAIN_SETTING_ROWS[i], train_setting_default(&TRAIN_SETTING_ROWS[i], algo, text, sizeof(text)));
    }
    snprintf(c->algo, sizeof(c->algo), "%s", algo);
    c->workers = train_cores_available();
}

// ----------------------------------------------------------------------------
// the walks

bool train_setting_of(const TrainSetting *row, const char *learner) {
    if (!learner[0]) return !row->learner[0];
    if (!strcmp(row->learner, "+")) return setting_use(row, learner) != NULL;
    return !strcmp(row->learner, learner);
}

const char *train_setting_learners(const TrainSetting *row, const char *sep, char *out, size_t n) {
    size_t used = 0;
    out[0] = 0;
    if (strcmp(row->learner, "+")) {
        snprintf(out, n, "%s", row->learner);
        return out;
    }
    for (int i = 0; i < TRAIN_SETTING_USE_COUNT && used < n; i++)
        if (!strcmp(TRAIN_SETTING_USES[i].name, row->name))
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? sep : "", TRAIN_SETTING_USES[i].learner);
    return out;
}

bool train_setting_applies(const TrainSetting *row, const TrainConfig *c) {
    return !row->learner[0] || train_setting_of(row, c->algo);
}

const TrainSetting *train_setting_find(const char *name) {
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++)
        if (!strcmp(TRAIN_SETTING_ROWS[i].name, name)) return &TRAIN_SETTING_ROWS[i];
    return NULL;
}

const char *train_setting_set(const TrainSetting *row, TrainConfig *c, const char *text, char *why, size_t n) {
    return parse(row, c, text, true, why, n);
}

// The range's message, as the flags and the checks of a configuration say it.
static const char *out_of_range_int(const TrainSetting *row, long long v, char *why, size_t n) {
    snprintf(why, n, "must be in [%.0f, %lld], got %lld", row->min,
        row->kind == SETTING_INT || row->max < 9e18 ? (long long)row->max : (long long)INT64_MAX, v);
    return why;
}
static const char *out_of_range(const TrainSetting *row, double v, char *why, size_t n) {
    snprintf(why, n, "must be in [%g, %g], got %g", row->min, row->max, v);
    return why;
}

static const char *parse(const TrainSetting *row, TrainConfig *c, const char *text, bool ranged, char *why, size_t n) {
    void *f = field(c, row);
    char *end;
    errno = 0;
    switch (row->kind) {
        case SETTING_STR:
            if (strlen(text) >= TRAIN_STR_MAX) {
                snprintf(why, n, "too long (%zu bytes)", strlen(text));
                return why;
            }
            if (ranged && f == (void *)c->env_id && !env_preset_find(text)) {
                snprintf(why, n, "unknown environment '%s'", text);
                return why;
            }
            snprintf(f, TRAIN_STR_MAX, "%s", text);
            return NULL;
        case SETTING_BOOL:
            if (strcmp(text, "true") && strcmp(text, "false")) {
                snprintf(why, n, "expects true or false, got '%s'", text);
                return why;
            }
            *(bool *)f = !strcmp(text, "true");
            return NULL;
        case SETTING_U64: {
            unsigned long long v = strtoull(text, &end, 10);
            if (!num_plain(text, false, false) || errno || end == text || *end) {
                snprintf(why, n, "expects a non-negative integer, got '%s'", text);
                return why;
            }
            *(uint64_t *)f = v;
            return NULL;
        }
        case SETTING_INT:
        case SETTING_I64: {
            long long v = strtoll(text, &end, 10);
            if (!num_plain(text, true, false) || errno || end == text || *end) {
                snprintf(why, n, "expects an integer, got '%s'", text);
                return why;
            }
            if (ranged && ((double)v < row->min || (double)v > row->max)) return out_of_range_int(row, v, why, n);
            if (row->kind == SETTING_INT)
                *(int *)f = (int)v;
            else
                *(int64_t *)f = v;
            return NULL;
        }
        case SETTING_F64:
        case SETTING_OPT: {
            if (row->kind == SETTING_OPT && !strcmp(text, "none")) {
                *(bool *)((char *)c + row->has_offset) = false;
                *(double *)f = 0;
                return NULL;
            }
            double v = strtod(text, &end);
            if (!num_plain(text, true, true) || errno || end == text || *end || !isfinite(v)) {
                snprintf(why, n, "expects a number, got '%s'", text);
                return why;
            }
            if (ranged && (v < row->min || v > row->max)) return out_of_range(row, v, why, n);
            *(double *)f = v;
            if (row->kind == SETTING_OPT) *(bool *)((char *)c + row->has_offset) = true;
            return NULL;
        }
    }
    return "unknown kind";
}

// A number as short as reads back the same bits, whole numbers as such (300, not 3e+02).
static const char *number_text(double v, char *out, size_t n) {
    if (v == (double)(long long)v && fabs(v) < 1e15)
        snprintf(out, n, "%lld", (long long)v);
    else
        fmt_shortest(v, out, n);
    return out;
}

const char *train_setting_text(const TrainSetting *row, const TrainConfig *c, char *out, size_t n) {
    const void *f = cfield(c, row);
    switch (row->kind) {
        case SETTING_STR: snprintf(out, n, "%s", (const char *)f); break;
        case SETTING_INT: snprintf(out, n, "%d", *(const int *)f); break;
        case SETTING_I64: snprintf(out, n, "%lld", (long long)*(const int64_t *)f); break;
        case SETTING_U64: snprintf(out, n, "%llu", (unsigned long long)*(const uint64_t *)f); break;
        case SETTING_F64: number_text(*(const double *)f, out, n); break;
        case SETTING_OPT:
            if (*(const bool *)((const char *)c + row->has_offset))
                number_text(*(const double *)f, out, n);
            else
                snprintf(out, n, "none");
            break;
        case SETTING_BOOL: snprintf(out, n, "%s", *(const bool *)f ? "true" : "false"); break;
    }
    return out;
}

const char *train_config_check(const TrainConfig *c, char *why, size_t n) {
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        if (!train_setting_applies(row, c)) continue;
        const void *f = cfield(c, row);
        char r[96];
        long long k;
        double v;
        switch (row->kind) {
            case SETTING_INT:
            case SETTING_I64:
                k = row->kind == SETTING_INT ? *(const int *)f : (long long)*(const int64_t *)f;
                if ((double)k < row->min || (double)k > row->max) {
                    snprintf(why, n, "--%s %s", row->flag, out_of_range_int(row, k, r, sizeof(r)));
                    return why;
                }
                continue;
            case SETTING_F64: v = *(const double *)f; break;
            case SETTING_OPT:
                if (!*(const bool *)((const char *)c + row->has_offset)) continue;
                v = *(const double *)f;
                break;
            case SETTING_STR:
                if (f == (const void *)c->env_id && !env_preset_find(c->env_id)) {
                    snprintf(why, n, "unknown environment '%s'", c->env_id);
                    return why;
                }
                continue;
            default: continue;
        }
        if (!(v >= row->min && v <= row->max)) {
            snprintf(why, n, "--%s %s", row->flag, out_of_range(row, v, r, sizeof(r)));
            return why;
        }
    }
    return NULL;
}

static size_t field_size(const TrainSetting *row) {
    switch (row->kind) {
        case SETTING_STR: return TRAIN_STR_MAX;
        case SETTING_INT: return sizeof(int);
        case SETTING_I64: return sizeof(int64_t);
        case SETTING_U64: return sizeof(uint64_t);
        case SETTING_F64:
        case SETTING_OPT: return sizeof(double);
        case SETTING_BOOL: return sizeof(bool);
    }
    return 0;
}

void train_config_copy(TrainConfig *dst, const TrainConfig *src, int roles, const bool *only) {
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        if (!(row->role & roles) || (only && !only[i])) continue;
        memcpy(field(dst, row), cfield(src, row), field_size(row));
        if (row->kind == SETTING_OPT)
            *(bool *)((char *)dst + row->has_offset) = *(const bool *)((const char *)src + row->has_offset);
    }
}

size_t train_config_write(const TrainConfig *c, int roles, char *out, size_t n) {
    size_t used = 0;
    if (out && n) out[0] = 0;
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        if (!(row->role & roles) || !train_setting_applies(row, c)) continue;
        char v[TRAIN_STR_MAX + 32];
        int k = snprintf(out && used < n ? out + used : NULL, out && used < n ? n - used : 0, "%s=%s\n", row->name,
            train_setting_text(row, c, v, sizeof(v)));
        used += (size_t)k;
    }
    return used;
}

const char *train_config_read(TrainConfig *c, const char *text, size_t len, int roles, char *why, size_t n) {
    bool seen[TRAIN_SETTING_COUNT];
    memset(seen, 0, sizeof(seen));
    size_t pos = 0;
    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        if (!nl) {
            snprintf(why, n, "settings: a line without its end");
            return why;
        }
        char buf[TRAIN_STR_MAX + 64];
        if ((size_t)(nl - line) >= sizeof(buf) || memchr(line, 0, (size_t)(nl - line))) {
            snprintf(why, n, "settings: a bad line");
            return why;
        }
        memcpy(buf, line, (size_t)(nl - line));
        buf[nl - line] = 0;
        pos += (size_t)(nl - line) + 1;
        char *eq = strchr(buf, '=');
        if (!eq) {
            snprintf(why, n, "settings: a line without '='");
            return why;
        }
        *eq = 0;
        if (train_setting_retired(buf)) continue;
        const TrainSetting *row = train_setting_find(buf);
        if (!row || !(row->role & roles)) {
            snprintf(why, n, "unknown setting '%.32s'", buf);
            return why;
        }
        if (seen[row - TRAIN_SETTING_ROWS]) {
            snprintf(why, n, "setting %s given twice", row->name);
            return why;
        }
        seen[row - TRAIN_SETTING_ROWS] = true;
        char v[96];
        const char *bad = train_setting_set(row, c, eq + 1, v, sizeof(v));
        if (bad) {
            snprintf(why, n, "setting %s %s", row->name, bad);
            return why;
        }
    }
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++)
        if (seen[i] && !train_setting_applies(&TRAIN_SETTING_ROWS[i], c)) {
            snprintf(why, n, "setting %s is not one of the %s learner's", TRAIN_SETTING_ROWS[i].name, c->algo);
            return why;
        }
    return NULL;
}
