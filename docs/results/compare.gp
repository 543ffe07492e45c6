# Learning curves of pongrl (seeds' recipe) against the published anchor points, per episode.
# gnuplot -e "out='docs/img/compare.png'" docs/results/compare.gp   (run from the repository root)
if (!exists("out")) out = 'docs/img/compare.png'
set terminal pngcairo size 960,620 font ',11'
set output out
set datafile separator ','
set key outside below left Left reverse maxrows 4
set grid
set xlabel 'episodes'
set ylabel 'running mean reward (agent - CPU points)'
set yrange [-21:21]
set xrange [0:40000]
set title 'pongrl with the seeds recipe vs published runs (per episode)'
plot 'docs/results/ALE-Pong-v5_seed1.csv' every ::1 u 2:6 w l lw 2 lc rgb '#c0392b' t 'pongrl ALE/Pong-v5, seed 1', \
     'docs/results/ALE-Pong-v5_seed2.csv' every ::1 u 2:6 w l lw 1 lc rgb '#e67e22' t 'pongrl ALE/Pong-v5, seed 2', \
     'docs/results/ALE-Pong-v5_seed3.csv' every ::1 u 2:6 w l lw 1 lc rgb '#f1c40f' t 'pongrl ALE/Pong-v5, seed 3', \
     'docs/results/Pong-v0_seed1.csv' every ::1 u 2:6 w l lw 2 lc rgb '#2980b9' t 'pongrl Pong-v0, seed 1', \
     '-' u 1:2 w p pt 7 ps 1.6 lc rgb '#000000' t 'Karpathy, Pong-v0: about 8,000 episodes, "slightly better than the AI"', \
     '-' u 1:2 w p pt 5 ps 1.4 lc rgb '#555555' t 'mrahtz (batch 1, Adam), Pong-v0: about 7,000, "winning half"', \
     '-' u 1:2 w p pt 9 ps 1.6 lc rgb '#27ae60' t 'Linas, unmodified pg-pong, Pong-v0: 27,065 episodes, -1.96'
8000,0.5
e
7000,0
e
27065,-1.96
e
