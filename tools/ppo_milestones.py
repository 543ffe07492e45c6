#!/usr/bin/env python3
"""ppo_milestones.py: where a run's running mean first reached -10, 0, +10 and +20.

    tools/ppo_milestones.py RUN_DIR/metrics.csv [...]

For each metrics.csv (any learner's): the iteration, agent steps, episodes and training
seconds (wall_s) of the first row whose running_mean is at or above each mark, and the mean
agent steps per second over the whole run. Marks not reached print "-".
"""
import csv
import sys

MARKS = (-10, 0, 10, 20)


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        rows = list(csv.DictReader(open(path)))
        if not rows:
            print(f"{path}: no rows")
            continue
        last = rows[-1]
        sps = float(last["agent_steps"]) / max(float(last["wall_s"]), 1e-9)
        print(f"{path}: {last['iteration']} iterations, {int(last['agent_steps']):,} agent steps, "
              f"{int(last['episodes']):,} episodes, {float(last['wall_s']):.0f} s, {sps:,.0f} steps/s, "
              f"running mean {float(last['running_mean']):+.2f}")
        for m in MARKS:
            hit = next((r for r in rows if float(r["running_mean"]) >= m and int(r["episodes"]) > 0), None)
            if hit:
                print(f"  {m:+3d}: iteration {hit['iteration']}, {int(hit['agent_steps']):,} steps, "
                      f"{int(hit['episodes']):,} episodes, {float(hit['wall_s']):.0f} s")
            else:
                print(f"  {m:+3d}: -")


if __name__ == "__main__":
    main(sys.argv[1:])
