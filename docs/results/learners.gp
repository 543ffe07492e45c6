# The learners side by side on ALE/Pong-v5: the running mean of episode returns
# against agent steps and against each learner's own training clock. bench/learners.py draws its
# fresh run with it (make bench-learners); with no variables set it draws the published run in
# docs/results/learners/ (run from the repository root):
#   gnuplot docs/results/learners.gp
# Variables: out (the PNG); pg, ppo, ex (space-separated CSV lists: pongrl metrics.csv for pg and
# ppo, examples/ppo_pong.py --csv for ex); exy (ex's y column: running_mean, or mean_return_100
# for a CSV written before the example logged the running mean); target; note (the caption).
if (!exists("out")) out = 'docs/img/learners.png'
if (!exists("target")) target = 0
if (!exists("pg")) {    # the published run (bench/learners.py --publish): docs/results/learners/
    pg = 'docs/results/learners/pg_seed1.csv'
    ppo = 'docs/results/learners/ppo_seed1.csv'
    ex = 'docs/results/learners/example_seed1.csv'
    note = "one run, 2026-11-24 19:14 UTC, commit cf2b3f0, seed 1: one learner after the other, each pinned to the same 2 of 2 CPUs\npg: 2 worker threads; ppo: 2 worker threads; example: 2 env threads, 2 torch threads; 1-minute load average 0.8 to 2.7"
}
if (!exists("exy")) exy = 'running_mean'
if (!exists("note")) note = ''
# the runs stop at the target: room above it for the key, not the whole score range
if (!exists("ymax")) ymax = target + 6 < 21 ? target + 6 : 21

set terminal pngcairo size 1280,560 font ',11' noenhanced
set output out
set datafile separator ','
set datafile columnheaders
set datafile missing 'nan'
set grid
set yrange [-21:ymax]
if (ymax + 21 < 20) { set ytics 2 } else { set ytics 5 }
set ylabel 'running mean of episode returns (agent - CPU points)'
tgt = target == 0 ? '0' : sprintf('%+g', target)
ex_title = exy eq 'running_mean' ? 'examples/ppo_pong.py (PyTorch)' : 'ppo_pong.py (PyTorch), last-100 mean'
# the running mean reads 0 until an episode has ended (metrics.csv): not drawn
ok(y) = column("episodes") > 0 ? y : NaN
set multiplot layout 1,2 title sprintf("Three learners on ALE/Pong-v5 to a running mean of %s (0.99 x running + 0.01 x episode return)\n%s", tgt, note)

set title 'against agent steps'
set key top left Left reverse samplen 2
set logscale x
set xlabel 'agent steps (log scale)'
set format x '%.0s%c'
set xrange [1e4:*]
set autoscale xfixmax
plot for [i=1:words(pg)] word(pg, i) u (column("agent_steps")):(ok(column("running_mean"))) w l lw 2 lc rgb '#c0392b' t (i == 1 ? "seeds' recipe (C, --algo pg)" : ''), \
     for [i=1:words(ppo)] word(ppo, i) u (column("agent_steps")):(ok(column("running_mean"))) w l lw 2 lc rgb '#2471a3' t (i == 1 ? 'PPO in C (--algo ppo)' : ''), \
     for [i=1:words(ex)] word(ex, i) u (column("agent_steps")):(ok(column(exy))) w l lw 2 lc rgb '#e67e22' t (i == 1 ? ex_title : ''), \
     target w l lc rgb '#000000' dt 2 t 'target ' . tgt

set title "against training time (each learner's own clock)"
set key off       # the same lines as on the left
unset logscale x
set format x '%g'
set xrange [0:*]
set autoscale xfixmax
set xlabel 'training time (s)'
plot for [i=1:words(pg)] word(pg, i) u (column("wall_s")):(ok(column("running_mean"))) w l lw 2 lc rgb '#c0392b' t (i == 1 ? "seeds' recipe (C, --algo pg)" : ''), \
     for [i=1:words(ppo)] word(ppo, i) u (column("wall_s")):(ok(column("running_mean"))) w l lw 2 lc rgb '#2471a3' t (i == 1 ? 'PPO in C (--algo ppo)' : ''), \
     for [i=1:words(ex)] word(ex, i) u (column("seconds")):(ok(column(exy))) w l lw 2 lc rgb '#e67e22' t (i == 1 ? ex_title : ''), \
     target w l lc rgb '#000000' dt 2 notitle
unset multiplot
