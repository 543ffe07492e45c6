"""karpathy_bench.py: Karpathy's NumPy policy_forward and policy_backward on the episode that
`pongrl bench train` times (episode 0 of seed 1, untrained weights: build/dump_episodes exports
the same inputs and weights), and how much faster ours is. Test tooling: `make bench` runs it
after `pongrl bench train`, whose output it reads for our figures. Prints name: value lines.

    /usr/bin/python3 bench/karpathy_bench.py [--dump build/dump_episodes] [--ours bench_train.txt]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "reference"))
import karpathy_model as sm  # noqa: E402


def seed_times(d):
    W1, W2 = np.load(f"{d}/W1.npy"), np.load(f"{d}/W2.npy")
    x = np.load(f"{d}/x_0.npy").astype(np.float64)
    actions, rewards = np.load(f"{d}/action_0.npy"), np.load(f"{d}/reward_0.npy")
    model = sm.Model(W1, W2)
    T = len(x)
    t0 = time.perf_counter()
    hs, dl = [], []
    for t in range(T):
        p, h = model.policy_forward(x[t])
        hs.append(h)
        dl.append((1 if actions[t] == 2 else 0) - p)
    t1 = time.perf_counter()
    eph, epdlogp = np.vstack(hs), np.vstack(dl)
    adv = sm.process_rewards(np.vstack(list(rewards)))
    adv -= adv.mean()
    adv /= adv.std()
    epdlogp *= adv
    t2 = time.perf_counter()
    model.policy_backward(eph, x, epdlogp)
    t3 = time.perf_counter()
    return (t1 - t0) / T * 1e6, (t3 - t2) / T * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", default=os.path.join(here, "..", "build", "dump_episodes"))
    ap.add_argument("--ours", help="output of `pongrl bench train` (forward/backward_us_per_step)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pongrl-seed-bench-") as d:
        subprocess.run([a.dump, "--seed", "1", "--episodes", "1", "--out", d], check=True, stdout=subprocess.DEVNULL)
        fwd, bwd = seed_times(d)
    print(f"seed_forward_us_per_step: {fwd:.2f}")
    print(f"seed_backward_us_per_step: {bwd:.2f}")
    if a.ours:
        ours = dict(re.findall(r"^(\w+): ([0-9.]+)$", open(a.ours).read(), re.M))
        for name, seed in (("forward", fwd), ("backward", bwd)):
            v = float(ours.get(f"{name}_us_per_step", 0))
            if v > 0:
                print(f"{name}_speedup_vs_seed: {seed / v:.1f}")


if __name__ == "__main__":
    main()
