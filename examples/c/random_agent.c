// random_agent.c: a C program against the installed library, the way a C user starts: one
// whole game of ALE/Pong-v5 with random actions, then a vector of envs stepped together.
//
//   make install PREFIX=$HOME/.local
//   export PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig
//   cc random_agent.c $(pkg-config --cflags --libs pongrl) -o random_agent && ./random_agent 42
#include <pongrl/env.h>
#include <pongrl/vecenv.h>

#include <stdio.h>
#include <stdlib.h>

// The agent's own stream (the env keeps its own for sticky actions): xorshift64*.
static uint64_t next_u64(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}
static int random_action(uint64_t *s) { return (int)(next_u64(s) % ACTION_COUNT); }

int main(int argc, char **argv) {
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 42;
    uint64_t agent = seed * 2 + 1;

    // one game: until a side reaches 21 (terminated) or the preset's cap (truncated)
    Env env;
    int rc = env_init(&env, "ALE/Pong-v5", seed);
    if (rc != ENV_OK) {
        fprintf(stderr, "random_agent: %s\n", env_strerror(rc));
        return 1;
    }
    EnvStep s = { 0 };
    int total = 0;
    while (!s.terminated && !s.truncated) {
        env_step(&env, random_action(&agent), &s);
        total += s.reward;
    }
    EnvState st;
    env_state(&env, &st);
    printf("game: agent %lld, cpu %lld after %lld steps (%lld frames), return %d\n", (long long)st.score_agent,
        (long long)st.score_cpu, (long long)st.steps, (long long)st.frames, total);

    // a vector of 4 envs on 2 threads, 80x80 observations: 1000 steps of each
    enum { N = 4, STEPS = 1000 };
    VecEnv *v = vecenv_new(env_preset_find("ALE/Pong-v5"), N, 2, OBS_OBS80);
    if (!v) {
        fprintf(stderr, "random_agent: cannot make the vector env\n");
        return 1;
    }
    uint8_t *obs = (uint8_t *)malloc(N * vecenv_obs_size(v)); // obs: (N, 80, 80)
    double rewards[N];
    bool terminated[N], truncated[N];
    VecOut out = { .obs = obs, .rewards = rewards, .terminated = terminated, .truncated = truncated };
    int32_t actions[N];
    double sum = 0;
    int points = 0;
    vecenv_reset(v, seed, &out);
    for (int t = 0; t < STEPS; t++) {
        for (int i = 0; i < N; i++) actions[i] = random_action(&agent);
        vecenv_step(v, actions, &out, NULL);
        for (int i = 0; i < N; i++) {
            sum += rewards[i];
            points += rewards[i] != 0;
        }
    }
    printf("vector: %d envs x %d steps, %d points played, reward sum %+.0f\n", N, STEPS, points, sum);
    free(obs);
    vecenv_free(v);
    return 0;
}
