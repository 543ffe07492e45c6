#!/usr/bin/env bash
# A QR-DQN model out to .npy and back (export, import): export -> import -> export writes the same
# files, the imported model's weights have the run's crc32, and eval plays the run, the imported
# checkpoint and the exported folder alike (sampled and greedy). pongrl.load of the export plays
# it in C; its action probabilities (epsilon-greedy on the mean quantiles) equal those of
# nets.py's QrdqnPolicy on the same frames, and so do the greedy actions, on a few hundred steps
# of a game (the NumPy network's mean quantiles decide them); tools/play_npy.py's forward pass
# (docs/runs.md's) is nets.py's.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
py=/usr/bin/python3
T=(--algo qrdqn --envs 4 --steps 100 --hidden 16 --quantiles 8 --learn-start 200 --replay 2000 --minibatch 8
    --update-every 2 --eps-steps 400 --lr 0.001 --seed 3 --quiet)
crc_run=$("$bin" train "${T[@]}" --iterations 4 --workers 2 --run-dir "$tmp/run" | crc)
[ -n "$crc_run" ] || fail "train"
out=$("$bin" export "$tmp/run" --out "$tmp/a") || fail "export"
echo "$out"
[ "$(ls "$tmp/a" | tr '\n' ' ')" = "model.txt qrdqn_W1.npy qrdqn_W2.npy qrdqn_b1.npy qrdqn_b2.npy " ] ||
    fail "export wrote $(ls "$tmp/a" | tr '\n' ' ')"
"$bin" import "$tmp/a" --out "$tmp/imp.bin" || fail "import"
"$bin" export "$tmp/imp.bin" --out "$tmp/b" >/dev/null || fail "export of the imported model"
for f in "$tmp"/a/*; do cmp "$f" "$tmp/b/$(basename "$f")" || fail "$(basename "$f") differs after export, import, export"; done
# the arrays, in the network's order, are the run's weights: their crc32 is the run's closing one
got=$($py -c '
import sys, zlib, numpy as np
p = [np.load("%s/qrdqn_%s.npy" % (sys.argv[1], k)).ravel() for k in ("W1", "b1", "W2", "b2")]
print("%08x" % zlib.crc32(np.concatenate(p).astype("<f8").tobytes()))' "$tmp/b")
echo "run's weights crc32 $crc_run, exported after import $got"
[ "$got" = "$crc_run" ] || fail "the imported model's weights are not the run's"
for g in "" --greedy; do
    r=$("$bin" eval "$tmp/run" --episodes 1 --workers 1 $g | tail -n +3) || fail "eval run $g"
    i=$("$bin" eval "$tmp/imp.bin" --episodes 1 --workers 1 $g | tail -n +3) || fail "eval imported $g"
    e=$("$bin" eval "$tmp/a" --episodes 1 --workers 1 $g | tail -n +3) || fail "eval exported folder $g"
    [ "$r" = "$i" ] && [ "$r" = "$e" ] || fail "eval $g differs: run '$r', imported '$i', folder '$e'"
done
echo "eval (sampled, greedy): the run, the imported checkpoint and the exported folder play alike"
rm "$tmp/a/qrdqn_b2.npy"
err=$("$bin" import "$tmp/a" --out "$tmp/x.bin" 2>&1); rc=$?
[ $rc != 0 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "import without qrdqn_b2.npy: rc=$rc '$err'"
echo "$err"
cp "$tmp/b/qrdqn_b2.npy" "$tmp/a/"

PYTHONPATH="${PYTHONPATH:-python}" $py - "$tmp/a" <<'PY' || fail "pongrl.load of the export"
import sys
import numpy as np
import pongrl
from pongrl import nets
path = sys.argv[1]
ref = nets.read_export(path)
env = pongrl.make("ALE/Pong-v5", obs_type="obs80")
worst, steps, agree = 0.0, 300, 0
for greedy in (True, False):
    c, r = pongrl.load(path, greedy=greedy), nets.read_export(path, greedy=greedy)
    assert isinstance(r, nets.QrdqnPolicy) and c.algo == "qrdqn", (type(r), c.algo)
    obs, _ = env.reset(seed=1)
    c.reset(), r.reset()
    for t in range(steps):
        pc, pr = c.probabilities(obs), r.probabilities(obs)
        worst = max(worst, float(np.abs(pc - pr).max()))
        assert np.argmax(pc) == np.argmax(pr), (t, pc, pr)
        obs, _, term, trunc, _ = env.step(int(r.action_ids[int(np.argmax(pr))]))
        if term or trunc:
            obs, _ = env.reset()
            c.reset(), r.reset()
assert worst < 1e-12, worst
print("pongrl.load (C) and nets.QrdqnPolicy (NumPy): %d steps each greedy and sampled, worst |p_C - p_NumPy| %.1e" % (steps, worst))
PY
echo "ok"
