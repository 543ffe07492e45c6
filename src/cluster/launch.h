// launch.h: was this process started by an MPI launcher (mpirun, mpiexec, srun), and how
// many ranks share this machine? Read from the launcher's environment: needs no MPI, so a plain
// run never starts it.
#ifndef PONGRL_LAUNCH_H
#define PONGRL_LAUNCH_H

#include <stdbool.h>

// True when a launcher started this process (its environment says so).
bool cluster_launched(void);

// How many ranks the launcher started on this machine (1 when unknown).
int cluster_launch_local_size(void);

// Ties this rank's life to its launcher's (mpirun, orted, slurmstepd: the parent process): when
// it dies (kill -9, a double Ctrl-C), the kernel kills this rank at once, so that no orphan
// goes on writing the run directory. Call before anything is written.
void cluster_die_with_launcher(void);

#endif
