#!/usr/bin/env bash
# The tools that the docs quote still build and run: the random-agent statistics against the
# real game (a few episodes), the fidelity picture, the milestones of a short real run and of a
# hand-written PPO curve, the bare MPI_Sendrecv timer (where MPI is installed), and the speed
# benches' scaling.py and build_rev.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
CC=${CC:-cc}
FLAGS=(-O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc)
$CC "${FLAGS[@]}" tools/random_play_stats.c build/libpongrl.a -lz -lm -o "$tmp/rps" || fail "random_play_stats.c does not build"
$CC "${FLAGS[@]}" tools/fidelity_image.c build/libpongrl.a -lz -lm -o "$tmp/fid" || fail "fidelity_image.c does not build"

# 20 episodes of each preset: one row each, beside the real game's figures
out=$("$tmp/rps" 20); rc=$?
echo "$out"
[ $rc -le 1 ] || fail "rps exited $rc"
for p in ALE/Pong-v5 Pong-v4 Pong-v0 PongNoFrameskip-v4 "ALE/Pong-v5 m"{0,1}d{0,1,2,3}; do
    grep -qE "^$p +20 +-[0-9]+\.[0-9]+ .*\| +-(19|20)\.[0-9]+ .*\| (yes|NO)$" <<<"$out" || fail "rps printed no row for $p"
done
"$tmp/rps" 1 >/dev/null 2>&1 && fail "rps accepted 1 episode"

# the side-by-side picture of a real trace's frame and ours: a PNG, identical frames
out=$("$tmp/fid" tests/data/ale-real random-1 400 "$tmp/f.png") || fail "fidelity_image exited $?: $out"
echo "$out"
grep -q 'crc32 .* real .*: identical' <<<"$out" || fail "fidelity_image did not find the frame identical"
[ "$(head -c 8 "$tmp/f.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "not a PNG"
"$tmp/fid" tests/data/ale-real random-1 999999 "$tmp/g.png" >/dev/null 2>&1 && fail "fidelity_image accepted a frame past the end"

build/pongrl train --iterations 3 --batch-size 2 --workers 1 --quiet --run-dir "$tmp/run" >/dev/null || fail "train"
out=$(/usr/bin/python3 tools/milestones.py --marks -15,-10,-5,0 "$tmp/run") || fail "milestones.py exited $?"
grep -q "^$tmp/run: 3 iterations, .* 6 episodes, " <<<"$out" || { echo "$out"; fail "milestones.py on a run directory"; }
[ "$(grep -c '^  -1[05]: \|^   -5: \|^   +0: ' <<<"$out")" = 4 ] || { echo "$out"; fail "milestones.py --marks"; }
/usr/bin/python3 tools/milestones.py "$tmp/nothing" 2>/dev/null && fail "milestones.py accepted a missing run"
/usr/bin/python3 tools/milestones.py --marks x "$tmp/run" 2>/dev/null && fail "milestones.py accepted --marks x"
# a run whose rows have no running mean yet (empty: no episode has ended) reaches no mark
build/pongrl train --algo ppo --envs 2 --steps 16 --hidden 8 --minibatches 1 --iterations 2 --quiet --run-dir "$tmp/ppo" \
    >/dev/null || fail "train ppo"
out=$(/usr/bin/python3 tools/milestones.py "$tmp/ppo") || fail "milestones.py exited $? on rows without a running mean"
grep -q ', running mean -$' <<<"$out" && grep -q '^   +0: -$' <<<"$out" || { echo "$out"; fail "milestones.py on rows without a running mean"; }

# milestones.py on a hand-written curve: the first row at or above each mark, and the last row
# within 180 s (3 minutes)
printf '%s\n' iteration,episodes,agent_steps,wall_s,batch_mean_reward,running_mean \
    1,0,100,10,, 2,3,200,50,-9,-12.5 3,5,300,120,0,0.5 4,8,400,179.9,12,11 5,9,500,200,20,20.25 >"$tmp/m.csv"
out=$(/usr/bin/python3 tools/milestones.py "$tmp/m.csv") || fail "milestones.py exited $?"
echo "$out"
want="$tmp/m.csv: 5 iterations, 500 agent steps, 9 episodes, 200 s, 2 steps/s, running mean +20.25
  -10: iteration 3, 300 steps, 5 episodes, 120 s
   +0: iteration 3, 300 steps, 5 episodes, 120 s
  +10: iteration 4, 400 steps, 8 episodes, 180 s
  +20: iteration 5, 500 steps, 9 episodes, 200 s
  at 3 min: running mean +11.00, iteration 4, 400 steps, 8 episodes"
[ "$out" = "$want" ] || fail "milestones.py: not the hand-worked answer"
head -4 "$tmp/m.csv" >"$tmp/short.csv"
/usr/bin/python3 tools/milestones.py "$tmp/short.csv" | grep -qx '  at 3 min: - (the run ended after 120 s)' ||
    fail "milestones.py: a run shorter than 3 minutes"

if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
    mpicc -O2 -Wall -Wextra -Werror tools/mpi_sendrecv.c -o "$tmp/sr" || fail "mpi_sendrecv.c does not build"
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 mpirun -np 2 --oversubscribe "$tmp/sr" 100000 2>&1) ||
        fail "mpi_sendrecv exited $?: $out"
    echo "$out"
    grep -qE '^100000 bytes: best [0-9.]+ ms, mean [0-9.]+ ms$' <<<"$out" || fail "mpi_sendrecv output"
else
    echo "mpi_sendrecv.c: no mpicc/mpirun here, not built"
fi

# the speed benches' tools: two binaries alternated give a ratio row; bad arguments, one line each
out=$(/usr/bin/python3 bench/scaling.py --bin build/pongrl,build/pongrl --only "pg --batch-size" --workers 1 \
    --iterations 3 --rounds 2) || fail "scaling.py exited $?"
echo "$out"
grep -qE '^\| `pg --batch-size 64`, build/pongrl / build/pongrl \| [0-9.]+x \| \|$' <<<"$out" || fail "scaling.py: no ratio row"
/usr/bin/python3 bench/scaling.py --rounds 0 2>/dev/null && fail "scaling.py accepted --rounds 0"
# --mpi: the recipe also as ranks, and the ranks' rate over the threads'
if command -v mpirun >/dev/null; then
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 /usr/bin/python3 bench/scaling.py --mpi \
        --only "pg --batch-size" --workers 1 --iterations 3) || fail "scaling.py --mpi exited $?"
    echo "$out"
    grep -qE '^\| `pg --batch-size 64`, MPI ranks x 1 worker \| [0-9,]+ \(100%\) \| 1\.0x \|$' <<<"$out" ||
        fail "scaling.py --mpi: no ranks row"
    grep -qE '^\| `pg --batch-size 64`, ranks / threads \| [0-9.]+ \| \|$' <<<"$out" || fail "scaling.py --mpi: no ratio row"
fi
out=$(bench/build_rev.sh no-such-revision "$tmp/rev/pongrl" 2>&1) && fail "build_rev.sh accepted a missing revision"
[ "$(wc -l <<<"$out")" = 1 ] && grep -q "^pongrl: bench/build_rev.sh: no revision 'no-such-revision'" <<<"$out" || fail "build_rev.sh: $out"
[ -e "$tmp/rev" ] && fail "build_rev.sh left a folder for a missing revision"
echo OK
