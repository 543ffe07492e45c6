// algo.h: the learners this build has (learner.h gives their shape): `pongrl train --algo NAME`.
//   pg     Karpathy's recipe (pg/pg.h), the default
//   ppo    proximal policy optimisation
//   qrdqn  quantile-regression DQN
// The list is the registry: the built-in learners (algo.c, a line each), then any a program
// adds with algo_register before it parses its arguments (a test's learner, a user's own,
// linked against the library). Everything that looks a learner up by name (the CLI, model
// loading, checkpoints, --help) asks this list.
#ifndef PONGRL_ALGO_H
#define PONGRL_ALGO_H

#include <stddef.h>

#include "../train/learner.h"

#define ALGO_DEFAULT      "pg"
#define ALGO_LEARNERS_MAX 16 // built-in and registered learners together
#define ALGO_NAME_MAX     16 // bytes of a learner's name, its NUL included

// Adds l to the list, behind the built-in learners and those registered before it. Refused: a
// NULL, a name that is not 1 to 15 of [a-z0-9_] or that the list has already, a full list, a
// learner without a slot every learner fills (name, summary, npy_files, metrics, memory_bytes,
// create, destroy, arrays, settle, settled, iterate, weights, export_npy, import_npy, agent,
// streams), or one whose stream keys (Learner.streams) are not words spelling their names or
// take a word or a name of util/streams.h's shared keys or of a listed learner's. l must
// outlive the program's use of the list. Not safe against lookups on other threads: register
// before any start (before parsing arguments). 0, or -1 with one line in err.
int algo_register(const Learner *l, char *err, size_t errlen);

// The list: NULL-terminated, the default first, the built-in learners, then the registered ones
// in their order. Valid until the next algo_register.
const Learner *const *algo_learners(void);
#define ALGO_LEARNERS (algo_learners())

// For --help: each learner's network files (Learner.npy_files), a line each.
void algo_print_npy_files(void);

// The learner of `name`, or NULL.
static inline const Learner *algo_find(const char *name) { return learner_find(ALGO_LEARNERS, name); }

#endif
