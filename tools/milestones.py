#!/usr/bin/env python3
"""milestones.py: where a run's running mean first reached each mark (-10, 0, +10, +20 unless told).

    tools/milestones.py [--marks -15,-10,-5,0] RUN_DIR | RUN_DIR/metrics.csv [...]

For each run directory or metrics.csv (any learner's) or examples/ppo_pong.py --csv file (one
with its running_mean column): the iteration, agent steps, episodes and training seconds
(wall_s) of the first row whose running_mean is at or above each mark, the mean agent steps per
second over the whole run, and where the running mean stood after 3 minutes of training (the
budget PPO is measured by: the last row at or before 180 s). Marks not reached print "-".
The default marks suit PPO; pg's published table uses --marks -15,-10,-5,0.
bench/learners.py reads runs through read_curve and first_reaching.
"""
import csv
import os
import signal
import sys

MARKS = (-10, 0, 10, 20)
BUDGET_S = 180.0


def read_curve(path):
    """A run directory stands for its metrics.csv. The rows of a learning curve as dicts of numbers: iteration, agent_steps, episodes,
    wall_s (the learner's own clock: pongrl's wall_s, the example's seconds), running_mean
    (the project's; NaN before the first episode). Raises ValueError for another CSV."""
    if os.path.isdir(path):
        path = os.path.join(path, "metrics.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        try:
            out.append(
                {
                    "iteration": int(r["iteration"]),
                    "agent_steps": int(r["agent_steps"]),
                    "episodes": int(r["episodes"]),
                    "wall_s": float(r["wall_s"] if "wall_s" in r else r["seconds"]),
                    # empty before the first episode (older files: 0)
                    "running_mean": float(r["running_mean"] or "nan"),
                }
            )
        except (KeyError, TypeError, ValueError):
            raise ValueError(
                f"{path}: not a metrics.csv nor an examples/ppo_pong.py CSV with running_mean " f"(row {len(out) + 1})"
            ) from None
    return out


def first_reaching(rows, mark):
    """The first row whose running mean is at or above mark (after an episode ended), or None."""
    return next((r for r in rows if r["episodes"] > 0 and r["running_mean"] >= mark), None)


def parse_marks(text):
    """ "-15,-10,-5,0" -> (-15, -10, -5, 0); whole numbers only, as the output prints them."""
    try:
        marks = tuple(int(m) for m in text.split(","))
    except ValueError:
        sys.exit(f"milestones: --marks wants whole numbers separated by commas, not '{text}'")
    return marks


def main(args):
    marks = MARKS
    if len(args) >= 2 and args[0] == "--marks":
        marks = parse_marks(args[1])
        args = args[2:]
    elif args and args[0].startswith("--marks="):
        marks = parse_marks(args[0][len("--marks=") :])
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    for path in args:
        try:
            rows = read_curve(path)
        except OSError as e:
            sys.exit(f"milestones: {path}: {e.strerror}")
        except ValueError as e:
            sys.exit(f"milestones: {e}")
        if not rows:
            print(f"{path}: no rows")
            continue
        last = rows[-1]
        mean = lambda r: "-" if r["running_mean"] != r["running_mean"] else f"{r['running_mean']:+.2f}"  # nan: none yet
        sps = last["agent_steps"] / max(last["wall_s"], 1e-9)
        print(
            f"{path}: {last['iteration']} iterations, {last['agent_steps']:,} agent steps, "
            f"{last['episodes']:,} episodes, {last['wall_s']:.0f} s, {sps:,.0f} steps/s, "
            f"running mean {mean(last)}"
        )
        for m in marks:
            hit = first_reaching(rows, m)
            if hit:
                print(
                    f"  {m:+3d}: iteration {hit['iteration']}, {hit['agent_steps']:,} steps, "
                    f"{hit['episodes']:,} episodes, {hit['wall_s']:.0f} s"
                )
            else:
                print(f"  {m:+3d}: -")
        within = [r for r in rows if r["wall_s"] <= BUDGET_S]
        if last["wall_s"] < BUDGET_S:
            print(f"  at 3 min: - (the run ended after {last['wall_s']:.0f} s)")
        elif within:
            r = within[-1]
            print(
                f"  at 3 min: running mean {mean(r)}, iteration {r['iteration']}, "
                f"{r['agent_steps']:,} steps, {r['episodes']:,} episodes"
            )
        else:
            print("  at 3 min: - (the first row came after 180 s)")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly, as any filter
    main(sys.argv[1:])
