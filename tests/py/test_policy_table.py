"""Python's policies are one table (pongrl.learners.POLICIES, nets.POLICIES) keyed by the
learner's --algo name: pongrl.load and nets.read_export (tools/play_npy.py) both find a model's
class there, from the C library's model_algo or from model.txt's algo= line; a learner added with
pongrl.learners.register is played by both, and an unknown one is refused naming those there
are. A folder of bare W1.npy/W2.npy is the learner's whose bare_npy calls it its own."""
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import pongrl, raises, run  # noqa: E402
from pongrl import learners, nets, policy  # noqa: E402


class Toy:
    @classmethod
    def from_export(cls, path, settings, **kw):
        t = cls()
        t.settings, t.kw = settings, kw
        return t


def export(lines):
    d = tempfile.mkdtemp(prefix="pongrl-policy-table-")
    with open(os.path.join(d, "model.txt"), "w") as f:
        f.write("".join(l + "\n" for l in lines))
    return d


def test_one_table():
    assert policy.POLICIES is nets.POLICIES is learners.POLICIES and set(learners.names()) >= {"pg", "ppo", "qrdqn"}
    d = export(["# a learner of a test", "format=1", "algo=toy", "hidden=3"])
    try:
        msg = raises(ValueError, nets.read_export, d)
        assert "--algo toy" in msg and "pg" in msg and "ppo" in msg, msg
        assert "--algo toy" in raises(ValueError, pongrl.load, d)
        assert learners.register("toy", Toy) is Toy
        try:
            for got in (nets.read_export(d, greedy=True), pongrl.load(d, greedy=True)):
                assert isinstance(got, Toy) and got.settings["hidden"] == "3" and got.kw["greedy"]
        finally:
            learners.unregister("toy")
        assert learners.get("toy") is None and "--algo toy" in raises(ValueError, nets.read_export, d)
    finally:
        shutil.rmtree(d)


def test_seeds_export_without_model_txt():
    d = tempfile.mkdtemp(prefix="pongrl-policy-table-")
    try:
        rng = np.random.default_rng(0)
        np.save(os.path.join(d, "W1.npy"), rng.standard_normal((4, 6400)))
        np.save(os.path.join(d, "W2.npy"), rng.standard_normal(4))
        p = nets.read_export(d)
        assert isinstance(p, nets.POLICIES["pg"]) and p.H == 4 and p.algo == "pg"
        assert learners.bare_npy(d)[0] == "pg" and nets.PgPolicy is learners.get("pg")  # the old name too
        np.save(os.path.join(d, "W2.npy"), rng.standard_normal(5))
        assert "are not (H, 6400) and (H,)" in raises(ValueError, nets.read_export, d)
        os.remove(os.path.join(d, "W1.npy"))
        assert learners.bare_npy(d) is None and "no learner's files" in raises(ValueError, nets.read_export, d)
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    sys.exit(run([test_one_table, test_seeds_export_without_model_txt]))
