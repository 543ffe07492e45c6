// launch.c: launcher detection from the environment (launch.h).
#include "launch.h"

#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

// clang-format off
static const char *LAUNCHER_VARS[] = {
    "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",   // Open MPI's mpirun
    "PMIX_RANK",                                       // PMIx launchers (Open MPI 5, srun --mpi=pmix)
    "PMI_RANK", "PMI_SIZE",                            // MPICH's Hydra, srun --mpi=pmi2
};
// clang-format on

bool cluster_launched(void) {
    for (size_t i = 0; i < sizeof(LAUNCHER_VARS) / sizeof(LAUNCHER_VARS[0]); i++) {
        const char *v = getenv(LAUNCHER_VARS[i]);
        if (v && *v) return true;
    }
    return false;
}

int cluster_launch_local_size(void) {
    static const char *vars[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS" }; // Open MPI, MPICH
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    return 1;
}

void cluster_die_with_launcher(void) {
#ifdef __linux__
    pid_t launcher = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != launcher) _exit(1); // it died just now
#endif
}
