# Learning curves of pongrl (pg, Karpathy's recipe) on the exact game beside the same recipe on the real
# game (ALE 0.12.1 with the real ROM: shared/reference/ale-real/real-learning-curves.csv), per episode.
# gnuplot -e "out='docs/img/compare.png'; real='../shared/reference/ale-real/real-learning-curves.csv'" docs/results/compare.gp
if (!exists("out")) out = 'docs/img/compare.png'
if (!exists("real")) real = '../shared/reference/ale-real/real-learning-curves.csv'
set terminal pngcairo size 960,620 font ',11'
set output out
set datafile separator ','
set key outside below left Left reverse maxrows 4
set grid
set xlabel 'episodes'
set ylabel 'running mean reward (agent - CPU points)'
set yrange [-21:21]
set xrange [0:46000]
set title 'the seeds recipe on ALE/Pong-v5: pongrl (exact game) and real ALE with the ROM'
plot 'docs/results/ALE-Pong-v5_seed1.csv' every ::1 u 2:6 w l lw 2 lc rgb '#c0392b' t 'pongrl ALE/Pong-v5, seed 1', \
     'docs/results/ALE-Pong-v5_seed2.csv' every ::1 u 2:6 w l lw 1 lc rgb '#e67e22' t 'pongrl ALE/Pong-v5, seed 2', \
     'docs/results/ALE-Pong-v5_seed3.csv' every ::1 u 2:6 w l lw 1 lc rgb '#f1c40f' t 'pongrl ALE/Pong-v5, seed 3', \
     'docs/results/Pong-v0_seed1.csv' every ::1 u 2:6 w l lw 2 lc rgb '#2980b9' t 'pongrl Pong-v0, seed 1', \
     real every ::1 u ($1 == 1 ? $3 : 1/0):6 w l lw 3 dt 2 lc rgb '#000000' t 'real ALE/Pong-v5 (ROM), seed 1', \
     real every ::1 u ($1 == 2 ? $3 : 1/0):6 w l lw 3 dt 3 lc rgb '#555555' t 'real ALE/Pong-v5 (ROM), seed 2'
