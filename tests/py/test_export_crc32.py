"""test_export_crc32.py: model.txt's crc32 line, as Python's readers meet it.

`pongrl export` names each array file in model.txt with the crc32 of its bytes. pongrl.load (the
C library's reader) and nets.read_export (NumPy's, what tools/play_npy.py uses) refuse a folder
whose arrays are not those, with a ValueError naming the file; a malformed line is refused too.
An export written before the line existed (the line removed; the shipped models/pong-v5-ppo)
still loads, to the same arrays. Exit 0 pass, 77 skip (not built).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, pongrl, raises, run  # noqa: E402
from pongrl import nets  # noqa: E402

BIN = os.environ.get("PONGRL_BIN") or os.path.join(ROOT, "build", "pongrl")
if not os.path.exists(BIN):
    print("skip: %s not built (make)" % BIN)
    sys.exit(77)
TMP = tempfile.TemporaryDirectory()
PPO = ["--algo", "ppo", "--envs", "4", "--steps", "64", "--hidden", "16", "--minibatches", "2", "--epochs", "2"]


def export(seed):
    """A PPO model of one iteration with this seed, exported: its folder."""
    d, out = os.path.join(TMP.name, "run%d" % seed), os.path.join(TMP.name, "npy%d" % seed)
    args = ["--iterations", "1", "--seed", str(seed), "--workers", "1", "--quiet", "--run-dir", d]
    subprocess.run([BIN, "train"] + PPO + args, check=True, capture_output=True)
    subprocess.run([BIN, "export", d, "--out", out], check=True, capture_output=True)
    return out


def copy(src, name):
    dst = os.path.join(TMP.name, name)
    shutil.copytree(src, dst)
    return dst


def arrays(path):
    with pongrl.load(path) as p:
        ref = p.reference()
    return [ref.W1, ref.b1, ref.Wpi, ref.bpi]


def test_mixed_refused():
    a, b = export(3), export(4)
    mixed = copy(a, "mixed")
    shutil.copy(os.path.join(b, "ppo_bv.npy"), mixed)  # model.txt of one export, an array of another
    want = "%s: not the file %s was written with" % (
        os.path.join(mixed, "ppo_bv.npy"),
        os.path.join(mixed, "model.txt"),
    )
    for read in (pongrl.load, nets.read_export):
        msg = raises(ValueError, read, mixed)
        assert want in msg and "\n" not in msg, msg
        print("%s: %s" % (read.__module__ + "." + read.__name__, msg))
    txt = open(os.path.join(a, "model.txt")).read()
    assert re.search(r"^crc32=ppo_W1\.npy:[0-9a-f]{8},ppo_b1\.npy:[0-9a-f]{8},", txt, re.M), txt
    bad = copy(a, "badline")
    with open(os.path.join(bad, "model.txt"), "w") as f:
        f.write(re.sub(r"ppo_b1\.npy:[0-9a-f]{8}", "ppo_b1.npy:12", txt))
    for read in (pongrl.load, nets.read_export):
        assert "crc32: 'ppo_b1.npy:12' is not NAME.npy:hhhhhhhh" in raises(ValueError, read, bad)


def test_without_line_loads():
    a = os.path.join(TMP.name, "npy3")
    old = copy(a, "old")
    txt = open(os.path.join(old, "model.txt")).read()
    with open(os.path.join(old, "model.txt"), "w") as f:
        f.write(re.sub(r"^crc32=.*\n", "", txt, flags=re.M))
    assert "crc32" not in open(os.path.join(old, "model.txt")).read()
    for x, y in zip(arrays(a), arrays(old)):
        assert np.array_equal(x, y)
    nets.read_export(old)
    shipped = os.path.join(ROOT, "models", "pong-v5-ppo")
    assert "crc32" not in open(os.path.join(shipped, "model.txt")).read()
    pongrl.load(shipped).close()
    nets.read_export(shipped)


if __name__ == "__main__":
    sys.exit(run([test_mixed_refused, test_without_line_loads]))
