// random_play_preset.c: a uniformly random agent on any preset, as the published random scores
// were measured (a new action every agent step): mean score and mean episode length.
//   cc -O2 -std=c11 -D_GNU_SOURCE -Isrc tools/random_play_preset.c build/libpongrl.a -lm -o /tmp/rpp
//   /tmp/rpp [games] [preset]        (default: 1000 games of ALE/Pong-v5)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "env/env.h"

int main(int argc, char **argv) {
    int games = argc > 1 ? atoi(argv[1]) : 1000;
    const char *id = argc > 2 ? argv[2] : "ALE/Pong-v5";
    Env env;
    if (games < 1 || env_init(&env, id, 0) != ENV_OK) {
        fprintf(stderr, "usage: rpp [games >= 1] [preset id, e.g. ALE/Pong-v5]\n");
        return 2;
    }
    Rng rng;
    rng_seed(&rng, 11);
    double sum = 0, sq = 0, steps = 0;
    for (int g = 0; g < games; g++) {
        env_reset(&env, (uint64_t)g + 1000);
        long n = 0, score = 0;
        for (;;) {
            EnvStep s;
            if (env_step(&env, (int)rng_below(&rng, ACTION_COUNT), &s) != ENV_OK) break;
            n++;
            score += s.reward;
            if (s.terminated || s.truncated) break;
        }
        sum += score; sq += (double)score * score; steps += n;
    }
    double mean = sum / games;
    printf("%s, %d games: mean score %.2f (sd %.2f), mean length %.0f agent steps\n", id, games, mean,
           sqrt(sq / games - mean * mean), steps / games);
    return 0;
}
