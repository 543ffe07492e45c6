#!/usr/bin/env bash
# train --init MODEL: a fresh run that starts from a model's weights (fine-tuning). Its first
# checkpoint holds MODEL's weights bit for bit (a PPO run from a checkpoint, a run directory and
# an exported folder alike, a pg run from a pg checkpoint); the network's settings (--hidden,
# --coarse, --value-hidden) are MODEL's and the rest the flags'; it keeps the promise of every run:
# same bits with 1 and 2 threads, with 2 MPI ranks where only rank 0 reads MODEL, and stopped
# and resumed. Without --algo the run's learner is MODEL's (its defaults under the flags given),
# on one process and on 2 ranks alike. Refused in one line, before any run directory is made: a
# model of another learner than --algo's, a flag of another learner than MODEL's, a network flag
# that contradicts MODEL, a missing MODEL, --init with --resume.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
py=/usr/bin/python3

# the model: a short PPO run of a small separate-value network, exported
S=(--algo ppo --envs 4 --steps 64 --minibatches 2 --epochs 2 --quiet --checkpoint-every 0 --checkpoint-secs 0)
"$bin" train "${S[@]}" --hidden 16 --value-hidden 6 --coarse 0 --lr 0.01 --seed 3 --iterations 4 --workers 2 \
    --run-dir "$tmp/a" >/dev/null || fail "train the model"
"$bin" export "$tmp/a" --out "$tmp/ax" >/dev/null || fail "export the model"

# same arrays, bit for bit (exported .npy files of two models)
same_arrays() {
    $py - "$1" "$2" <<'EOF'
import sys, numpy as np
for k in ("W1", "b1", "Wpi", "bpi", "wv", "bv"):
    a, b = (np.load("%s/ppo_%s.npy" % (d, k)) for d in sys.argv[1:3])
    assert a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64)), k
EOF
}

# the fine-tuning run, from each form of the model, with the flags' own lr, seed and length
F=("${S[@]}" --lr 0.002 --anneal-steps 4000 --seed 9 --iterations 6)
for src in "$tmp/ax" "$tmp/a" "$tmp/a/checkpoints/ckpt-00000004.bin"; do
    n=$((${n:-0} + 1))
    out=$("$bin" train "${F[@]}" --init "$src" --workers $((n % 2 + 1)) --keep 10 --run-dir "$tmp/f$n") ||
        fail "train --init $src: $out"
    echo "$out" | grep -q "^pongrl train: starting from the weights of $src" || fail "no line naming the model: $out"
    "$bin" export "$tmp/f$n/checkpoints/ckpt-00000000.bin" --out "$tmp/f${n}x0" >/dev/null || fail "export f$n"
    same_arrays "$tmp/ax" "$tmp/f${n}x0" || fail "the first checkpoint of --init $src does not hold the model's weights"
    grep -qx 'hidden = 16' "$tmp/f$n/config.txt" && grep -qx 'value_hidden = 6' "$tmp/f$n/config.txt" &&
        grep -qx 'coarse = 0' "$tmp/f$n/config.txt" && grep -qx 'lr = 0.002' "$tmp/f$n/config.txt" ||
        fail "config.txt of --init $src: not the model's network and the flags' lr"
    crcs+=("$(echo "$out" | crc)")
done
echo "--init from an exported folder, a run directory, a checkpoint (2, 1, 2 threads): first checkpoint = the model; crc ${crcs[*]}"
[ "${crcs[0]}" = "${crcs[1]}" ] && [ "${crcs[0]}" = "${crcs[2]}" ] || fail "the three forms (and thread counts) end differently"
[ "$(rows "$tmp/f1")" = "$(rows "$tmp/f2")" ] || fail "metrics.csv rows differ between 2 and 1 threads"
"$bin" export "$tmp/f1" --out "$tmp/f1x" >/dev/null && ! same_arrays "$tmp/ax" "$tmp/f1x" 2>/dev/null ||
    fail "6 iterations of fine-tuning left the weights as they were"
# a drawn start differs: the same flags without --init
drawn=$("$bin" train "${F[@]}" --hidden 16 --value-hidden 6 --coarse 0 --workers 2 --run-dir "$tmp/d" | crc)
[ "$drawn" != "${crcs[0]}" ] || fail "the run from the model ends as the run from drawn weights"

# stopped at 3, resumed to 6: the same bits
"$bin" train "${F[@]}" --init "$tmp/ax" --iterations 3 --workers 2 --run-dir "$tmp/r" >/dev/null || fail "half run"
res=$("$bin" train --resume "$tmp/r" --iterations 6 --workers 1 --quiet | crc)
[ "$res" = "${crcs[0]}" ] && [ "$(rows "$tmp/r")" = "$(rows "$tmp/f1")" ] || fail "3 + resume to 6 ($res) is not 6 (${crcs[0]})"
echo "3 iterations, then --resume to 6: crc $res, the same rows"

# 2 MPI ranks (only rank 0 reads the model; the other adopts its settings and weights)
if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    out=$(timeout 120 mpirun -np 2 --oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo \
          "$bin" train "${F[@]}" --init "$tmp/ax" --workers 1 --run-dir "$tmp/m" 2>&1) || fail "mpirun -np 2: $out"
    m=$(echo "$out" | crc | head -1)
    [ "$m" = "${crcs[0]}" ] && [ "$(rows "$tmp/m")" = "$(rows "$tmp/f1")" ] || fail "2 ranks end with $m, not ${crcs[0]}"
    echo "2 MPI ranks: crc $m, the same rows"
    out=$(timeout 120 mpirun -np 2 --oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo \
          "$bin" train "${F[@]:2}" --init "$tmp/ax" --workers 1 --run-dir "$tmp/mn" 2>&1) || fail "mpirun -np 2, no --algo: $out"
    m=$(echo "$out" | crc | head -1)
    [ "$m" = "${crcs[0]}" ] || fail "2 ranks without --algo end with $m, not ${crcs[0]}"
    echo "2 MPI ranks, the learner from the model: crc $m"
else echo "(mpirun not installed: the 2-rank check skipped)"; fi

# Karpathy's network (pg): from a pg checkpoint, H from the model
"$bin" train --hidden 8 --batch-size 2 --iterations 1 --seed 2 --quiet --run-dir "$tmp/p" >/dev/null || fail "pg model"
"$bin" train --init "$tmp/p" --batch-size 2 --iterations 1 --seed 4 --quiet --keep 5 --run-dir "$tmp/pf" >/dev/null ||
    fail "pg --init"
grep -qx 'hidden = 8' "$tmp/pf/config.txt" || fail "pg --init: H is not the model's"

# without --algo the learner is the model's: PPO's run from the PPO model, the same bits
[ "${F[0]} ${F[1]}" = "--algo ppo" ] || fail "F does not start with --algo ppo"
n=$("$bin" train "${F[@]:2}" --init "$tmp/ax" --workers 2 --run-dir "$tmp/n" | crc)
grep -qx 'algo = ppo' "$tmp/n/config.txt" && grep -qx 'clip = 0.1' "$tmp/n/config.txt" ||
    fail "--init without --algo: not a PPO run with PPO's defaults"
[ "$n" = "${crcs[0]}" ] || fail "--init without --algo ends with $n, not ${crcs[0]}"
echo "--init without --algo: the model's learner (ppo), crc $n"
"$bin" export "$tmp/p" --out "$tmp/px" >/dev/null && "$bin" export "$tmp/pf/checkpoints/ckpt-00000000.bin" --out "$tmp/pfx" >/dev/null &&
    cmp -s "$tmp/px/W1.npy" "$tmp/pfx/W1.npy" && cmp -s "$tmp/px/W2.npy" "$tmp/pfx/W2.npy" ||
    fail "pg --init: the first checkpoint does not hold the model's W1 and W2"
echo "pg --init: the first checkpoint holds the model's W1 and W2 (H=8 from the model)"

# refusals: one line, non-zero, no run directory
refuse() {   # PATTERN, then the train flags
    local pat=$1; shift
    err=$("$bin" train "$@" --run-dir "$tmp/no" 2>&1 >/dev/null); rc=$?
    [ $rc -ne 0 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q -- "$pat" && [ ! -e "$tmp/no" ] ||
        fail "train $*: rc $rc, '$err' (want one line with '$pat', no run directory)"
    echo "refused: $err"
}
refuse "a model of --algo ppo; this run's learner is pg" --algo pg --init "$tmp/ax" --iterations 1
refuse "--batch-size is a setting of --algo pg; this run's learner is ppo" --init "$tmp/ax" --batch-size 2
refuse "the network of --init $tmp/ax has hidden=16" --algo ppo --hidden 32 --init "$tmp/ax"
refuse "has value_hidden=6" --algo ppo --value-hidden 0 --init "$tmp/ax"
refuse "a model of --algo pg" --algo ppo --init "$tmp/p"
refuse "No such file" --algo ppo --init "$tmp/nothing"
err=$("$bin" train --resume "$tmp/r" --init "$tmp/ax" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q -- "--init may not be given" || fail "--resume with --init: rc $rc, '$err'"
echo "refused: $err"
echo "PASS"
