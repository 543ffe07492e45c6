// config.c: the seed's defaults, and the cores a run may use by default.
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../policy/policy.h"

int train_cores_available(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

void train_config_default(TrainConfig *c) {
    memset(c, 0, sizeof(*c));
    snprintf(c->algo, sizeof(c->algo), "%s", "pg");
    snprintf(c->env_id, sizeof(c->env_id), "%s", "ALE/Pong-v5");
    c->batch_size = 10;
    c->hidden = POLICY_H_DEFAULT;
    c->lr = 1e-4; c->gamma = 0.99; c->decay = 0.99;
    c->seed = 1;
    c->iterations = -1;
    c->workers = train_cores_available();
    c->checkpoint_every = 100;
    c->checkpoint_secs = 300.0;
    c->keep = 3;
}
