"""vec_bench.py: agent steps/s of pongrl.make_vec from Python, per observation type and
thread count. Actions are drawn beforehand (int32, 16 batches cycled) so that the loop
measures the env and its binding only: obs, rewards, terminated, truncated, info per step.

    /usr/bin/python3 bench/vec_bench.py [--envs N] [--seconds S] [--threads 1,2]
                                        [--obs obs80,ram,grayscale,rgb] [--copy] [--repeat R]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import pongrl  # noqa: E402


def run(obs_type, num_envs, threads, seconds, copy):
    envs = pongrl.make_vec("ALE/Pong-v5", num_envs, num_threads=threads, obs_type=obs_type, copy=copy, seed=0)
    rng = np.random.default_rng(0)
    acts = [rng.integers(0, 6, num_envs).astype(np.int32) for _ in range(16)]
    envs.reset(seed=0)
    for k in range(20):  # warm up the threads and caches
        envs.step(acts[k % 16])
    steps, t0 = 0, time.perf_counter()
    k = 0
    while True:
        for _ in range(50):
            obs, rew, term, trunc, info = envs.step(acts[k & 15])
            k += 1
        steps += 50 * num_envs
        dt = time.perf_counter() - t0
        if dt >= seconds:
            break
    envs.close()
    return steps / dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", default="")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--obs", default="obs80,ram,grayscale,rgb")
    ap.add_argument("--copy", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    default_envs = {"obs80": 256, "ram": 256, "grayscale": 64, "rgb": 64}
    print("pongrl.make_vec ALE/Pong-v5, copy=%s, %.1f s per figure, %d cores" % (a.copy, a.seconds, os.cpu_count()))
    for obs in a.obs.split(","):
        n = int(a.envs) if a.envs else default_envs[obs]
        for t in map(int, a.threads.split(",")):
            figs = [run(obs, n, t, a.seconds, a.copy) for _ in range(a.repeat)]
            print(
                "%-9s num_envs %4d  threads %d  %s agent steps/s" % (obs, n, t, "  ".join("%10.0f" % f for f in figs))
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
