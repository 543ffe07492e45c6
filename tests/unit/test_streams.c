// test_streams.c: no two random streams of the build share a key. The shared keys
// (util/streams.h) and every listed learner's (algo/algo.c's ALGO_LEARNERS, each declaring its
// own in its folder) are gathered: every word is distinct, and so is its name, the word's bytes
// (up to 4 ASCII letters, the first in the high byte). A vector env takes "venv" and a
// learner's env words, never another shared word. The checker is itself shown to catch two
// learners declaring one word.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "algo/algo.h"
#include "util/streams.h"

#define KEYS_MAX 64


// NULL when the NULL-terminated lists' keys are all distinct, as words and as names, each
// name the word's bytes; else one line in why (owner: each list's owner, for the line).
static const char *keys_clash(const StreamDecl *const *lists, const char *const *owner, int n, char *why, size_t len) {
    const StreamDecl *seen[KEYS_MAX];
    const char *whose[KEYS_MAX];
    int count = 0;
    for (int l = 0; l < n; l++) {
        if (!lists[l]) {
            snprintf(why, len, "%s declares no keys (Learner.streams NULL)", owner[l]);
            return why;
        }
        for (const StreamDecl *d = lists[l]; d->name; d++) {
            char name[5];
            if (!stream_word_name(d->word, name) || strcmp(name, d->name)) {
                snprintf(why, len, "%s: the word 0x%08x is not the name \"%s\"", owner[l], (unsigned)d->word, d->name);
                return why;
            }
            for (int k = 0; k < count; k++)
                if (seen[k]->word == d->word || !strcmp(seen[k]->name, d->name)) {
                    snprintf(
                        why, len, "\"%s\" of %s and \"%s\" of %s: one key", seen[k]->name, whose[k], d->name, owner[l]);
                    return why;
                }
            cr_assert_lt(count, KEYS_MAX);
            seen[count] = d;
            whose[count++] = owner[l];
        }
    }
    return NULL;
}

// The shared keys, then every learner's, with their owners; returns how many lists.
static int build_keys(const StreamDecl **lists, const char **owner) {
    int n = 0;
    lists[n] = stream_shared();
    owner[n++] = "util/streams.h";
    for (const Learner *const *l = ALGO_LEARNERS; *l; l++) {
        lists[n] = (*l)->streams;
        owner[n++] = (*l)->name;
    }
    return n;
}

Test(streams, no_two_keys_of_the_build_collide) {
    const StreamDecl *lists[16];
    const char *owner[16];
    int n = build_keys(lists, owner);
    cr_assert_geq(n, 4, "the shared keys and pg's, ppo's and qrdqn's at least");
    char why[160];
    const char *bad = keys_clash(lists, owner, n, why, sizeof why);
    cr_assert_null(bad, "%s", bad);
}

Test(streams, a_vector_env_takes_venv_and_the_learners_env_words_only) {
    cr_assert(stream_is_env_episode(STREAM_VECENV));
    cr_assert_not(stream_is_env_episode(STREAM_EVAL));
    cr_assert_not(stream_is_env_episode(STREAM_ATARI));
    int env_words = 0;
    for (const Learner *const *l = ALGO_LEARNERS; *l; l++)
        for (const StreamDecl *d = (*l)->streams; d && d->name; d++)
            if (d->env_episode) {
                cr_assert(stream_is_env_episode(d->word), "%s's \"%s\"", (*l)->name, d->name);
                env_words++;
            }
    cr_assert_geq(env_words, 2, "ppo's and qrdqn's env words");
}

Test(streams, the_check_catches_two_learners_with_one_word) {
    static const StreamDecl a[] = { { 0x61616161, "aaaa", false }, { 0x61616162, "aaab", true }, { 0 } };
    static const StreamDecl b[] = { { 0x62626262, "bbbb", false }, { 0x61616162, "aaab", false }, { 0 } };
    static const StreamDecl misnamed[] = { { 0x63636363, "cccd", false }, { 0 } };
    char why[160];
    const StreamDecl *lists[] = { stream_shared(), a, b };
    const char *owner[] = { "shared", "a", "b" };
    cr_assert_null(keys_clash(lists, owner, 2, why, sizeof why));
    cr_assert_not_null(keys_clash(lists, owner, 3, why, sizeof why));
    cr_assert(strstr(why, "\"aaab\" of a and \"aaab\" of b"), "%s", why);
    const StreamDecl *venv_again[] = { stream_shared(),
        (const StreamDecl[]){ { STREAM_VECENV, "venv", true }, { 0 } } };
    cr_assert_not_null(keys_clash(venv_again, owner, 2, why, sizeof why), "a learner taking a shared word");
    const StreamDecl *bad_name[] = { misnamed };
    cr_assert_not_null(keys_clash(bad_name, owner, 1, why, sizeof why), "a name that is not its word");
    const StreamDecl *none[] = { NULL };
    cr_assert_not_null(keys_clash(none, owner, 1, why, sizeof why), "a learner without its list");
}
