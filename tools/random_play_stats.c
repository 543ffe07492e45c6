// random_play_stats.c: how a uniformly random agent fares against the CPU, and why.
// Plays N games of PongNoFrameskip-v4 with a random action held for 4 frames (ALE/Pong-v5's
// frameskip without its sticky actions, so every frame can be watched), then prints the mean
// score and, for each velocity the agent's returns leave with, how often the CPU missed.
//   cc -O2 -std=c11 -D_GNU_SOURCE -Isrc tools/random_play_stats.c build/libpongrl.a -lm -o /tmp/rps
//   /tmp/rps [games] [frames per action]   (4: ALE/Pong-v5's frameskip; 6: the DQN paper's
//                                          random agent, which acted at 10 Hz)
#include <stdio.h>
#include <stdlib.h>

#include "env/env.h"

int main(int argc, char **argv) {
    int games = argc > 1 ? atoi(argv[1]) : 1000;
    int hold = argc > 2 ? atoi(argv[2]) : 4;
    if (games < 1 || hold < 1) { fprintf(stderr, "usage: rps [games >= 1] [frames per action >= 1]\n"); return 2; }
    Env env;
    env_init(&env, "PongNoFrameskip-v4", 0);
    Rng rng;
    rng_seed(&rng, 5);
    long returns[4][5] = {{0}}, missed[4][5] = {{0}}, score = 0;
    for (int g = 0; g < games; g++) {
        env_reset(&env, (uint64_t)g + 1);
        int prev_vx = 0, vx = 0, vy = 0, action = 0;
        bool in_flight = false;                    // an agent return the CPU has not met yet
        for (long f = 0;; f++) {
            if (f % hold == 0) action = (int)rng_below(&rng, ACTION_COUNT);
            EnvStep s;
            if (env_step(&env, action, &s)) break;
            const Pong *p = &env.game;
            if (p->ball_visible && p->ball_vx < 0 && prev_vx > 0) {
                vx = -p->ball_vx; vy = p->ball_vy; returns[vx][vy + 2]++; in_flight = true;
            }
            if (p->ball_visible && p->ball_vx > 0 && prev_vx < 0) in_flight = false;
            if (s.reward > 0 && in_flight) { missed[vx][vy + 2]++; in_flight = false; }
            score += s.reward;
            prev_vx = p->ball_visible ? p->ball_vx : 0;
            if (s.terminated || s.truncated) break;
        }
    }
    long total = 0;
    for (int x = 1; x < 4; x++) for (int y = 0; y < 5; y++) total += returns[x][y];
    printf("%d games, a random action every %d frames: mean score %.2f, %.2f agent returns per game\n",
           games, hold, (double)score / games, (double)total / games);
    printf("return velocity   share of returns   CPU missed\n");
    for (int x = 1; x < 4; x++)
        for (int y = 0; y < 5; y++)
            if (returns[x][y])
                printf("vx %d, vy %+d      %5.1f%%             %5.1f%%\n", x, y - 2,
                       100.0 * returns[x][y] / total, 100.0 * missed[x][y] / returns[x][y]);
    return 0;
}
