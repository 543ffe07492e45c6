// algo.c: the learners this build has, and the list a program adds its own to (algo.h).
#include "algo.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../train/model.h"
#include "pg/pg.h"
#include "ppo/ppo.h"
#include "qrdqn/qrdqn.h"

// The built-in learners, the default first: a line each.
static const Learner *const ALGO_BUILTIN[] = {
    &PG_LEARNER,
    &PPO_LEARNER,
    &QRDQN_LEARNER,
};

// The registry: the process's one list of learners (the built-in ones put in once, on first
// use, through the same checks as a registered one).
static struct {
    pthread_once_t once;
    int n;
    const Learner *list[ALGO_LEARNERS_MAX + 1]; // NULL-terminated
} registry = { PTHREAD_ONCE_INIT, 0, { NULL } };

// ----------------------------------------------------------------------------
// the checks


// Whether d takes the word or the name of a key of `keys` (a list ending with a zeroed key),
// before `end` (NULL: the whole list).
static bool key_taken(const StreamDecl *keys, const StreamDecl *end, const StreamDecl *d) {
    for (; keys && keys->name && keys != end; keys++)
        if (keys->word == d->word || !strcmp(keys->name, d->name)) return true;
    return false;
}

// What is wrong with l's stream keys, or NULL.
static const char *streams_clash(const Learner *l, char *why, size_t n) {
    for (const StreamDecl *d = l->streams; d->name; d++) {
        char name[5];
        if (!stream_word_name(d->word, name) || strcmp(name, d->name))
            snprintf(why, n, "its stream key 0x%08x is not the word of \"%.8s\"", (unsigned)d->word, d->name);
        else if (key_taken(l->streams, d, d))
            snprintf(why, n, "it declares the stream key \"%s\" twice", d->name);
        else if (key_taken(stream_shared(), NULL, d))
            snprintf(why, n, "its stream key \"%s\" is one of the shared keys (util/streams.h)", d->name);
        else {
            for (int i = 0; i < registry.n; i++)
                if (key_taken(registry.list[i]->streams, NULL, d)) {
                    snprintf(why, n, "its stream key \"%s\" is one of --algo %s's", d->name, registry.list[i]->name);
                    return why;
                }
            continue;
        }
        return why;
    }
    return NULL;
}

// The slot every learner fills that l leaves NULL, or NULL.
static const char *slot_missing(const Learner *l) {
    const struct {
        const char *name;
        bool set;
    } slots[] = { { "summary", l->summary }, { "npy_files", l->npy_files }, { "metrics", l->metrics },
        { "memory_bytes", l->memory_bytes }, { "create", l->create }, { "destroy", l->destroy },
        { "arrays", l->arrays }, { "settle", l->settle }, { "settled", l->settled }, { "iterate", l->iterate },
        { "weights", l->weights }, { "export_npy", l->export_npy }, { "import_npy", l->import_npy },
        { "agent", l->agent }, { "streams", l->streams } };
    for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
        if (!slots[i].set) return slots[i].name;
    return NULL;
}

static bool name_ok(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n >= ALGO_NAME_MAX) return false;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return false;
    return true;
}

// What is wrong with adding l to the list, or NULL.
static const char *refusal(const Learner *l, char *why, size_t n) {
    const char *slot;
    if (!l) return "no learner (NULL)";
    if (!l->name || !name_ok(l->name)) {
        snprintf(why, n, "a learner's name must be 1 to %d of a-z, 0-9 and _, not '%.32s'", ALGO_NAME_MAX - 1,
            l->name ? l->name : "(NULL)");
        return why;
    }
    if (learner_find(registry.list, l->name)) {
        snprintf(why, n, "--algo %s: the build has a learner of that name already", l->name);
        return why;
    }
    if (registry.n == ALGO_LEARNERS_MAX) {
        snprintf(why, n, "--algo %s: the list of learners is full (%d)", l->name, ALGO_LEARNERS_MAX);
        return why;
    }
    if ((slot = slot_missing(l))) {
        snprintf(why, n, "--algo %s: its %s is NULL (every learner fills it: train/learner.h)", l->name, slot);
        return why;
    }
    char clash[128];
    if (streams_clash(l, clash, sizeof(clash))) {
        snprintf(why, n, "--algo %s: %s", l->name, clash);
        return why;
    }
    return NULL;
}

// ----------------------------------------------------------------------------
// the list

static void register_builtin(void) {
    char err[256];
    for (size_t i = 0; i < sizeof(ALGO_BUILTIN) / sizeof(ALGO_BUILTIN[0]); i++) {
        const char *bad = refusal(ALGO_BUILTIN[i], err, sizeof(err));
        if (bad) { // the build's own list is wrong: no run of it can be trusted
            fprintf(stderr, "pongrl: built-in learner refused: %s\n", bad);
            abort();
        }
        registry.list[registry.n++] = ALGO_BUILTIN[i];
    }
}

const Learner *const *algo_learners(void) {
    pthread_once(&registry.once, register_builtin);
    return registry.list;
}

int algo_register(const Learner *l, char *err, size_t errlen) {
    algo_learners();
    const char *bad = refusal(l, err, errlen);
    if (bad) {
        if (bad != err) snprintf(err, errlen, "%s", bad);
        return -1;
    }
    registry.list[registry.n++] = l;
    registry.list[registry.n] = NULL;
    return 0;
}

void algo_print_npy_files(void) {
    for (const Learner *const *l = ALGO_LEARNERS; *l; l++) printf("  --algo %-6s %s\n", (*l)->name, (*l)->npy_files);
}

TrainState *model_open(const char *src, char *err, size_t errlen) {
    return model_open_with(src, ALGO_LEARNERS, err, errlen);
}
