"""test_ppo_policy.py: pongrl.load of a PPO model plays as the C player does.

A short `pongrl train --algo ppo` run (with and without the coarse views) makes a model; C's
build/ppo_dump --model plays 1,200 steps of a game with it (across an episode's end) and writes
the 80x80 frames, the actions and the network's action probabilities, which the player's own
act is checked to have used. Here, pongrl.load (the library's actor, algo/actor.h; its NumPy
twin, Policy.reference(), for the arrays) gives the same probabilities to 1e-12 on those frames,
on the RGB frames of the same game replayed in Python, and row by row in a batch; the folder
that `pongrl export` writes loads to the same arrays, bit for bit. The comparison can fail: with
one coarse view dropped from the input it does. Exit 0 pass, 77 skip (not built).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, pongrl, raises, run  # noqa: E402
from pongrl import nets  # noqa: E402
from pongrl.learners import ppo  # noqa: E402

BIN = os.environ.get("PONGRL_BIN") or os.path.join(ROOT, "build", "pongrl")
DUMP = os.environ.get("PONGRL_PPO_DUMP") or os.path.join(ROOT, "build", "ppo_dump")
SEED, STEPS = 7, 1200
if not os.path.exists(DUMP):
    print("skip: %s not built (make build/ppo_dump)" % DUMP)
    sys.exit(77)
TMP = tempfile.TemporaryDirectory()


def train(coarse):
    d = os.path.join(TMP.name, "run%d" % coarse)
    subprocess.run(
        [
            BIN,
            "train",
            "--algo",
            "ppo",
            "--envs",
            "4",
            "--steps",
            "64",
            "--hidden",
            "16",
            "--minibatches",
            "2",
            "--epochs",
            "2",
            "--lr",
            "0.01",
            "--iterations",
            "4",
            "--seed",
            "3",
            "--coarse",
            str(coarse),
            "--workers",
            "1",
            "--quiet",
            "--run-dir",
            d,
        ],
        check=True,
        capture_output=True,
    )
    return d


def c_play(model):
    out = os.path.join(TMP.name, "dump-" + os.path.basename(model))
    os.makedirs(out)
    subprocess.run([DUMP, "--model", model, "--seed", str(SEED), "--play", str(STEPS), "--out", out], check=True)
    return {k: np.load(os.path.join(out, k + ".npy")) for k in ("frames", "start", "action", "probs")}


def python_probs(pol, frames, start):
    out = np.zeros((len(frames), 3))
    for t, f in enumerate(frames):
        if start[t]:
            pol.reset()
        out[t] = pol.probabilities(f.reshape(80, 80))
    return out


def worst(a, b):
    return float(np.abs(a - b).max())


def check_model(coarse):
    run_dir = train(coarse)
    c = c_play(run_dir)
    assert c["start"].sum() >= 2, "the game did not cross an episode's end: reset goes untested"
    assert set(np.unique(c["action"])) <= {0, 2, 3}
    pol = pongrl.load(run_dir, seed=0)
    ref = pol.reference()  # the NumPy twin of the network the library plays
    assert isinstance(ref, ppo.PpoPolicy) and ref.coarse == bool(coarse) and pol.H == ref.H == 16
    got = python_probs(pol, c["frames"], c["start"])
    print(
        "coarse=%d: %d steps, %d episode starts, worst |p_python - p_C| %.2e"
        % (coarse, STEPS, c["start"].sum(), worst(got, c["probs"]))
    )
    assert worst(got, c["probs"]) < 1e-12
    numpy_probs = python_probs(pongrl.load(run_dir).reference(), c["frames"], c["start"])
    print("coarse=%d: worst |p_NumPy - p_C| %.2e" % (coarse, worst(numpy_probs, c["probs"])))
    assert worst(numpy_probs, c["probs"]) < 1e-12

    # the same game's RGB frames, replayed in Python from the same seeds and actions
    env = pongrl.make("ALE/Pong-v5")
    rgb = pongrl.load(run_dir)
    seed = SEED
    for t in range(STEPS):
        if c["start"][t]:
            obs, _ = env.reset(seed=seed)
            seed += 1
            rgb.reset()
        p = rgb.probabilities(obs)
        assert np.array_equal(nets.prepro(obs), c["frames"][t].reshape(80, 80)), "frame %d differs" % t
        assert worst(p, c["probs"][t]) < 1e-12, (t, p, c["probs"][t])
        obs, *_ = env.step(int(c["action"][t]))

    # a batch of two rows acts as two policies; greedy is the most likely action
    batch = pongrl.load(run_dir)
    for t in range(60):
        pb = batch.probabilities(np.stack([c["frames"][t].reshape(80, 80)] * 2))
        assert pb.shape == (2, 3) and worst(pb, got[t]) < 1e-12
    g = pongrl.load(run_dir, greedy=True)
    for t in range(60):
        assert g.act(c["frames"][t].reshape(80, 80)) == (0, 2, 3)[int(np.argmax(got[t]))]
    assert set(np.atleast_1d(pol.act(np.stack([c["frames"][0].reshape(80, 80)] * 5)))) <= {0, 2, 3}

    # the exported folder: the same arrays, bit for bit, read by NumPy alone
    out = os.path.join(TMP.name, "npy%d" % coarse)
    subprocess.run([BIN, "export", run_dir, "--out", out], check=True, capture_output=True)
    ex, ex_c = nets.read_export(out), pongrl.load(out).reference()
    for k in ("W1", "b1", "Wpi", "bpi", "wv", "bv"):
        assert np.array_equal(getattr(ex, k), getattr(ref, k)) and np.array_equal(getattr(ex_c, k), getattr(ref, k)), k
    assert ex.action_names == ("NOOP", "RIGHT", "LEFT") and ex.action_ids == (0, 2, 3)
    return run_dir, c, got


def test_coarse():
    run_dir, c, got = check_model(1)

    # the test can fail: drop the coarse view "columns lit in each band of rows" from the input
    def dropped(cur, prev, coarse):
        x = ppo.ppo_input(cur, prev, coarse)
        for base in (2 * nets.D, 2 * nets.D + nets.COARSE):
            x[:, base + 720 : base + 1040] = 0.0
        return x

    bad = pongrl.load(run_dir).reference()  # the NumPy reference, whose input can be swapped
    bad.input = dropped
    w = worst(python_probs(bad, c["frames"], c["start"]), c["probs"])
    print("with a coarse view dropped: worst difference %.2e (must be far above 1e-12)" % w)
    assert w > 1e-6


def test_no_coarse():
    check_model(0)


def test_refusals():
    # a model.txt that does not fit its arrays, and a folder that is no model
    out = os.path.join(TMP.name, "npy1")
    txt = open(os.path.join(out, "model.txt")).read()
    bad = os.path.join(TMP.name, "bad")
    os.makedirs(bad)
    for f in os.listdir(out):
        if f.endswith(".npy"):
            os.link(os.path.join(out, f), os.path.join(bad, f))
    with open(os.path.join(bad, "model.txt"), "w") as f:
        f.write(txt.replace("coarse=1", "coarse=0"))
    assert raises(ValueError, pongrl.load, bad).startswith("pongrl.load: ")
    assert raises(ValueError, pongrl.load, os.path.join(TMP.name, "nothing")).startswith("pongrl.load: ")


if __name__ == "__main__":
    run([test_coarse, test_no_coarse, test_refusals])
