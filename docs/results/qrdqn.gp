# QR-DQN (dashed, qrdqn_seed*.csv: run B's settings, --hidden 128 --lr 0.00025 --learn-start 10000
# --eps-steps 100000) against PPO's defaults (solid, ppo_sticky_defaults_seed*.csv) on
# ALE/Pong-v5, seeds 1 2 3. The three QR-DQN runs shared the 2 cores with each other and with
# other work, as PPO's did with theirs: the seconds are inflated, the agent steps are not.
# gnuplot docs/results/qrdqn.gp   (run from the repository root; writes docs/img/qrdqn.png)
set terminal pngcairo size 1100,460 font ',11' noenhanced
set output 'docs/img/qrdqn.png'
set datafile separator ','
set key bottom right
set grid
set yrange [-21:21]
set ylabel 'running mean of episode returns'
d = 'docs/results/'
set multiplot layout 1,2 title 'pongrl train on ALE/Pong-v5, seeds 1 2 3: --algo ppo, defaults (solid) and --algo qrdqn (dashed)'
set xlabel 'agent steps (millions)'
set xrange [0:10.2]
plot for [s=1:3] d.'ppo_sticky_defaults_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 lc s t 'ppo, seed '.s, \
     for [s=1:3] d.'qrdqn_seed'.s.'.csv' every ::1 u ($2>0?$3/1e6:1/0):6 w l lw 2 dt 2 lc s t 'qrdqn, seed '.s, \
     20 w l lc rgb '#000000' dt 3 t '+20'
set xlabel 'training seconds (runs sharing the 2 cores: inflated)'
set xrange [0:*]
plot for [s=1:3] d.'ppo_sticky_defaults_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 lc s t 'ppo, seed '.s, \
     for [s=1:3] d.'qrdqn_seed'.s.'.csv' every ::1 u ($2>0?$4:1/0):6 w l lw 2 dt 2 lc s t 'qrdqn, seed '.s, \
     20 w l lc rgb '#000000' dt 3 notitle
unset multiplot
