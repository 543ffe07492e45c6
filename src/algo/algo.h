// algo.h: the learners this build has (learner.h gives their shape): `pongrl train --algo NAME`.
//   pg    Karpathy's recipe (pg/pg.h), the default
//   ppo   proximal policy optimisation
#ifndef PONGRL_ALGO_H
#define PONGRL_ALGO_H

#include "../train/learner.h"

#define ALGO_DEFAULT "pg"

// NULL-terminated, the default first.
extern const Learner *const ALGO_LEARNERS[];

// For --help: each learner's network files (Learner.npy_files), a line each.
void algo_print_npy_files(void);

// The learner of `name`, or NULL.
static inline const Learner *algo_find(const char *name) { return learner_find(ALGO_LEARNERS, name); }

#endif
