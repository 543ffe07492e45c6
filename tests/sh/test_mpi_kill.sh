#!/usr/bin/env bash
# A rank that dies mid-run (SIGKILL: no chance to say goodbye) must end the whole job within
# seconds, with a non-zero exit and a message naming the rank and its host, never a hang:
# the survivors are blocked in MPI calls or in next() waiting for episodes at that moment.
set -uo pipefail
source "$(dirname "$0")/mpi_common.sh"
tmp=$(mktemp -d /tmp/pongrl-mpi-XXXXXX)
mpid=
cleanup() { [ -n "$mpid" ] && kill -9 "$mpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# The pid of rank $1 among the children of mpirun $2 (Open MPI puts the rank in the environment).
rank_pid() {
    local p
    for p in $(pgrep -P "$2"); do
        tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
    done
}

kill_rank() {   # $1: the rank to kill
    local victim=$1 log=$tmp/log$1
    : >"$log"
    mpirun -np 3 --oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo \
        "$BIN" train --iterations 100000 --batch-size 6 --workers 1 --run-dir "$tmp/run$1" >"$log" 2>&1 &
    mpid=$!
    local i pid=
    for i in $(seq 100); do            # until training is under way (up to 20 s)
        grep -qE '^Batch 3[ /]' "$log" && break
        sleep 0.2
    done
    grep -qE '^Batch 3[ /]' "$log" || { cat "$log"; echo "FAIL: training did not start"; exit 1; }
    pid=$(rank_pid "$victim" "$mpid")
    [ -n "$pid" ] || { echo "FAIL: cannot find rank $victim's process"; exit 1; }
    local t0=$(date +%s.%N)
    kill -9 "$pid"
    local rc=
    for i in $(seq 150); do            # 15 s at most, then it counts as a hang
        kill -0 "$mpid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$mpid" 2>/dev/null; then
        cat "$log"; echo "FAIL: job still running 15 s after rank $victim was killed (hang)"; exit 1
    fi
    wait "$mpid"; rc=$?; mpid=
    local dt=$(echo "$(date +%s.%N) - $t0" | bc)
    echo "killed rank $victim (pid $pid): mpirun exited rc $rc after ${dt}s"
    grep -E 'rank|node|host' "$log" | grep -v '^Batch' | head -5 | sed 's/^/    /'
    [ "$rc" -ne 0 ] || { cat "$log"; echo "FAIL: exit status 0 after a rank died"; exit 1; }
    (( $(echo "$dt < 10" | bc) )) || { cat "$log"; echo "FAIL: took ${dt}s (> 10 s)"; exit 1; }
    grep -q "rank $victim" "$log" || { cat "$log"; echo "FAIL: output does not name rank $victim"; exit 1; }
    grep -qE "node $(hostname)|on $(hostname)|host $(hostname)" "$log" || { cat "$log"; echo "FAIL: output does not name the host"; exit 1; }
    # no survivor left behind
    sleep 0.5
    pgrep -f "run-dir $tmp/run$victim" >/dev/null && { echo "FAIL: a rank survived"; exit 1; }
    # the newest checkpoint, if this build writes them, is whole (written by rename)
    for f in "$tmp/run$victim"/*.tmp "$tmp/run$victim"/*/*.tmp; do
        [ -e "$f" ] && echo "note: temp file left behind (never renamed in place): $f"
    done
    return 0
}
command -v bc >/dev/null || { echo "skip: bc not installed"; exit 77; }
kill_rank 1
kill_rank 0
echo "PASS: a killed rank ends the job within 10 s with a non-zero exit naming the rank and host"
