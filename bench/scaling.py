#!/usr/bin/env python3
"""Thread scaling of `pongrl train`: agent steps a second at 1, 2, 4, ... workers, and the
efficiency against one worker, for each learner setting given.

    bench/scaling.py [--bin build/pongrl[,OTHER]] [--workers 1,2,4,8,16] [--iterations N] [--rounds R]
                     [--only NAME] [--mpi]

Each row is one run of `pongrl train` (checkpoints off, --quiet); its rate is the agent steps
of the iterations after the first two (warm-up: threads started, buffers grown) over their wall
time, both read from the run's metrics.csv. With --mpi, pg's recipe and PPO's defaults also run
as R MPI ranks of 1 worker each (mpirun --oversubscribe), beside R threads, with a row of the
ranks' rate over the threads' (the last binary's). The machine should be otherwise idle;
name the CPU and the build flags beside any table you quote (the script prints the CPU). With
two or more binaries (--bin A,B), each cell's runs alternate between them (A, B, A, B, ...), so
that a change in the machine's speed falls on both: one row per binary, and a row of the last
binary's rate over the first's. With --rounds R each cell alternates the binaries R times and
keeps each binary's median. To time today's build beside an older revision's:

    bench/build_rev.sh e863d33 build/base/pongrl
    bench/scaling.py --bin build/base/pongrl,build/pongrl --only "ppo defaults" --rounds 3
"""
import argparse
import csv
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

SETTINGS = {  # name: (flags, iterations)
    "ppo defaults": (["--algo", "ppo"], 12),
    "ppo --envs 256 --minibatches 16 --epochs 4": (
        ["--algo", "ppo", "--envs", "256", "--minibatches", "16", "--epochs", "4"],
        5,
    ),
    "pg --batch-size 64": (["--algo", "pg", "--batch-size", "64"], 12),
}


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def rate(run_dir):
    """Agent steps a second after the warm-up iterations, from metrics.csv."""
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    if len(rows) < 3:
        raise SystemExit(f"scaling: {run_dir}/metrics.csv has {len(rows)} rows, need at least 3")
    a, b = rows[1], rows[-1]
    steps = int(b["agent_steps"]) - int(a["agent_steps"])
    secs = float(b["wall_s"]) - float(a["wall_s"])
    return steps / secs


def run(cmd, run_dir, iterations):
    full = cmd + [
        "--iterations",
        str(iterations),
        "--quiet",
        "--checkpoint-every",
        "0",
        "--checkpoint-secs",
        "0",
        "--run-dir",
        run_dir,
    ]
    p = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        raise SystemExit(f"scaling: {' '.join(full)} failed: {p.stderr.strip().splitlines()[-1:]}")
    return rate(run_dir)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/pongrl", help="the binary, or binaries separated by commas")
    n = os.cpu_count() or 1
    default_workers = [w for w in (1, 2, 4, 8, 16, 32, 64) if w <= n]
    if default_workers[-1] != n:
        default_workers.append(n)
    ap.add_argument("--workers", default=",".join(map(str, default_workers)))
    ap.add_argument("--iterations", type=int, default=0, help="iterations a run (0: each setting's own)")
    ap.add_argument("--rounds", type=int, default=1, help="alternations of the binaries a cell (median kept)")
    ap.add_argument("--only", default="", help="run only the settings whose name contains this")
    ap.add_argument("--mpi", action="store_true", help="also pg's recipe and PPO's defaults as MPI ranks x 1 worker")
    args = ap.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    bins = args.bin.split(",")
    if args.rounds < 1:
        sys.exit("scaling: --rounds must be at least 1")
    for b in bins:
        if not os.access(b, os.X_OK):
            sys.exit(f"scaling: {b} is not an executable (run make first)")
    print(f"cpu: {cpu_name()}, {n} logical CPUs; binaries: {', '.join(bins)}")
    print("| setting | " + " | ".join(str(w) for w in workers) + f" | {workers[-1]} / 1 |")
    print("|---|" + "---|" * (len(workers) + 1))
    tmp = tempfile.mkdtemp(prefix="pongrl-scaling-")
    try:
        rows = [(name, flags, its) for name, (flags, its) in SETTINGS.items() if args.only in name]
        for name, flags, its in rows:
            its = args.iterations or its
            rates = [[] for _ in bins]  # by position: the same binary may be given twice
            for w in workers:
                got = [[] for _ in bins]
                for r in range(args.rounds):
                    for k, b in enumerate(bins):
                        d = os.path.join(tmp, f"{name}-{k}-{w}-{r}")
                        got[k].append(run([b, "train"] + flags + ["--workers", str(w)], d, its))
                        shutil.rmtree(d, ignore_errors=True)
                for k in range(len(bins)):
                    rates[k].append(statistics.median(got[k]))
            for b, r in zip(bins, rates):
                cells = [f"{x:,.0f} ({x / (r[0] * w):.0%})" for x, w in zip(r, workers)]
                label = f"`{name}`" + (f", {b}" if len(bins) > 1 else "")
                print(f"| {label} | " + " | ".join(cells) + f" | {r[-1] / r[0]:.1f}x |", flush=True)
            if len(bins) > 1:
                first, last = rates[0], rates[-1]
                cells = [f"{b / a:.2f}x" for a, b in zip(first, last)]
                print(f"| `{name}`, {bins[-1]} / {bins[0]} | " + " | ".join(cells) + " | |", flush=True)
            if args.mpi and (name.startswith("pg") or name == "ppo defaults"):
                mpirun = shutil.which("mpirun")
                if not mpirun:
                    sys.exit("scaling: --mpi needs mpirun (Debian's openmpi-bin)")
                mrates = []
                for w in workers:
                    d = os.path.join(tmp, f"{name}-mpi{w}")
                    cmd = [mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(w), bins[-1], "train"] + flags
                    mrates.append(run(cmd + ["--workers", "1"], d, its))
                cells = [f"{r:,.0f} ({r / (mrates[0] * w):.0%})" for r, w in zip(mrates, workers)]
                print(
                    f"| `{name}`, MPI ranks x 1 worker | " + " | ".join(cells) + f" | {mrates[-1] / mrates[0]:.1f}x |",
                    flush=True,
                )
                cells = [f"{m / t:.2f}" for m, t in zip(mrates, rates[-1])]
                print(f"| `{name}`, ranks / threads | " + " | ".join(cells) + " | |", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("cells: agent steps/s (efficiency: rate / (workers x the 1-worker rate))")


if __name__ == "__main__":
    main()
