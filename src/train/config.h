// config.h: what a training run is asked to do: the seed's hyperparameters (what makes the
// run reproducible) and how it is carried out (limits, threads, run directory, checkpoints).
#ifndef PONGRL_TRAIN_CONFIG_H
#define PONGRL_TRAIN_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#define RUN_DIR_MAX 1024
#define TRAIN_H_MAX 100000            // the largest H a run may have (checkpoints refuse more)
#define TRAIN_BATCH_MAX 1000000       // the largest batch a run may have
#define TRAIN_REWARD_MAX 21           // an episode's reward lies in [-21, 21] (21 points end a game)

#define TRAIN_ALGO_MAX 16

typedef struct TrainConfig {
    char algo[TRAIN_ALGO_MAX];   // the learner (algo/algo.h), default "pg" (the seeds' recipe)
    char env_id[64];          // preset id, default "ALE/Pong-v5" (the newest seed)
    int batch_size;           // episodes per update (seed: 10)
    int hidden;               // H (seed: 200)
    double lr, gamma, decay;  // 1e-4, 0.99, 0.99
    uint64_t seed;
    // how the run is carried out; not part of what makes it reproducible
    int64_t iterations;       // stop after this many updates in total (-1: no limit)
    double target_reward;     // stop when the running mean reaches it
    bool has_target;
    int workers;              // threads per process (default: one per core this process may use)
    char run_dir[RUN_DIR_MAX];
    int64_t checkpoint_every; // iterations between checkpoints
    double checkpoint_secs;   // seconds between checkpoints
    int keep;                 // checkpoints kept
    bool quiet;
} TrainConfig;

void train_config_default(TrainConfig *c);
// The CPUs this process may run on (its affinity mask: taskset, cgroups, mpirun's binding).
int train_cores_available(void);

#endif
