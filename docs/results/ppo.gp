# PPO (examples/ppo_pong.py) on pongrl's vector env: mean return of the last 100 episodes.
# gnuplot -e "out='docs/img/ppo_curve.png'" docs/results/ppo.gp   (run from the repository root)
if (!exists("out")) out = 'docs/img/ppo_curve.png'
set terminal pngcairo size 1100,460 font ',11' noenhanced
set output out
set datafile separator ','
set datafile missing 'nan'
set key bottom right
set grid
set yrange [-21:21]
set ylabel 'mean return, last 100 episodes'
set multiplot layout 1,2 title 'PPO (examples/ppo_pong.py) on ALE/Pong-v5, obs80, 2-core machine: the exact game (black) and the earlier game'
set xlabel 'agent steps (millions)'
plot 'docs/results/ppo_ALE-Pong-v5_seed1_long.csv' every ::1 u ($4>=100?$2/1e6:1/0):5 w l lw 2 lc rgb '#c0392b' t 'seed 1 (run to 3.1 M steps)', \
     'docs/results/ppo_ALE-Pong-v5_seed2.csv' every ::1 u ($4>=100?$2/1e6:1/0):5 w l lw 1.5 lc rgb '#e67e22' t 'seed 2 (to 0)', \
     'docs/results/ppo_ALE-Pong-v5_seed3.csv' every ::1 u ($4>=100?$2/1e6:1/0):5 w l lw 1.5 lc rgb '#2980b9' t 'seed 3 (to 0)', \
     'docs/results/ppo_exact_ALE-Pong-v5_seed1.csv' every ::1 u ($4>=100?$2/1e6:1/0):5 w l lw 2.5 lc rgb '#000000' t 'exact game, seed 1 (to 0)', \
     0 w l lc rgb '#000000' dt 2 t 'beats the built-in AI'
set xlabel 'training time (s)'
plot 'docs/results/ppo_ALE-Pong-v5_seed1_long.csv' every ::1 u ($4>=100?$3:1/0):5 w l lw 2 lc rgb '#c0392b' t 'seed 1', \
     'docs/results/ppo_ALE-Pong-v5_seed2.csv' every ::1 u ($4>=100?$3:1/0):5 w l lw 1.5 lc rgb '#e67e22' t 'seed 2', \
     'docs/results/ppo_ALE-Pong-v5_seed3.csv' every ::1 u ($4>=100?$3:1/0):5 w l lw 1.5 lc rgb '#2980b9' t 'seed 3', \
     'docs/results/ppo_exact_ALE-Pong-v5_seed1.csv' every ::1 u ($4>=100?$3:1/0):5 w l lw 2.5 lc rgb '#000000' t 'exact game, seed 1', \
     0 w l lc rgb '#000000' dt 2 notitle
unset multiplot
