#!/usr/bin/env bash
# A QR-DQN model out to .npy and back (export, import): export -> import -> export writes the same
# files, the imported model's weights have the run's crc32, and eval plays the run, the imported
# checkpoint and the exported folder alike (sampled and greedy); a folder that does not fit (an
# array missing, misshapen or not the one model.txt's crc32 line names, model.txt's settings or
# lines not the arrays') is refused in one line, exit 1 (lib_learner.sh: the checks every
# learner's export passes). pongrl.load of the
# export plays it in C; its action probabilities (epsilon-greedy on the mean quantiles) equal
# those of nets.py's QrdqnPolicy on the same frames, and so do the greedy actions, on a few
# hundred steps of a game (the NumPy network's mean quantiles decide them); tools/play_npy.py's
# forward pass (docs/runs.md's) is nets.py's.
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
source "$(dirname "$0")/lib_learner.sh"
py=/usr/bin/python3
T=(--algo qrdqn --envs 4 --steps 100 --hidden 16 --quantiles 8 --learn-start 200 --replay 2000 --minibatch 8
    --update-every 2 --eps-steps 400 --lr 0.001 --seed 3 --quiet)
crc_run=$("$bin" train "${T[@]}" --iterations 4 --workers 2 --run-dir "$tmp/run" | crc)
[ -n "$crc_run" ] || fail "train"
export_round_trip "model.txt qrdqn_W1.npy qrdqn_W2.npy qrdqn_b1.npy qrdqn_b2.npy"
# the arrays, in the network's order, are the run's weights: their crc32 is the run's closing one
got=$($py -c '
import sys, zlib, numpy as np
p = [np.load("%s/qrdqn_%s.npy" % (sys.argv[1], k)).ravel() for k in ("W1", "b1", "W2", "b2")]
print("%08x" % zlib.crc32(np.concatenate(p).astype("<f8").tobytes()))' "$tmp/b")
echo "run's weights crc32 $crc_run, exported after import $got"
[ "$got" = "$crc_run" ] || fail "the imported model's weights are not the run's"
plays_alike 1 1
# bad folders: one line, exit 1, from import and from eval
bad nob2; rm "$tmp/nob2/qrdqn_b2.npy"; one_line nob2 "qrdqn_b2.npy: .*No such file"
bad_arrays w2; cp "$tmp/a/qrdqn_b1.npy" "$tmp/w2/qrdqn_W2.npy"; one_line w2 "qrdqn_W2.npy: shape must be (24, 16)"
mixed mixed qrdqn_W1.npy
bad hidden; sed -i 's/^hidden=16$/hidden=17/' "$tmp/hidden/model.txt"; one_line hidden "qrdqn_W1.npy: shape must be (14880, 17)"
bad actions; sed -i 's/^actions=.*/actions=NOOP,LEFT,RIGHT/' "$tmp/actions/model.txt"
one_line actions "actions=NOOP,LEFT,RIGHT, but this build's QR-DQN network"
bad unknown; echo "colour=blue" >>"$tmp/unknown/model.txt"; one_line unknown "unknown line 'colour'"
bad noids; sed -i '/^action_ids=/d' "$tmp/noids/model.txt"; one_line noids "no action_ids line"

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
