#!/usr/bin/env bash
# --algo qrdqn: same seed, same bits. The weights (crc32) and metrics rows (all but wall_s) after
# N iterations are the same with 1, 2 and 3 worker threads (the threads share the envs by fixed
# ranges; each update sums its gradient in sample order whatever thread computes it), and N/2
# iterations then --resume to N gives them too (the checkpoint holds the weights, the target,
# Adam's moments, the replay memory and every env's game, random stream and previous frame). The
# replay memory here is smaller than the run (it wraps) and episodes end on both sides of the
# resume. Another seed gives other weights; eval and record play the network; QR-DQN's flags are
# refused for another learner.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
source "$(dirname "$0")/lib_learner.sh"
T=(--algo qrdqn --envs 6 --steps 100 --hidden 16 --quantiles 8 --learn-start 300 --replay 1000 --minibatch 8
    --target-every 5 --update-every 2 --eps-steps 1000 --seed 3 --quiet)

same_bits_threads 12
eps=$(tail -1 "$tmp/w1/metrics.csv" | cut -d, -f2)
[ "$eps" -gt 0 ] || fail "no episode ended"
grep -q '^12,.*,1000,' "$tmp/w1/metrics.csv" || fail "the replay memory did not fill: $(tail -1 "$tmp/w1/metrics.csv")"

resumed_same_bits 12
other_seed 4
plays_model 1
refused 2 "--nstep with --algo ppo" --algo ppo --nstep 2 --iterations 1
refused any "--replay 10 with 6 envs" "${T[@]}" --replay 10 --iterations 1
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
