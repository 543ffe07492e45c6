// episodes.h: pg's batch of whole episodes on the pool's threads (train/pool.h). Each thread
// owns an Env and a rollout Worker for its whole life; a batch's episodes are handed out one at
// a time as threads free up (Ray's ray.wait), and their gradients summed exactly (gradsum.h).
#ifndef PONGRL_ALGO_PG_EPISODES_H
#define PONGRL_ALGO_PG_EPISODES_H

#include <stdint.h>

#include "policy.h"
#include "../../train/gradsum.h"
#include "../../train/pool.h"
#include "../../util/rowset.h"
#include "rollout.h"

typedef struct PgPlayers PgPlayers;
// One player per pool thread (threads of them), each with an env playing env_id with ALE's mode
// and difficulty (env_init_flavour) and scratch for a network of shape's size. NULL on failure.
PgPlayers *pg_players_create(int threads, const char *env_id, int mode, int difficulty, const Policy *shape);
void pg_players_destroy(PgPlayers *pl);

// Play the episodes handed out by src with policy p (read-only meanwhile) on the pool's threads
// (as many as pl's players); episode k's random streams are pg_streams.h's episode_*_seed for run_seed.
// Per-episode stats go to stats[k - first] (the caller zeroes stats). The exact sum of the
// gradients is the players' own memory (*sum, valid until the next call): on the W1 rows in
// `rows` (on return: the rows the episodes touched) and on W2; its other rows hold stale
// values, not zeros. Returns 0, or -1 with a message in err.
int pg_play(PgPlayers *pl, Pool *pool, const Policy *p, uint64_t run_seed, double gamma, EpisodeSource *src,
    int64_t first, EpisodeStats *stats, const GradSum **sum, RowSet *rows, char *err, size_t errlen);

#endif
