# PPO in C on ALE/Pong-v5, seeds 1 2 3, 10 M agent steps: today's defaults (solid,
# ppo_sticky_defaults_seed*.csv) against the defaults with one change (dashed,
# ppo_sticky_CHANGE_seed*.csv), each sharing the 2 cores with many other runs (the seconds are
# inflated, and unequally: the change's runs started 23 minutes later, under a heavier load; the
# agent steps are not).
# gnuplot docs/results/ppo_schedules.gp   (run from the repository root; writes docs/img/ppo_schedules.png)
if (!exists("out")) out = 'docs/img/ppo_schedules.png'
if (!exists("chg")) chg = 'entanneal'
if (!exists("chgname")) chgname = '--ent-anneal-steps 4000000'
set terminal pngcairo size 1100,460 font ',11' noenhanced
set output out
set datafile separator ','
set key bottom right
set grid
set yrange [-21:21]
set ylabel 'running mean of episode returns'
d = 'docs/results/ppo_sticky_'
set multiplot layout 1,2 title 'pongrl train --algo ppo on ALE/Pong-v5, seeds 1 2 3: the defaults (solid) and '.chgname.' (dashed)'
set xlabel 'agent steps (millions)'
set xrange [0:10.2]
plot for [s=1:3] d.'defaults_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 lc s t 'defaults, seed '.s, \
     for [s=1:3] d.chg.'_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 dt 2 lc s t chgname.', seed '.s, \
     20 w l lc rgb '#000000' dt 3 t '+20'
set xlabel 'training seconds (runs sharing the 2 cores: inflated)'
set xrange [0:*]
plot for [s=1:3] d.'defaults_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 lc s t 'defaults, seed '.s, \
     for [s=1:3] d.chg.'_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 dt 2 lc s t chgname.', seed '.s, \
     20 w l lc rgb '#000000' dt 3 notitle
unset multiplot
