#!/usr/bin/env bash
# Prints when a run's running mean first reached -15, -10, -5 and 0: iteration, episodes,
# agent steps and training wall time, read from RUN_DIR/metrics.csv.
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1/metrics.csv" ] || { echo "usage: tools/milestones.sh RUN_DIR (with a metrics.csv)" >&2; exit 2; }
awk -F, 'NR == 1 { next }
{ for (i = 1; i <= 4; i++) if (!done[i] && $6 != "" && $6 >= m[i]) { done[i] = 1; row[i] = $0 } last = $0 }
BEGIN { m[1] = -15; m[2] = -10; m[3] = -5; m[4] = 0
        printf "%-9s %10s %9s %13s %10s\n", "running", "iteration", "episodes", "agent steps", "wall" }
END { for (i = 1; i <= 4; i++) {
        if (!done[i]) { printf "%-9s %10s\n", m[i], "not reached"; continue }
        split(row[i], f, ","); printf "%-9s %10d %9d %13d %9.0fs\n", m[i], f[1], f[2], f[3], f[4] }
      split(last, f, ","); printf "last: iteration %d, %d episodes, running mean %s after %.0fs\n", f[1], f[2],
                                  f[6] == "" ? "-" : sprintf("%.2f", f[6]), f[4] }' "$1/metrics.csv"
