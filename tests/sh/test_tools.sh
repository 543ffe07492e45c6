#!/usr/bin/env bash
# The tools that docs/fidelity.md, docs/results.md and docs/cluster.md quote still build and run:
# the random-play statistics (a few games each), the frame dumper, the milestones of a short real
# run, and the bare MPI_Sendrecv timer (where MPI is installed).
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
CC=${CC:-cc}
FLAGS=(-O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc)
$CC "${FLAGS[@]}" tools/random_play_stats.c build/libpongrl.a -lm -o "$tmp/rps" || fail "random_play_stats.c does not build"
$CC "${FLAGS[@]}" tools/random_play_preset.c build/libpongrl.a -lm -o "$tmp/rpp" || fail "random_play_preset.c does not build"
$CC "${FLAGS[@]}" tools/pong_dump.c src/pong/pong.c -o "$tmp/dump" || fail "pong_dump.c does not build"

out=$("$tmp/rps" 20) || fail "rps exited $?"
echo "$out" | head -1
grep -qE '^20 games, .*mean score -?[0-9]+\.[0-9]+' <<<"$out" || fail "rps printed no mean score"
grep -q 'vx 3, vy +2' <<<"$out" || fail "rps printed no return table"
out=$("$tmp/rpp" 20 Pong-v4) || fail "rpp exited $?"
echo "$out"
grep -qE '^Pong-v4, 20 games: mean score -?[0-9.]+ \(sd [0-9.]+\), mean length [0-9]+ agent steps$' <<<"$out" || fail "rpp output"
"$tmp/rpp" 5 NoSuchPong-v9 >/dev/null 2>&1 && fail "rpp accepted an unknown preset"

"$tmp/dump" "$tmp/f.raw" 1 15 40 || fail "pong_dump exited $?"
[ "$(stat -c %s "$tmp/f.raw")" = $((3 * 210 * 160 * 3)) ] || fail "pong_dump wrote $(stat -c %s "$tmp/f.raw") bytes"

build/pongrl train --iterations 3 --batch-size 2 --workers 1 --quiet --run-dir "$tmp/run" >/dev/null || fail "train"
out=$(tools/milestones.sh "$tmp/run") || fail "milestones.sh exited $?"
grep -q '^last: iteration 3, 6 episodes' <<<"$out" || { echo "$out"; fail "milestones.sh"; }
tools/milestones.sh "$tmp/nothing" 2>/dev/null && fail "milestones.sh accepted a missing run"

if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
    mpicc -O2 -Wall -Wextra -Werror tools/mpi_sendrecv.c -o "$tmp/sr" || fail "mpi_sendrecv.c does not build"
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 mpirun -np 2 --oversubscribe "$tmp/sr" 100000 2>&1) ||
        fail "mpi_sendrecv exited $?: $out"
    echo "$out"
    grep -qE '^100000 bytes: best [0-9.]+ ms, mean [0-9.]+ ms$' <<<"$out" || fail "mpi_sendrecv output"
else
    echo "mpi_sendrecv.c: no mpicc/mpirun here, not built"
fi
echo OK
