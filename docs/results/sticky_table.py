#!/usr/bin/env python3
"""sticky_table.py: the per-seed tables of the sticky-action results (docs/results/ppo.md, qrdqn.md).

    python3 docs/results/sticky_table.py LABEL=CSV [LABEL=CSV ...]

For each run (a metrics.csv, or a run directory): the running mean at the first row at or past
1, 3, 6 and 10 M agent steps ("-" where the run stopped before), then the agent steps, episodes
and seconds (wall_s, the run's own clock) of the first row at or above -10, 0, +10 and +20
(tools/milestones.py's first_reaching; "-" not reached). One markdown row a run.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from milestones import first_reaching, read_curve  # noqa: E402

AT = (1_000_000, 3_000_000, 6_000_000, 10_000_000)
MARKS = (-10, 0, 10, 20)


def at_steps(rows, n):
    r = next((r for r in rows if r["agent_steps"] >= n), None)
    return "-" if r is None or r["episodes"] == 0 else f"{r['running_mean']:+.2f}"


def to_mark(rows, mark):
    r = first_reaching(rows, mark)
    if r is None:
        return "-"
    return f"{r['agent_steps'] / 1e6:.2f} M, {r['episodes']:,} ep, {r['wall_s']:.0f} s"


def main(argv):
    if not argv or any("=" not in a for a in argv):
        sys.exit("usage: sticky_table.py LABEL=CSV [LABEL=CSV ...]")
    head = ["run"] + [f"at {n // 1_000_000} M" for n in AT] + [f"to {m:+d}" if m else "to 0" for m in MARKS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for a in argv:
        label, path = a.split("=", 1)
        try:
            rows = read_curve(path)
        except (OSError, ValueError) as e:
            sys.exit(f"sticky_table.py: {e}")
        cells = [label] + [at_steps(rows, n) for n in AT] + [to_mark(rows, m) for m in MARKS]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
