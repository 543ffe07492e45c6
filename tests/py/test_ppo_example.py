"""test_ppo_example.py: examples/ppo_pong.py runs a few PPO iterations on the vector env
(a smoke test: it starts, steps, updates, writes its CSV and exits 0), and its running mean is
pongrl train's, recomputed here from the rewards its env returned (bench/learners.py compares
the learners on it). Skipped, with a message, when PyTorch is not installed
(`sudo apt-get install python3-torch`). Exit 0 pass, 77 skip, anything else fail.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if not os.path.exists(os.path.join(ROOT, "build", "libpongrl.so")):
    print("skip: build/libpongrl.so not built (run make)")
    sys.exit(77)
try:
    import torch  # noqa: F401
except ImportError:
    print("skip: PyTorch not installed (sudo apt-get install python3-torch) for examples/ppo_pong.py")
    sys.exit(77)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "curve.csv")
        model = os.path.join(tmp, "agent.pt")
        r = subprocess.run(
            [
                sys.executable,
                os.path.join(ROOT, "examples", "ppo_pong.py"),
                "--total-steps",
                "3072",
                "--num-envs",
                "8",
                "--num-steps",
                "128",
                "--env-threads",
                "2",
                "--csv",
                out,
                "--save",
                model,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        print(r.stdout[-2000:])
        assert r.returncode == 0, r.stderr[-3000:]
        lines = [l for l in r.stdout.splitlines() if l.startswith("iter")]
        assert len(lines) == 3, r.stdout
        with open(out) as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == 3 and int(rows[-1]["agent_steps"]) == 3072, rows
        assert os.path.getsize(model) > 1000
    print("ok ppo smoke test")
    running_mean_matches()
    return 0


# Runs the example with its env's step wrapped: each env's rewards summed until its episode
# ends (not the example's own episode statistics), the returns in (step, env) order.
RECORDER = """
import json, runpy, sys
import numpy as np
sys.path.insert(0, sys.argv[1] + "/python")
import pongrl
make_vec, returns, record = pongrl.make_vec, [], sys.argv[2]
def recorded(*args, **kw):
    envs = make_vec(*args, **kw)
    step, acc = envs.step, np.zeros(args[1])
    def stepped(actions):
        out = step(actions)
        acc[:] += out[1]
        for i in np.flatnonzero(np.logical_or(out[2], out[3])):
            returns.append(float(acc[i])); acc[i] = 0
        return out
    envs.step = stepped
    return envs
pongrl.make_vec = recorded
sys.argv = [sys.argv[1] + "/examples/ppo_pong.py"] + sys.argv[3:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit:
    pass
json.dump(returns, open(record, "w"))
"""


def running_mean_matches():
    # 8 envs x 128 steps x 10 iterations: a few episodes end (7 with seed 1; a random agent's last ~800 steps)
    with tempfile.TemporaryDirectory() as tmp:
        out, rec = os.path.join(tmp, "curve.csv"), os.path.join(tmp, "returns.json")
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                RECORDER,
                ROOT,
                rec,
                "--total-steps",
                "10240",
                "--num-envs",
                "8",
                "--num-steps",
                "128",
                "--csv",
                out,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        with open(rec) as f:
            returns = json.load(f)
        with open(out) as f:
            rows = list(csv.DictReader(f))
        assert len(returns) >= 3 and int(rows[-1]["episodes"]) == len(returns), (len(returns), rows[-1])
        ema = [returns[0]]
        for x in returns[1:]:
            ema.append(0.99 * ema[-1] + 0.01 * x)  # src/train/state.h: TRAIN_RUNNING_DECAY
        worst = max(abs(float(r["running_mean"]) - ema[int(r["episodes"]) - 1]) for r in rows if int(r["episodes"]))
        print(f"running mean, {len(returns)} episodes, {len(rows)} rows: worst difference {worst:.1e}")
        assert worst < 1e-6, worst
    print("ok the example's running mean is pongrl train's")


if __name__ == "__main__":
    sys.exit(main())
