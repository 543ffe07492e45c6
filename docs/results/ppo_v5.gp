# PPO in C on ALE/Pong-v5, seeds 1 2 3: the defaults of now (H = 128 with a separate value network of
# 64 units, 2 epochs x 16 minibatches, lr 1e-3 annealed over 14 M agent steps;
# ppo_v6_ALE-Pong-v5_seed*.csv, each alone on the 2 cores), against those of dd42539 (H = 64 shared
# by both heads, the same update: ppo_v4_ALE-Pong-v5_seed*.csv, the same way).
# gnuplot docs/results/ppo_v5.gp   (run from the repository root; writes docs/img/ppo_v5.png)
if (!exists("out")) out = 'docs/img/ppo_v5.png'
set terminal pngcairo size 1100,460 font ',11' noenhanced
set output out
set datafile separator ','
set key bottom right
set grid
set yrange [-21:21]
set ylabel 'running mean of episode returns'
d = 'docs/results/'
set multiplot layout 1,2 title 'pongrl train --algo ppo on ALE/Pong-v5, seeds 1 2 3: the defaults now (solid) and with one shared network of 64 (dashed)'
set xlabel 'agent steps (millions)'
set xrange [0:*]
plot for [s=1:3] d.'ppo_v6_ALE-Pong-v5_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 lc s t 'now, seed '.s, \
     for [s=1:3] d.'ppo_v4_ALE-Pong-v5_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 dt 2 lc s t 'H = 64 shared, seed '.s, \
     20 w l lc rgb '#000000' dt 3 t '+20'
set xlabel 'training time on 2 cores (s)'
set arrow 1 from 180,-21 to 180,21 nohead dt 3 lc rgb '#000000'
set label 1 '3 minutes' at 183,2
plot for [s=1:3] d.'ppo_v6_ALE-Pong-v5_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 lc s t 'now, seed '.s, \
     for [s=1:3] d.'ppo_v4_ALE-Pong-v5_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 dt 2 lc s t 'H = 64 shared, seed '.s, \
     20 w l lc rgb '#000000' dt 3 notitle
unset multiplot
