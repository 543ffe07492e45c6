#!/usr/bin/env bash
# --algo ppo under MPI: same seed, same bits. 1, 2 and 3 ranks over TCP on loopback (each rank
# plays a fixed range of the envs, the ranks exchange their rollouts, each computes a share of
# every minibatch's blocks of samples, the ranks exchange their hidden-layer gradients and the
# transport sums the tails' exact sums; every rank sums every W1 row) end with the weights crc32
# and the metrics.csv rows (all but wall_s: the episodes, returns and PPO's diagnostics) of one
# process with 2 threads; so do 2 ranks x 2 threads and 4 ranks for 3 envs (a rank with no env
# and ranks with no block of samples). Stopped and resumed: half in one process, the rest
# on 2 ranks; half on 3 ranks, the rest on 2, where only rank 0 sees the run directory (the
# others take the weights, Adam's moments and every env's game from rank 0's checkpoint).
# Also: 16-byte entries on the wire, a rank with another --clip refused at start, a rank whose
# weights drift stopped.
set -uo pipefail
source "$(dirname "$0")/mpi_common.sh"
source "$(dirname "$0")/run_common.sh"
bin=$BIN
# 6 envs x 128 steps, 2 minibatches of 384 samples (48 blocks of 8), 2 epochs, 10 iterations:
# 1,280 steps an env, past the ends of random episodes (the first ones end after the resumes'
# halfway point)
T=(--algo ppo --envs 6 --steps 128 --hidden 16 --minibatches 2 --epochs 2 --seed 5 --quiet)
N=10
mpi() { local np=$1; shift; timeout 120 mpirun -np "$np" "${TCP[@]}" "$bin" train "$@" 2>&1; }

ref=$("$bin" train "${T[@]}" --iterations $N --workers 2 --run-dir "$tmp/w2" | crc)
[ -n "$ref" ] || fail "the single-process run"
eps=$(tail -1 "$tmp/w2/metrics.csv" | cut -d, -f2)
half=$(sed -n "$((N / 2 + 1))p" "$tmp/w2/metrics.csv" | cut -d, -f2)
[ "$eps" -gt "$half" ] || fail "no episode ended after iteration $((N / 2)): the resumes would not cross an episode's end"
echo "1 process x 2 threads: weights crc32 $ref ($eps episodes)"

check() {   # name, run dir, the run's output
    local got
    got=$(crc <<<"$3")
    echo "$1: weights crc32 ${got:-none}"
    [ "$got" = "$ref" ] || { echo "$3"; fail "$1: other weights than one process"; }
    diff <(rows "$tmp/w2") <(rows "$2") || fail "$1: other metrics rows than one process"
}
for np in 1 2 3; do
    out=$(mpi "$np" "${T[@]}" --iterations $N --workers 1 --run-dir "$tmp/r$np")
    check "$np rank(s) x 1 thread" "$tmp/r$np" "$out"
    [ "$np" = 1 ] || grep -q "^weights: the same bits on all $np ranks" <<<"$out" || { echo "$out"; fail "$np ranks: no end-of-run check"; }
done
out=$(mpi 2 "${T[@]}" --iterations $N --workers 2 --run-dir "$tmp/r22")
check "2 ranks x 2 threads" "$tmp/r22" "$out"

# more ranks than envs and than a minibatch's blocks (15 samples: 2): ranks with nothing to play or compute
S=(--algo ppo --envs 3 --steps 40 --hidden 8 --minibatches 8 --epochs 1 --seed 2 --quiet --iterations 4)
a=$("$bin" train "${S[@]}" --workers 1 --run-dir "$tmp/s1" | crc)
out=$(mpi 4 "${S[@]}" --workers 1 --run-dir "$tmp/s4")
b=$(crc <<<"$out")
echo "3 envs, 1 process: $a; 4 ranks: ${b:-none}"
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "$out"; fail "4 ranks for 3 envs differ from one process"; }
diff <(rows "$tmp/s1") <(rows "$tmp/s4") || fail "4 ranks for 3 envs: other metrics rows"

# stopped and resumed: half in one process, the rest on 2 ranks
"$bin" train "${T[@]}" --iterations $((N / 2)) --workers 1 --run-dir "$tmp/h1" >/dev/null || fail "first half (1 process)"
out=$(mpi 2 --resume "$tmp/h1" --iterations $N --workers 1 --quiet)
check "$((N / 2)) in 1 process + $((N / 2)) on 2 ranks" "$tmp/h1" "$out"
# half on 3 ranks, the rest on 2 where rank 1 is given a run directory that does not exist
mpi 3 "${T[@]}" --iterations $((N / 2)) --workers 1 --run-dir "$tmp/h3" >/dev/null || fail "first half (3 ranks)"
out=$(timeout 120 mpirun -np 1 "${TCP[@]}" "$bin" train --resume "$tmp/h3" --iterations $N --workers 1 --quiet : \
      -np 1 "${TCP[@]}" "$bin" train --resume "$tmp/not-on-this-host" --iterations $N --workers 2 --quiet 2>&1)
check "$((N / 2)) on 3 ranks + $((N / 2)) on 2 (only rank 0 sees the run)" "$tmp/h3" "$out"
# the entries' 8-byte high parts (the test build: PONGRL_WIRE_HIGH), the same bits
[ -x "$HOOKS" ] || fail "$HOOKS missing (make build/pongrl-testhooks)"
out=$(timeout 120 mpirun -x PONGRL_WIRE_HIGH=8 -np 3 "${TCP[@]}" "$HOOKS" train "${T[@]}" --iterations $N --workers 1 \
      --run-dir "$tmp/high8" 2>&1)
check "3 ranks, 16-byte entries" "$tmp/high8" "$out"
# ranks that disagree on a PPO setting are refused at start, the setting named
out=$(timeout 60 mpirun -np 1 "${TCP[@]}" "$bin" train "${S[@]}" --run-dir "$tmp/x1" : \
      -np 1 "${TCP[@]}" "$bin" train "${S[@]}" --clip 0.2 --run-dir "$tmp/x1" 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "rank 1 on .* clip=0.2 (rank 0: clip=0.1)" <<<"$out" || { echo "$out"; fail "a rank with another --clip: rc $rc"; }
# a rank whose weights drift (PONGRL_TEST_DIVERGE=1: its sums in iteration 2 made wrong) is
# stopped at its next minibatch
out=$(timeout 60 mpirun -x PONGRL_TEST_DIVERGE=1 -np 2 "${TCP[@]}" "$HOOKS" train "${S[@]}" --run-dir "$tmp/drift" 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "the weights of rank 1 differ from rank 0's after iteration 2" <<<"$out" || { echo "$out"; fail "a drifting rank: rc $rc"; }
echo "ok"
