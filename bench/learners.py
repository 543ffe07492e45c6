"""learners.py: pg (Karpathy's recipe), PPO (and QR-DQN) in C and examples/ppo_pong.py side by side, in one
run. Each learns ALE/Pong-v5 until the project's running mean reaches --target (or a
cap), one after the other, pinned to the same cores; then a table of agent steps/s and the
agent steps, episodes and seconds to the target with their ratios, and a plot of the curves.

    /usr/bin/python3 bench/learners.py [--target 0] [--seeds 1] [--cores 2]
        [--max-seconds 900] [--max-steps 0] [--learners pg,ppo,example(,qrdqn)]
        [--out build/bench_learners] [--publish] [--plot-only] [--ppo-flags="FLAGS"]

Each (each process pinned with sched_setaffinity to the first --cores CPUs it may use):
  pg       build/pongrl train --workers CORES              Karpathy's recipe (default --algo pg)
  ppo      build/pongrl train --algo ppo --workers CORES   its defaults, whatever they are today
  qrdqn    build/pongrl train --algo qrdqn --workers CORES  the same (not in the plot: the table)
  example  examples/ppo_pong.py --env-threads CORES --torch-threads CORES   PyTorch (Debian's);
           skipped with a line when /usr/bin/python3 cannot import torch
Everything else is each learner's default (no checkpoints during the C runs), but that the ppo
runs also get --ppo-flags, as they are (given with "=": they start with "--"); so PPO's defaults
against a change of them is this run twice, each with its own --out (docs/results/ppo.md):
    bench/learners.py --learners ppo --seeds 1,2,3 --target 20 --max-steps 10000000
        --max-seconds 0 --ppo-flags="--ent-anneal-steps 4000000" --out build/bench_entanneal
The running mean is pongrl train's for all three: the first episode's return, then 0.99 x running + 0.01 x each
episode's return, episodes in the order the learner logs them ((step, env) for both PPOs; the
example's --target-running keeps the same). Seconds are each learner's own clock, read from its
CSV (pongrl's wall_s: the sum of its iterations; the example's: from its first step); the whole
process's wall time (start-up included) is in the table too. A run stopped by a cap (SIGTERM at
the first poll after it: the C runs end the iteration and checkpoint) reads "not reached".

Writes OUT/{pg,ppo,example}_seedS.csv (the curves), OUT/*.log (each run's output), OUT/runs/
(the C runs' folders), OUT/runs.json (how each ran, for --plot-only), OUT/table.md and
OUT/learners.png (gnuplot: docs/results/learners.gp). --publish copies the CSVs, runs.json and
table.md to docs/results/learners/ and draws docs/img/learners.png from them instead;
--plot-only --publish --out docs/results/learners redraws that figure.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from milestones import first_reaching, read_curve  # noqa: E402

LEARNERS, C_LEARNERS = ("pg", "ppo", "example", "qrdqn"), ("pg", "ppo", "qrdqn")
NAMES = {"pg": "Karpathy's recipe (C, --algo pg)", "ppo": "PPO in C (--algo ppo)", "qrdqn": "QR-DQN in C"}
NAMES["example"] = "examples/ppo_pong.py (PyTorch)"
PUBLISHED = os.path.join(ROOT, "docs", "results", "learners")
PUBLISHED_PLOT = os.path.join(ROOT, "docs", "img", "learners.png")
POLL_S = 0.5
TERM_GRACE_S = 120  # a C run ends its iteration and writes its checkpoint after SIGTERM


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--target", type=float, default=0.0, help="the running mean to reach (default 0)")
    p.add_argument("--seeds", default="1", help="comma-separated run seeds: one run of each learner a seed (default 1)")
    p.add_argument("--cores", type=int, default=2, help="CPUs every learner is pinned to and uses (default 2)")
    p.add_argument(
        "--max-seconds",
        type=float,
        default=900,
        help="cap on each run's wall time, start-up included (default 900; 0: none)",
    )
    p.add_argument("--max-steps", type=int, default=0, help="cap on each run's agent steps (default 0: none)")
    p.add_argument("--learners", default="pg,ppo,example", help="of pg,ppo,example,qrdqn (default the first 3)")
    p.add_argument(
        "--example-torch-threads",
        type=int,
        default=0,
        help="PyTorch's threads in the example (default 0: --cores; bench/README.md)",
    )
    p.add_argument("--out", default=os.path.join(ROOT, "build", "bench_learners"), help="where the runs go")
    p.add_argument(
        "--publish",
        action="store_true",
        help="copy the curves and table to docs/results/learners/, draw docs/img/learners.png",
    )
    p.add_argument("--plot-only", action="store_true", help="no runs: the table and plot from OUT's CSVs")
    p.add_argument("--ppo-flags", default="", help="more flags for the ppo runs, as one string (default none)")
    p.add_argument("--pongrl", default=os.path.join(ROOT, "build", "pongrl"))
    p.add_argument("--python", default="/usr/bin/python3", help="the interpreter with PyTorch, for the example")
    a = p.parse_args()
    try:
        a.seeds = [int(s) for s in a.seeds.split(",")]
    except ValueError:
        p.error(f"--seeds {a.seeds}: not a comma-separated list of integers")
    a.learners = [x for x in a.learners.split(",") if x]
    bad = [x for x in a.learners if x not in LEARNERS]
    if bad or not a.learners:
        p.error(f"--learners: {','.join(bad) or 'empty'}: choose among {','.join(LEARNERS)}")
    if a.cores < 1 or a.example_torch_threads < 0 or a.max_seconds < 0 or a.max_steps < 0:
        p.error("--cores must be at least 1, --example-torch-threads, --max-seconds and --max-steps not negative")
    a.example_torch_threads = a.example_torch_threads or a.cores
    return a


# ----------------------------------------------------------------------------
# one run


def command(learner, seed, a, csv, run_dir):
    """One learner's command line, and how it uses the cores (for the table)."""
    cores, target = str(a.cores), "%g" % a.target
    if learner in C_LEARNERS:
        cmd = [
            a.pongrl,
            "train",
            "--algo",
            learner,
            "--seed",
            str(seed),
            "--target-reward",
            target,
            "--workers",
            cores,
            "--checkpoint-every",
            "0",
            "--checkpoint-secs",
            "0",
            "--keep",
            "1",
            "--run-dir",
            run_dir,
        ]
        if learner == "ppo":
            cmd += a.ppo_flags.split()
        return cmd, f"{cores} worker threads"
    torch = str(a.example_torch_threads)
    cmd = [
        a.python,
        os.path.join(ROOT, "examples", "ppo_pong.py"),
        "--seed",
        str(seed),
        "--target-running",
        target,
        "--env-threads",
        cores,
        "--torch-threads",
        torch,
        "--csv",
        csv,
    ]
    return cmd, f"{cores} env threads, {torch} torch thread{'' if torch == '1' else 's'}"


def has_torch(python):
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def last_steps(path, col):
    """Agent steps in the last complete row of a CSV being written (0 before its first row)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = f.read().decode(errors="replace").split("\n")[:-1]  # the last may be half-written
    except OSError:
        return 0
    rows = [l for l in lines if l and not l.startswith("iteration")]
    try:
        return int(rows[-1].split(",")[col]) if rows else 0
    except (IndexError, ValueError):
        return 0


def run_one(learner, seed, a, cpus):
    """Plays one learner to the target or a cap; returns how it ran (the CSV holds the rest)."""
    tag = f"{learner}_seed{seed}"
    csv = os.path.join(a.out, tag + ".csv")
    run_dir = os.path.join(a.out, "runs", tag)
    if os.path.exists(csv):
        os.remove(csv)
    shutil.rmtree(run_dir, ignore_errors=True)  # pongrl train refuses a run folder with a run in it
    cmd, uses = command(learner, seed, a, csv, run_dir)
    live_csv = csv if learner == "example" else os.path.join(run_dir, "metrics.csv")
    steps_col = 1 if learner == "example" else 2
    # libgomp's threads spin while they wait: on the busy machine 2 torch threads ran 2-22x
    # slower than 1 unless they wait passively (bench/README.md)
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    log_path = os.path.join(a.out, tag + ".log")
    print(f"bench learners: {tag}: {' '.join(cmd).replace(ROOT + os.sep, '')}", flush=True)
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    capped = None
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=env,
            preexec_fn=lambda: os.sched_setaffinity(0, cpus),
        )
        while proc.poll() is None:
            time.sleep(POLL_S)
            if a.max_seconds and time.monotonic() - t0 >= a.max_seconds:
                capped = f"{a.max_seconds:g} s"
            elif a.max_steps and last_steps(live_csv, steps_col) >= a.max_steps:
                capped = f"{a.max_steps:,} agent steps"
            if capped:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(TERM_GRACE_S)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                break
    wall = time.monotonic() - t0
    if proc.returncode != 0 and not capped:
        sys.exit(f"bench learners: {tag} exited {proc.returncode}; its output is in {log_path}")
    if learner != "example":
        shutil.copyfile(live_csv, csv)
    how = {
        "learner": learner,
        "seed": seed,
        "command": " ".join(cmd).replace(ROOT + os.sep, ""),
        "uses": uses,
        "process_s": round(wall, 2),
        "capped": capped,
        "load_before": load0,
        "load_after": os.getloadavg()[0],
    }
    print(f"bench learners: {tag}: {describe(summarise(how, csv, a.target))}", flush=True)
    return how


def summarise(how, csv, target):
    rows = read_curve(csv)
    if not rows:
        sys.exit(f"bench learners: {csv} has no rows")
    last = rows[-1]
    return dict(
        how, csv=csv, hit=first_reaching(rows, target), last=last, sps=last["agent_steps"] / max(last["wall_s"], 1e-9)
    )


def describe(r):
    h, l = r["hit"], r["last"]
    rate = f"{r['sps']:,.0f} agent steps/s"
    if h:
        return f"reached at {h['agent_steps']:,} agent steps, {h['episodes']:,} episodes, {h['wall_s']:.1f} s; {rate}"
    cap = f" (cap: {r['capped']})" if r.get("capped") else ""
    return (
        f"not reached{cap}: running mean {l['running_mean']:+.2f} at {l['agent_steps']:,} agent steps, "
        f"{l['wall_s']:.1f} s; {rate}"
    )


# ----------------------------------------------------------------------------
# the table


def fmt_steps(n):
    return f"{n / 1e6:.2f} M" if n >= 1e6 else f"{n / 1e3:.0f} k"


def table(recs, seeds, target, header):
    t = "%+g" % target if target else "0"
    out = [
        header,
        "",
        f"| learner | seed | uses the cores as | agent steps to {t} | episodes to {t} | seconds to {t} | "
        f"agent steps/s | process s | load (1 min) before, after |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in recs:
        h, l = r["hit"], r["last"]
        if h:
            steps, eps, secs = fmt_steps(h["agent_steps"]), f"{h['episodes']:,}", f"{h['wall_s']:.1f}"
        else:
            cap = f", cap {r['capped']}" if r.get("capped") else ""
            steps = f"not reached ({l['running_mean']:+.2f} at {fmt_steps(l['agent_steps'])}{cap})"
            eps, secs = f"> {l['episodes']:,}", f"> {l['wall_s']:.1f}"
        proc = f"{r['process_s']:.1f}" if r.get("process_s") is not None else "-"
        load = f"{r['load_before']:.1f}, {r['load_after']:.1f}" if r.get("load_before") is not None else "-"
        out.append(
            f"| {NAMES[r['learner']]} | {r['seed']} | {r.get('uses', '-')} | {steps} | {eps} | {secs} | "
            f"{r['sps']:,.0f} | {proc} | {load} |"
        )
    out += [
        "",
        f"Ratios from the same run, the first learner's figure over the second's: time and agent steps "
        f"to {t} (below 1: the first gets there sooner, in fewer steps; '-' where one did not), "
        f"agent steps/s over each whole run (above 1: the first steps faster).",
        "",
        f"| pair | seed | time to {t} | agent steps to {t} | agent steps/s |",
        "|---|---|---|---|---|",
    ]
    by = {(r["learner"], r["seed"]): r for r in recs}
    for x, y in (("ppo", "example"), ("ppo", "pg"), ("example", "pg"), ("qrdqn", "ppo")):
        for s in seeds:
            if (x, s) in by and (y, s) in by:
                rx, ry = by[(x, s)], by[(y, s)]
                both = rx["hit"] and ry["hit"]
                ratio = lambda k: f"{rx['hit'][k] / ry['hit'][k]:.2f}" if both else "-"  # noqa: E731
                out.append(
                    f"| {x} / {y} | {s} | {ratio('wall_s')} | {ratio('agent_steps')} | "
                    f"{rx['sps'] / ry['sps']:.2f} |"
                )
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------
# the plot


def plot(recs, target, caption, png):
    files = {l: " ".join(os.path.relpath(r["csv"], ROOT) for r in recs if r["learner"] == l) for l in LEARNERS}
    q = lambda s: "'" + s.replace("'", "") + "'"  # noqa: E731  (a gnuplot string)
    setv = (
        f"out={q(os.path.relpath(png, ROOT))}; pg={q(files['pg'])}; ppo={q(files['ppo'])}; "
        f"ex={q(files['example'])}; exy='running_mean'; target={target:g}; note={q(caption)}"
    )
    r = subprocess.run(
        ["gnuplot", "-e", setv, os.path.join("docs", "results", "learners.gp")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        sys.exit(f"bench learners: gnuplot failed: {r.stderr.strip()}")
    print(f"bench learners: plot {png}")


def caption_of(hows, a, when):
    uses = "; ".join(
        f"{l}: {next(h['uses'] for h in hows if h['learner'] == l)}"
        for l in LEARNERS
        if any(h["learner"] == l for h in hows)
    )
    loads = [x for h in hows for x in (h["load_before"], h["load_after"])]
    commit = (
        subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        or "?"
    )
    return (
        f"one run, {when}, commit {commit}, seed{'s' if len(a.seeds) > 1 else ''} "
        f"{','.join(map(str, a.seeds))}: one learner after the other, each pinned to the same {a.cores} of "
        f"{os.cpu_count()} CPUs\n{uses}; 1-minute load average {min(loads):.1f} to {max(loads):.1f}"
    )


def main():
    a = parse_args()
    meta_path = os.path.join(a.out, "runs.json")
    if a.plot_only:
        if not os.path.exists(meta_path):
            sys.exit(f"bench learners: {meta_path} missing: no run to redraw")
        meta = json.load(open(meta_path))
        hows = meta["runs"]
        a.target, a.seeds = meta["target"], meta["seeds"]
    else:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < a.cores:
            sys.exit(f"bench learners: --cores {a.cores}, but this process may run on {len(cpus)} CPUs only")
        cpus = set(cpus[: a.cores])
        os.makedirs(a.out, exist_ok=True)
        learners = list(a.learners)
        if "example" in learners and not has_torch(a.python):
            print(
                f"bench learners: skip examples/ppo_pong.py: {a.python} cannot import torch "
                "(sudo apt-get install python3-torch)"
            )
            learners.remove("example")
        if any(l != "example" for l in learners) and not os.access(a.pongrl, os.X_OK):
            sys.exit(f"bench learners: {a.pongrl} not built (run make)")
        if not learners:
            sys.exit("bench learners: nothing to run")
        hows = [run_one(l, s, a, cpus) for s in a.seeds for l in learners]
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        meta = {
            "target": a.target,
            "seeds": a.seeds,
            "when": when,
            "header": f"ALE/Pong-v5 to a running mean of {a.target:g}, one run, {when}, "
            f"{a.cores} cores (CPUs {','.join(map(str, sorted(cpus)))} of {os.cpu_count()})",
            "caption": caption_of(hows, a, when),
            "runs": hows,
        }
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
    recs = [summarise(h, os.path.join(a.out, f"{h['learner']}_seed{h['seed']}.csv"), a.target) for h in hows]
    text = table(recs, a.seeds, a.target, meta["header"])
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    print("\n" + text)
    png = os.path.join(a.out, "learners.png")
    if a.publish:
        png = PUBLISHED_PLOT
        if os.path.realpath(a.out) != os.path.realpath(PUBLISHED):
            os.makedirs(PUBLISHED, exist_ok=True)
            for name in [os.path.basename(r["csv"]) for r in recs] + ["runs.json", "table.md"]:
                shutil.copyfile(os.path.join(a.out, name), os.path.join(PUBLISHED, name))
            for r in recs:
                r["csv"] = os.path.join(PUBLISHED, os.path.basename(r["csv"]))
            print(f"bench learners: copied the curves, runs.json and table.md to {os.path.relpath(PUBLISHED, ROOT)}/")
    plot(recs, a.target, meta["caption"], png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
