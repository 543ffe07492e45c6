// test_algo.c: the list of learners as a registry (algo/algo.h): the built-in learners first, a
// learner a program adds found by name and listed after them, and each bad addition refused in
// one line with the list unchanged: NULL, a bad or taken name, a slot every learner fills left
// NULL, stream keys that are not their names' words or that take a shared or a listed
// learner's key, a full list. (Criterion runs each test in a process of its own: the list starts
// with the built-in learners in each.)
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "algo/algo.h"
#include "algo/pg/pg.h"

static int count(void) {
    int n = 0;
    for (const Learner *const *l = algo_learners(); *l; l++) n++;
    return n;
}

// A learner with every slot (pg's) and keys of its own.
static const StreamDecl MINE_STREAMS[] = { { 0x6d696e65, "mine", false }, { 0x6d696e66, "minf", true }, { 0 } };
static Learner mine(const char *name) {
    Learner l = PG_LEARNER;
    l.name = name;
    l.streams = MINE_STREAMS;
    return l;
}

// algo_register(l) is refused with one line matching `want`, the list unchanged.
static void refused(const Learner *l, const char *want) {
    char err[256] = "";
    const int before = count();
    cr_assert_eq(algo_register(l, err, sizeof err), -1, "accepted (want '%s')", want);
    cr_assert(strstr(err, want), "'%s' (want '%s')", err, want);
    cr_assert_null(strchr(err, '\n'), "%s", err);
    cr_assert_eq(count(), before);
}

Test(algo, the_built_in_learners_come_first_the_default_first) {
    const Learner *const *l = algo_learners();
    cr_assert_str_eq(l[0]->name, ALGO_DEFAULT);
    cr_assert_geq(count(), 3);
    cr_assert_eq(algo_find("pg"), &PG_LEARNER);
    cr_assert_not_null(algo_find("ppo"));
    cr_assert_not_null(algo_find("qrdqn"));
    cr_assert_null(algo_find("mine"));
}

Test(algo, a_registered_learner_is_found_and_listed_after_them) {
    static Learner l;
    l = mine("mine");
    const int before = count();
    char err[256];
    cr_assert_eq(algo_register(&l, err, sizeof err), 0, "%s", err);
    cr_assert_eq(count(), before + 1);
    cr_assert_eq(algo_learners()[before], &l);
    cr_assert_null(algo_learners()[before + 1]);
    cr_assert_eq(algo_find("mine"), &l);
    cr_assert_eq(ALGO_LEARNERS[0], &PG_LEARNER, "the default stays first");
    // a second of the same name, or with one of its keys, is refused naming it
    static Learner again, same_key;
    again = mine("mine");
    refused(&again, "a learner of that name already");
    same_key = mine("other");
    refused(&same_key, "\"mine\" is one of --algo mine's");
}

Test(algo, refuses_null_and_bad_names) {
    refused(NULL, "NULL");
    static Learner l[6];
    const char *names[] = { "", "Mine", "a=b", "a b", "sixteen_letters_", NULL };
    for (int i = 0; i < 5; i++) {
        l[i] = mine(names[i]);
        refused(&l[i], "a learner's name must be");
    }
    l[5] = mine(NULL);
    refused(&l[5], "a learner's name must be");
    static Learner pg;
    pg = mine("pg");
    refused(&pg, "--algo pg: the build has a learner of that name already");
}

Test(algo, refuses_a_learner_without_a_slot_every_learner_fills) {
    static Learner l[4];
    l[0] = mine("a"), l[0].iterate = NULL;
    l[1] = mine("b"), l[1].agent = NULL;
    l[2] = mine("c"), l[2].streams = NULL;
    l[3] = mine("d"), l[3].summary = NULL;
    refused(&l[0], "--algo a: its iterate is NULL");
    refused(&l[1], "--algo b: its agent is NULL");
    refused(&l[2], "--algo c: its streams is NULL");
    refused(&l[3], "--algo d: its summary is NULL");
    static Learner ok; // the slots only some learners have may stay NULL
    ok = mine("e"), ok.network = NULL, ok.check = NULL, ok.bare_npy = NULL, ok.episodes_per_iteration = NULL;
    char err[256];
    cr_assert_eq(algo_register(&ok, err, sizeof err), 0, "%s", err);
}

Test(algo, refuses_stream_keys_that_collide) {
    static const StreamDecl pgs[] = { { 0x656e76, "env", false }, { 0 } };         // pg's
    static const StreamDecl shared[] = { { STREAM_VECENV, "venv", true }, { 0 } }; // util/streams.h's
    static const StreamDecl twice[] = { { 0x71717171, "qqqq", false }, { 0x71717171, "qqqq", false }, { 0 } };
    static const StreamDecl misnamed[] = { { 0x71717171, "qqqr", false }, { 0 } };
    static const StreamDecl name_taken[] = { { 0x71717172, "eval", false }, { 0 } };
    static Learner l[5];
    const StreamDecl *lists[] = { pgs, shared, twice, misnamed, name_taken };
    const char *want[] = { "\"env\" is one of --algo pg's", "\"venv\" is one of the shared keys",
        "declares the stream key \"qqqq\" twice", "0x71717171 is not the word of \"qqqr\"", "is not the word" };
    for (int i = 0; i < 5; i++) {
        l[i] = mine("keys"), l[i].streams = lists[i];
        refused(&l[i], want[i]);
    }
}

Test(algo, refuses_a_learner_when_the_list_is_full) {
    static Learner l[ALGO_LEARNERS_MAX];
    static char names[ALGO_LEARNERS_MAX][8];
    static StreamDecl keys[ALGO_LEARNERS_MAX][2];
    char err[256];
    int added = 0;
    for (int i = 0; count() < ALGO_LEARNERS_MAX; i++, added++) {
        snprintf(names[i], sizeof names[i], "l%d", i);
        keys[i][0] = (StreamDecl){ 0x6b6b6b41u + (uint32_t)i, NULL, false };
        static char kn[ALGO_LEARNERS_MAX][5];
        snprintf(kn[i], 5, "kkk%c", 'A' + i);
        keys[i][0].name = kn[i];
        l[i] = mine(names[i]), l[i].streams = keys[i];
        cr_assert_eq(algo_register(&l[i], err, sizeof err), 0, "%s", err);
    }
    cr_assert_gt(added, 0);
    static Learner last;
    last = mine("last");
    refused(&last, "--algo last: the list of learners is full (16)");
}
