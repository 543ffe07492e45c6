#!/usr/bin/env bash
# Under mpirun, with real processes:
# 1. SIGINT (or SIGTERM) to a rank other than 0 stops the whole job after the batch, as it does
#    on rank 0: exit 0, a final checkpoint, and the run resumes to the weights of a straight run.
# 2. When mpirun dies (kill -9; a double Ctrl-C returns as fast), its ranks die with it at once:
#    none is left writing the run, and an immediate --resume takes the run over cleanly (one
#    metrics row per iteration, in order, the weights of a straight run).
set -uo pipefail
source "$(dirname "$0")/mpi_common.sh"
T=(--hidden 16 --batch-size 4 --seed 6 --workers 1 --quiet)
tmp=$(mktemp -d /tmp/pongrl-mpi-XXXXXX)
mpid= kids=
cleanup() { [ -n "$mpid" ] && kill -9 "$mpid" 2>/dev/null; for k in $kids; do kill -9 "$k" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
crc() { sed -n 's/.*weights crc32 \([0-9a-f]*\).*/\1/p'; }
rows() { tail -n +2 "$1/metrics.csv" 2>/dev/null | wc -l; }
in_order() { awk -F, 'NR > 1 && $1 != p + 1 { bad++ } NR > 1 { p = $1 } END { exit bad > 0 }' "$1/metrics.csv"; }
rank_pid() {    # $1: rank, $2: mpirun's pid (Open MPI puts the rank in the environment)
    local p
    for p in $(pgrep -P "$2"); do
        tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
    done
}
start() {       # $1: run dir; mpirun in the background, until 5 rows are written
    mpirun -np 2 "${TCP[@]}" "$BIN" train "${T[@]}" --iterations 100000000 --run-dir "$1" >"$tmp/log" 2>&1 &
    mpid=$!
    for i in $(seq 200); do [ "$(rows "$1")" -ge 5 ] && break; sleep 0.05; done
    [ "$(rows "$1")" -ge 5 ] || { cat "$tmp/log"; fail "training did not start"; }
    kids=$(pgrep -P "$mpid" | tr '\n' ' ')
}
running() { local s; s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]; }   # a zombie is dead
straight() { "$BIN" train "${T[@]}" --iterations "$1" --run-dir "$tmp/straight$1" | crc; }

# 1. a stop request on rank 1
for sig in INT TERM; do
    d=$tmp/stop$sig
    start "$d"
    r1=$(rank_pid 1 "$mpid"); [ -n "$r1" ] || fail "cannot find rank 1"
    kill -$sig "$r1"
    for i in $(seq 150); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$mpid" 2>/dev/null && { kill -9 "$mpid"; fail "SIG$sig to rank 1: the job was still running 15 s later"; }
    wait "$mpid"; rc=$?; mpid=
    n=$(rows "$d")
    echo "SIG$sig to rank 1: mpirun rc $rc, stopped after iteration $n"
    [ $rc = 0 ] || { cat "$tmp/log"; fail "SIG$sig to rank 1: rc $rc"; }
    grep -q "^stopped after $n iterations" "$tmp/log" || { cat "$tmp/log"; fail "no final line"; }
    [ -e "$d/checkpoints/ckpt-$(printf %08d "$n").bin" ] || fail "no checkpoint at the stop (iteration $n): $(ls "$d/checkpoints")"
done
m=$((n + 2))
got=$("$BIN" train --resume "$d" --iterations $m | crc)
[ "$got" = "$(straight $m)" ] || fail "resumed after the stop: weights $got differ from a straight run"

# 2. mpirun killed: its ranks die with it, and an immediate resume takes over
d=$tmp/orphans
start "$d"
kill -9 "$mpid"; wait "$mpid" 2>/dev/null; mpid=
got=$("$BIN" train --resume "$d" --iterations 100000000 --quiet 2>"$tmp/err" >/dev/null & b=$!
    sleep 0.5; alive=; for k in $kids; do running "$k" && alive="$alive $k"; done
    echo "alive:$alive"; kill -INT $b; wait $b; echo "rc $?")
echo "after kill -9 of mpirun, 0.5 s later, ranks $got"
grep -q '^alive:$' <<<"$got" || fail "ranks outlived mpirun: $got"
grep -q '^rc 0$' <<<"$got" || fail "the immediate --resume: $got $(cat "$tmp/err")"
in_order "$d" || fail "metrics.csv is not one row per iteration, in order"
m=$(( $(rows "$d") + 2 ))
got=$("$BIN" train --resume "$d" --iterations $m | crc)
[ "$got" = "$(straight $m)" ] || fail "after the takeover: weights $got differ from a straight run"
echo ok
