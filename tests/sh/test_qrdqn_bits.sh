#!/usr/bin/env bash
# --algo qrdqn: same seed, same bits. The weights (crc32) and metrics rows (all but wall_s) after
# N iterations are the same with 1, 2 and 3 worker threads (the threads share the envs by fixed
# ranges; the updates run on one thread in sample order), and N/2 iterations then --resume to N
# gives them too (the checkpoint holds the weights, the target, Adam's moments, the replay memory
# and every env's game, random stream and previous frame). The replay memory here is smaller
# than the run (it wraps) and episodes end on both sides of the resume. Another seed gives other
# weights; eval and record play the network; QR-DQN's flags are refused for another learner.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
T=(--algo qrdqn --envs 6 --steps 100 --hidden 16 --quantiles 8 --learn-start 300 --replay 1000 --minibatch 8
    --target-every 5 --update-every 2 --eps-steps 1000 --seed 3 --quiet)

a=$("$bin" train "${T[@]}" --iterations 12 --workers 1 --run-dir "$tmp/w1" | crc)
b=$("$bin" train "${T[@]}" --iterations 12 --workers 2 --run-dir "$tmp/w2" | crc)
c=$("$bin" train "${T[@]}" --iterations 12 --workers 3 --run-dir "$tmp/w3" | crc)
echo "workers 1: $a  2: $b  3: $c"
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ] || fail "weights differ with the thread count"
for w in 2 3; do diff <(rows "$tmp/w1") <(rows "$tmp/w$w") || fail "metrics differ, workers 1 and $w"; done
eps=$(tail -1 "$tmp/w1/metrics.csv" | cut -d, -f2)
[ "$eps" -gt 0 ] || fail "no episode ended"
grep -q '^12,.*,1000,' "$tmp/w1/metrics.csv" || fail "the replay memory did not fill: $(tail -1 "$tmp/w1/metrics.csv")"

"$bin" train "${T[@]}" --iterations 6 --workers 2 --run-dir "$tmp/r" >/dev/null || fail "first half"
got=$("$bin" train --resume "$tmp/r" --iterations 12 --workers 1 --quiet | crc)
echo "straight $a, resumed $got"
[ "$got" = "$a" ] || fail "resumed weights differ"
diff <(rows "$tmp/w1") <(rows "$tmp/r") || fail "resumed metrics differ"

d=$("$bin" train "${T[@]}" --iterations 4 --seed 4 --run-dir "$tmp/s4" | crc)
e=$("$bin" train "${T[@]}" --iterations 4 --run-dir "$tmp/s3" | crc)
echo "seed 3: $e, seed 4: $d"
[ -n "$d" ] && [ "$d" != "$e" ] || fail "another seed, the same weights"

for g in "" --greedy; do
    out=$("$bin" eval "$tmp/w1" --episodes 1 $g) || fail "eval $g"
    echo "$out" | grep -q 'mean score' || fail "eval $g: no score"
done
"$bin" record "$tmp/w1" --out "$tmp/g.gif" >/dev/null && [ -s "$tmp/g.gif" ] || fail "record"

err=$("$bin" train --algo ppo --nstep 2 --iterations 1 --run-dir "$tmp/pg" 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "--nstep with --algo ppo: rc=$rc '$err'"
echo "$err"
err=$("$bin" train "${T[@]}" --replay 10 --iterations 1 --run-dir "$tmp/small" 2>&1 >/dev/null); rc=$?
[ $rc != 0 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "--replay 10 with 6 envs: rc=$rc '$err'"
echo "$err"
"$bin" train --help >"$tmp/help.txt" || fail "train --help"
grep -q -- '--algo qrdqn:' "$tmp/help.txt" || fail "train --help has no part for qrdqn"
sed -n '/--algo qrdqn:/,$p' "$tmp/help.txt" | grep -q -- '--envs .*(default 16)' || fail "--envs not in qrdqn's help"

# under MPI the ranks share the envs and exchange their transitions: the same bits as one process
if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    TCP=(--oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
    for np in 1 2; do
        m=$(timeout 120 mpirun -np $np "${TCP[@]}" "$bin" train "${T[@]}" --iterations 12 --workers 1 \
            --run-dir "$tmp/m$np" 2>&1 | crc)
        echo "mpirun -np $np: $m"
        [ "$m" = "$a" ] || fail "mpirun -np $np: other weights than one process"
        diff <(rows "$tmp/w1") <(rows "$tmp/m$np") || fail "mpirun -np $np: metrics differ"
    done
else
    echo "mpirun not installed: the MPI runs skipped"
fi
echo "ok"
