// random_play_stats.c: a uniformly random agent on every preset and every flavour (ALE's
// modes and difficulties), against the real game.
//
// Plays N whole episodes of each row with a uniformly random action every agent step
// (the env's own frameskip and sticky actions, as the presets set them) and prints the
// mean score, its standard deviation and standard error, and the mean episode length,
// beside the figures measured with ALE 0.12.1 and the real ROM (presets:
// shared/reference/ale-real/README.md; flavours: ALE/Pong-v5 with mode= and difficulty=,
// 300 games each). The last column says whether the two means agree within two standard errors
// of their difference.
//   make build/random_play_stats   (make bench runs it with the real table's episode counts)
//   build/random_play_stats [episodes]   (default: the real table's count for each row)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "env/env.h"

// The real game's figures for a row: games played, mean score, its standard error, mean
// length in agent steps.
typedef struct {
    int episodes;
    double mean, se, len;
} Real;

// shared/reference/ale-real/README.md, "Random agents, whole episodes"
// clang-format off
static const struct { const char *id; Real real; } PRESETS[] = {
    {"ALE/Pong-v5", {1000, -20.319, 0.027, 926.0}},
    {"Pong-v4", {500, -20.286, 0.037, 1235.6}},
    {"Pong-v0", {500, -20.300, 0.039, 1231.6}},
    {"PongNoFrameskip-v4", {200, -20.385, 0.059, 3575.6}},
};
// clang-format on

// the flavours as the real table has them: ALE/Pong-v5 with mode= and difficulty=, 300 games each: [mode][difficulty]
#define FLAVOUR_ID    "ALE/Pong-v5"
#define FLAVOUR_GAMES 300
// clang-format off
static const double FLAVOURS[PONG_MODES][PONG_DIFFICULTIES][3] = {   // mean, se, length
    {{-20.363, 0.047, 922.7}, {-19.853, 0.062, 948.4}, {-20.500, 0.041, 878.6}, {-20.240, 0.052, 889.1}},
    {{-20.233, 0.053, 968.5}, {-20.157, 0.057, 973.5}, {-20.327, 0.048, 920.5}, {-20.303, 0.053, 917.8}},
};
// clang-format on

// Plays n games of the flavour of the preset and prints its line beside the real figures;
// whether the two means agree within two standard errors of their difference.
static bool play_row(const char *name, const char *id, int mode, int difficulty, int n, Real real) {
    Env env;
    env_init_flavour(&env, id, mode, difficulty, 0);
    double sum = 0, sum2 = 0, len_sum = 0;
    for (int e = 0; e < n; e++) {
        env_reset(&env, rng_key(77, (uint64_t)e, 0, 0));
        Rng actions;
        rng_seed(&actions, rng_key(77, (uint64_t)e, 1, 0));
        int score = 0;
        long steps = 0;
        EnvStep s = { 0 };
        while (!s.terminated && !s.truncated) {
            env_step(&env, (int)rng_below(&actions, ACTION_COUNT), &s);
            score += s.reward;
            steps++;
        }
        sum += score;
        sum2 += (double)score * score;
        len_sum += (double)steps;
    }
    double mean = sum / n, sd = sqrt((sum2 - n * mean * mean) / (n - 1)), se = sd / sqrt(n);
    bool agree = fabs(mean - real.mean) <= 2.0 * sqrt(se * se + real.se * real.se);
    printf("%-25s %9d %9.3f %7.3f %7.3f %10.1f | %9.3f %7.3f %10.1f | %s\n", name, n, mean, sd, se, len_sum / n,
        real.mean, real.se, real.len, agree ? "yes" : "NO");
    return agree;
}

int main(int argc, char **argv) {
    int episodes = 0;
    if (argc > 1) {
        char *end;
        long n = strtol(argv[1], &end, 10);
        if (*end != '\0' || n < 2 || n > 1000000) {
            fprintf(stderr, "usage: random_play_stats [episodes, 2..1000000]\n");
            return 2;
        }
        episodes = (int)n;
    }
    printf("%-25s %9s %9s %7s %7s %10s | %9s %7s %10s | %s\n", "preset", "episodes", "mean", "sd", "se", "length",
        "real mean", "real se", "real len", "agree (2 se)");
    int disagree = 0;
    for (size_t k = 0; k < sizeof PRESETS / sizeof PRESETS[0]; k++) {
        Real real = PRESETS[k].real;
        disagree += !play_row(PRESETS[k].id, PRESETS[k].id, 0, 0, episodes ? episodes : real.episodes, real);
    }
    for (int m = 0; m < PONG_MODES; m++)
        for (int d = 0; d < PONG_DIFFICULTIES; d++) {
            const double *f = FLAVOURS[m][d];
            Real real = { FLAVOUR_GAMES, f[0], f[1], f[2] };
            char name[40];
            snprintf(name, sizeof name, "%s m%dd%d", FLAVOUR_ID, m, d);
            disagree += !play_row(name, FLAVOUR_ID, m, d, episodes ? episodes : real.episodes, real);
        }
    return disagree ? 1 : 0;
}
