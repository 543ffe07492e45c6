#!/usr/bin/env bash
# The whole program path under AddressSanitizer and UndefinedBehaviorSanitizer
# (build/debug/pongrl, built by `make test`): threaded training, checkpoint, resume, eval,
# record, export, plot, and training on 3 MPI ranks (pg; ppo, resumed on 2). Any sanitizer report
# fails the test.
set -uo pipefail
bin=build/debug/pongrl
[ -x "$bin" ] || { echo "skip: $bin not built (make debug)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
run() { "$bin" "$@" >>"$tmp/log" 2>&1 || { echo "FAIL: pongrl $* exited $?"; tail -20 "$tmp/log"; exit 1; }; }
run train --iterations 2 --batch-size 3 --workers 2 --quiet --run-dir "$tmp/run"
run train --resume "$tmp/run" --iterations 3 --workers 3 --quiet
run eval "$tmp/run" --episodes 3 --workers 2
run record "$tmp/run" --out "$tmp/g.gif" --with-input --max-steps 50
run export "$tmp/run" --out "$tmp/npy"
run eval "$tmp/npy" --episodes 2 --env Pong-v0
# the MPI transport too: 3 ranks x 2 threads over TCP. Leak checking is off for it: Open MPI
# keeps allocations to the end of the process that LeakSanitizer reports (none of them ours).
if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 timeout 120 mpirun -np 3 --oversubscribe --mca pml ob1 \
        --mca btl tcp,self --mca btl_tcp_if_include lo "$bin" train --iterations 4 --batch-size 4 --workers 2 \
        --quiet --run-dir "$tmp/mpi" >>"$tmp/log" 2>&1 || { echo "FAIL: mpirun pongrl train exited $?"; tail -20 "$tmp/log"; exit 1; }
    # --algo ppo: 3 ranks x 2 threads (the rollouts' exchange, a share of the blocks of samples a rank), resumed on 2
    for np in 3 2; do
        if [ $np = 3 ]; then a=(--algo ppo --envs 5 --steps 128 --minibatches 1 --epochs 1 --hidden 8 --iterations 2 --run-dir "$tmp/ppo")
        else a=(--resume "$tmp/ppo" --iterations 3); fi
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 timeout 120 mpirun -np $np --oversubscribe --mca pml ob1 \
            --mca btl tcp,self --mca btl_tcp_if_include lo "$bin" train "${a[@]}" --workers 2 --quiet >>"$tmp/log" 2>&1 \
            || { echo "FAIL: mpirun -np $np pongrl train --algo ppo exited $?"; tail -20 "$tmp/log"; exit 1; }
    done
else
    echo "MPI part skipped: mpirun not installed"
fi
if grep -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$tmp/log"; then echo "FAIL: sanitizer report"; exit 1; fi
grep -c "" "$tmp/log" | sed 's/^/log lines: /'
echo OK
