// args.c: flag value parsing shared by the subcommands, and the one way they refuse a usage.
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../env/env.h"
#include "../util/num.h"
#include "../util/say.h"

void die_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say_vline(stderr, "pongrl: ", " (see --help)", fmt, ap);
    va_end(ap);
    exit(2);
}

bool arg_is_help(const char *s) { return !strcmp(s, "-h") || !strcmp(s, "--help"); }

long long arg_int(const char *flag, const char *s, long long lo, long long hi) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!num_plain(s, true, false) || errno || end == s || *end) die_usage("%s expects an integer, got '%s'", flag, s);
    if (v < lo || v > hi) die_usage("%s must be in [%lld, %lld], got %lld", flag, lo, hi, v);
    return v;
}

double arg_double(const char *flag, const char *s, double lo, double hi) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!num_plain(s, true, true) || errno || end == s || *end || !isfinite(v))
        die_usage("%s expects a number, got '%s'", flag, s);
    if (v < lo || v > hi) die_usage("%s must be in [%g, %g], got %g", flag, lo, hi, v);
    return v;
}

uint64_t arg_u64(const char *flag, const char *s) {
    char *end;
    errno = 0;
    if (!num_plain(s, false, false)) die_usage("%s expects a non-negative integer, got '%s'", flag, s);
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end) die_usage("%s expects a non-negative integer, got '%s'", flag, s);
    return v;
}

const char *arg_env(const char *flag, const char *s) {
    if (env_preset_find(s)) return s;
    // Gymnasium's names for the same presets (python/pongrl registers them): pongrl/Pong-v5 is
    // ALE/Pong-v5, pongrl/PongNoFrameskip-v4 is PongNoFrameskip-v4
    if (!strncmp(s, "pongrl/", 7))
        for (const EnvPreset *p = ENV_PRESETS; p->id; p++) {
            const char *slash = strrchr(p->id, '/');
            if (!strcmp(slash ? slash + 1 : p->id, s + 7)) return p->id;
        }
    char list[512] = "";
    for (const EnvPreset *p = ENV_PRESETS; p->id; p++) {
        strncat(list, p->id, sizeof(list) - strlen(list) - 1);
        if (p[1].id) strncat(list, ", ", sizeof(list) - strlen(list) - 1);
    }
    die_usage("%s: unknown environment '%s' (known: %s, or pongrl/<name>)", flag, s, list);
}
