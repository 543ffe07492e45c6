# mpi_common.sh: sourced by the MPI end-to-end tests (not a test itself): the repository root as
# the working directory, the binaries, the skip when mpirun is missing, Open MPI allowed to run
# as root, and TCP over loopback (several ranks on one machine, as over a network).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN=${PONGRL_BIN:-$PWD/build/pongrl}
HOOKS=${PONGRL_HOOKS_BIN:-$PWD/build/pongrl-testhooks}   # the same with test fault injection (test_hooks.h)
command -v mpirun >/dev/null || { echo "skip: mpirun not installed (apt-get install openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TCP=(--oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
