"""test_ppo_example.py: examples/ppo_pong.py runs a few PPO iterations on the vector env
(a smoke test: it starts, steps, updates, writes its CSV and exits 0). Skipped, with a
message, when PyTorch is not installed (`sudo apt-get install python3-torch`).
Exit 0 pass, 77 skip, anything else fail.
"""
import csv
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
        r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "ppo_pong.py"),
                            "--total-steps", "3072", "--num-envs", "8", "--num-steps", "128",
                            "--env-threads", "2", "--csv", out, "--save", model],
                           capture_output=True, text=True, timeout=300)
        print(r.stdout[-2000:])
        assert r.returncode == 0, r.stderr[-3000:]
        lines = [l for l in r.stdout.splitlines() if l.startswith("iter")]
        assert len(lines) == 3, r.stdout
        with open(out) as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == 3 and int(rows[-1]["agent_steps"]) == 3072, rows
        assert os.path.getsize(model) > 1000
    print("ok ppo smoke test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
