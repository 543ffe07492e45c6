"""atari_vec_bench.py: agent steps/s of pongrl.AtariVectorEnv (ale-py's AtariVectorEnv:
84x84 grayscale, a stack of 4, frameskip 4, max-pooling) from Python, and beside it, when
given, ALE's own vector engine in the same run, alternating, as a ratio.

    /usr/bin/python3 bench/atari_vec_bench.py [--envs 64] [--threads 2] [--seconds 2]
                                              [--repeat 3] [--ale ALE_BENCH]

ALE_BENCH (or $PONGRL_ALE_VEC_BENCH): a program built outside this repository from ALE's
source that steps ale::vector::EnvVectorizer (ale-py's engine) with random actions and prints
agent steps/s; its arguments are ROM num_envs num_threads seconds, and --rom names the ROM
(tests/data/ale-vector/README.md says how the engine was built). Timings on a shared machine
are noisy: the ratio of figures taken one after the other is what to read.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import pongrl  # noqa: E402


def pongrl_rate(num_envs, threads, seconds):
    env = pongrl.AtariVectorEnv("pong", num_envs, num_threads=threads)
    rng = np.random.default_rng(0)
    acts = [rng.integers(0, 6, num_envs) for _ in range(16)]
    env.reset(seed=0)
    for k in range(20):  # warm up the threads and caches
        env.step(acts[k % 16])
    steps, k, t0 = 0, 0, time.perf_counter()
    cpu0 = time.process_time()
    while True:
        for _ in range(20):
            env.step(acts[k & 15])
            k += 1
        steps += 20 * num_envs
        dt = time.perf_counter() - t0
        if dt >= seconds:
            break
    cpu = time.process_time() - cpu0
    env.close()
    return steps / dt, cpu / steps * 1e6


def ale_rate(binary, rom, num_envs, threads, seconds):
    out = subprocess.run(
        [binary, rom, str(num_envs), str(threads), str(seconds)], capture_output=True, text=True, check=True
    ).stdout
    return float(out.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ale", default=os.environ.get("PONGRL_ALE_VEC_BENCH"))
    ap.add_argument("--rom", default=os.environ.get("PONGRL_ALE_ROM"))
    a = ap.parse_args()
    if a.ale and not a.rom:
        ap.error("--ale needs --rom (or $PONGRL_ALE_ROM): the Pong ROM for ALE")
    print(
        "AtariVectorEnv pong, 84x84x4 grayscale, frameskip 4, num_envs %d, threads %d, "
        "%.1f s per figure, %d cores" % (a.envs, a.threads, a.seconds, os.cpu_count())
    )
    ours, theirs = [], []
    for _ in range(a.repeat):
        rate, cpu_us = pongrl_rate(a.envs, a.threads, a.seconds)
        ours.append(rate)
        line = "pongrl.AtariVectorEnv (Python)  %10.0f agent steps/s  (%.2f us CPU a step)" % (rate, cpu_us)
        if a.ale:
            theirs.append(ale_rate(a.ale, a.rom, a.envs, a.threads, a.seconds))
            line += "   ALE's EnvVectorizer (C++) %9.0f agent steps/s" % theirs[-1]
        print(line)
        sys.stdout.flush()
    if theirs:
        print(
            "median: pongrl %.0f, ALE %.0f agent steps/s: pongrl / ALE = %.1f"
            % (statistics.median(ours), statistics.median(theirs), statistics.median(ours) / statistics.median(theirs))
        )
    else:
        print("median: pongrl %.0f agent steps/s" % statistics.median(ours))


if __name__ == "__main__":
    main()
