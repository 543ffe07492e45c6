# PPO in C (--algo ppo, the defaults of now, H = 128 with a separate value network) with and without sticky actions: running mean of episode returns.
# gnuplot docs/results/ppo_sticky.gp   (run from the repository root; writes docs/img/ppo_sticky.png)
# ALE/Pong-v5: ppo_v6_ALE-Pong-v5_seed*.csv; PongDeterministic-v4 (the same game and frameskip, no
# sticky actions): ppo_v6_PongDeterministic-v4_seed*.csv; each run alone on the 2 cores.
if (!exists("out")) out = 'docs/img/ppo_sticky.png'
set terminal pngcairo size 1100,460 font ',11' noenhanced
set output out
set datafile separator ','
set key bottom right
set grid
set yrange [-21:21]
set ylabel 'running mean of episode returns'
d = 'docs/results/ppo_v6_'
set multiplot layout 1,2 title 'pongrl train --algo ppo: ALE/Pong-v5 (sticky actions, solid) and PongDeterministic-v4 (none, dashed), seeds 1 2 3'
set xlabel 'agent steps (millions)'
set xrange [0:18.5]
plot for [s=1:3] d.'ALE-Pong-v5_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 lc s t 'v5, seed '.s, \
     for [s=1:3] d.'PongDeterministic-v4_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 dt 2 lc s t 'deterministic, seed '.s, \
     20 w l lc rgb '#000000' dt 3 t '+20'
set xlabel 'training time on 2 cores (s)'
set xrange [0:225]
plot for [s=1:3] d.'ALE-Pong-v5_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 lc s t 'v5, seed '.s, \
     for [s=1:3] d.'PongDeterministic-v4_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 dt 2 lc s t 'deterministic, seed '.s, \
     20 w l lc rgb '#000000' dt 3 notitle
unset multiplot
