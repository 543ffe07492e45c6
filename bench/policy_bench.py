"""policy_bench.py: µs per act() of pongrl.load's policies, in C (algo/actor.h, what pongrl.load
gives) and in NumPy (nets.py's dense forward pass, the reference and what pongrl.load gave
before), for Karpathy's model and the PPO model, on one RGB observation, one obs80 observation,
and a batch of obs80 observations (µs per act() of the whole batch). The observations are
frames of a real game, played beforehand and cycled, so that the input changes every step as
in play, each copied just before its call as an env has just written it; each figure is the
median of --repeat timings of --acts calls.

    /usr/bin/python3 bench/policy_bench.py [--acts N] [--repeat R] [--batch B]
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import pongrl  # noqa: E402

MODELS = (("pg", "models/pong-v5"), ("ppo", "models/pong-v5-ppo"))


def frames(obs_type, n, seed):
    """n observations of one game, the agent moving up and down."""
    env = pongrl.make("ALE/Pong-v5", obs_type=obs_type)
    obs, _ = env.reset(seed=seed)
    out = []
    for t in range(n):
        out.append(obs)
        obs, _, term, trunc, _ = env.step(2 if (t // 8) % 2 else 3)
        if term or trunc:
            obs, _ = env.reset(seed=seed + t)
    env.close()
    return out


def per_act(policy, inputs, acts, repeat):
    """Median seconds of one act() over repeat timings of acts calls. Each observation is copied
    just before its call, untimed, as an env has just written it: cycling through 200 frames
    that lie in memory untouched would time the cache misses of reading them instead."""
    for x in inputs[:10]:  # warm up
        policy.act(x)
    runs = []
    for _ in range(repeat):
        spent = 0.0
        for k in range(acts):
            x = inputs[k % len(inputs)].copy()
            t0 = time.perf_counter()
            policy.act(x)
            spent += time.perf_counter() - t0
        runs.append(spent / acts)
    return sorted(runs)[len(runs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--acts", type=int, default=200, help="act() calls a timing (default 200)")
    ap.add_argument("--repeat", type=int, default=5, help="timings, the median reported (default 5)")
    ap.add_argument("--batch", type=int, default=16, help="rows of the batch (default 16)")
    a = ap.parse_args()
    if a.acts < 1 or a.repeat < 1 or a.batch < 1:
        sys.exit("pongrl: --acts, --repeat and --batch are at least 1")
    rgb, o80 = frames("rgb", 200, 1), frames("obs80", 200 + a.batch, 1)
    batches = [np.stack(o80[k : k + a.batch]) for k in range(200)]
    cases = (("one rgb", rgb), ("one obs80", o80[:200]), ("batch of %d obs80" % a.batch, batches))
    print("µs per act() (median of %d timings of %d calls; %s)" % (a.repeat, a.acts, os.uname().machine))
    print("%-6s %-20s %10s %10s %8s" % ("model", "observation", "NumPy", "C", "C x"))
    for algo, path in MODELS:
        c = pongrl.load(os.path.join(ROOT, path), seed=0)
        ref = c.reference(seed=0)
        for name, inputs in cases:
            t_np, t_c = per_act(ref, inputs, a.acts, a.repeat), per_act(c, inputs, a.acts, a.repeat)
            print("%-6s %-20s %10.1f %10.1f %8.0f" % (algo, name, 1e6 * t_np, 1e6 * t_c, t_np / t_c))
        c.close()


if __name__ == "__main__":
    main()
