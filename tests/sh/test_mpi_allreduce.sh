#!/usr/bin/env bash
# The all-reduce on its own (tests/mpi/test_allreduce.c, built with ASan+UBSan): 2, 3 and 4
# ranks, over shared memory and TCP, each rank's sum against an exact 128-bit reference,
# rounded once; rows touched by one rank, by several, by all, by none; stale values on rows a
# rank did not touch (never read); dense tails as long as a row (pg's W2), longer and shorter
# (ppo's); 1-, 2- and 8-byte high parts; and the two refusals (a value
# too large for its high part, a total of 2^31 or more); the passes on one thread and on three.
set -uo pipefail
cd "$(dirname "$0")/../.."
command -v mpirun >/dev/null || { echo "skip: mpirun not installed (apt-get install openmpi-bin)"; exit 77; }
[ -x build/test_allreduce ] || { echo "skip: build/test_allreduce not built (needs libopenmpi-dev)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI keeps allocations until exit: leak reports would be its own, not the all-reduce's
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
cases=30            # 15 cases, the passes on 1 thread and on 3
fail=0
for setup in "2 vader" "3 vader" "4 vader" "2 tcp" "3 tcp"; do
    set -- $setup
    if [ "$2" = tcp ]; then mca=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
    else mca=(--mca btl vader,self); fi
    out=$(timeout 120 mpirun -np "$1" --oversubscribe "${mca[@]}" build/test_allreduce 2>&1); rc=$?
    echo "== $1 ranks, $2"
    echo "$out"
    n_ok=$(grep -c '^ok:' <<<"$out")
    if [ $rc -ne 0 ] || grep -q '^FAIL' <<<"$out" || [ "$n_ok" -ne $cases ]; then
        echo "FAIL: $1 ranks over $2 (rc $rc, $n_ok of $cases cases ok)"; fail=1
    fi
done
[ $fail -eq 0 ] || exit 1
echo "PASS: the all-reduce's result is the exact sum rounded once on every rank, for 2-4 ranks, shared memory and TCP"
