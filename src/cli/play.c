// play.c: one agent step at a time through rl/agent.h, keeping nothing for a gradient (play.h).
#include "play.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../algo/algo.h"
#include "../train/config.h"
#include "../train/model.h"
#include "../util/streams.h"
#include "args.h"
#include "../util/say.h"

int player_init_policy(Player *pl, AgentPolicy policy, const char *env_id, int mode, int difficulty) {
    memset(pl, 0, sizeof(*pl));
    if (env_init_flavour(&pl->env, env_id, mode, difficulty, 0) != ENV_OK) return -1;
    pl->policy = policy;
    pl->h = malloc(sizeof(double) * (size_t)(policy.h_len > 0 ? policy.h_len : 1));
    return pl->h ? 0 : -1;
}

int player_init_model(
    Player *pl, TrainState *s, const char *env_id, int mode, int difficulty, bool greedy, char *err, size_t errlen) {
    const Learner *l = algo_find(s->cfg.algo);
    if (!l || !l->agent) {
        snprintf(err, errlen, "a model of --algo %s, which this build cannot play", s->cfg.algo);
        return -1;
    }
    // a network of its own is in its learner's arrays: the learner takes them
    if (l->weights && !s->learner && train_state_attach(s, l, err, errlen)) return -1;
    AgentPolicy ap = l->agent(s, greedy);
    if (player_init_policy(pl, ap, env_id, mode, difficulty)) {
        snprintf(err, errlen, "out of memory, or %s with mode %d and difficulty %d unknown", env_id, mode, difficulty);
        return -1;
    }
    return 0;
}

void player_free(Player *pl) {
    free(pl->h);
    pl->h = NULL;
}

Player *player_create(TrainState *st, const PlayArgs *a) {
    char err[1024] = "out of memory";
    Player *pl = malloc(sizeof(*pl));
    if (pl && !player_init_model(pl, st, a->env_id, a->mode, a->difficulty, a->greedy, err, sizeof(err))) return pl;
    free(pl);
    say_error("%s", err);
    return NULL;
}

void player_destroy(Player *pl) {
    if (!pl) return;
    player_free(pl);
    free(pl);
}

void player_reset(Player *pl, uint64_t env_seed, uint64_t act_seed) {
    agent_reset(&pl->agent, &pl->env, env_seed, act_seed);
}

int player_step(Player *pl, EnvStep *out) {
    AgentInput in = { pl->idx, pl->sign, 0 };
    int action = agent_step(&pl->agent, &pl->policy, &in, pl->h, &pl->last_p, out);
    memset(pl->x, 0, sizeof(pl->x));
    for (int k = 0; k < in.nnz; k++) pl->x[pl->idx[k]] = pl->sign[k];
    return action;
}

uint64_t play_env_seed(uint64_t seed, int64_t e) { return stream_eval_env(seed, e); }
uint64_t play_act_seed(uint64_t seed, int64_t e) { return stream_eval_act(seed, e); }

// ----------------------------------------------------------------------------
// flags

typedef struct {
    unsigned opt;
    const char *name;
    bool value;
    const char *usage, *help;
} PlayFlag;

// clang-format off
static const PlayFlag FLAGS[] = {
    { PLAY_OPT_OUT,        "out",        true,  "--out FILE",    "the .gif or .mp4 to write (required)" },
    { PLAY_OPT_EPISODES,   "episodes",   true,  "--episodes N",  "games to play (default 20)" },
    { PLAY_OPT_ENV,        "env",        true,  "--env ID",      "environment, e.g. ALE/Pong-v5 or pongrl/Pong-v5 (default: the model's)" },
    { PLAY_OPT_MODE,       "mode",       true,  "--mode M",      "ALE's game mode, 0 or 1 (default: the model's)" },
    { PLAY_OPT_DIFFICULTY, "difficulty", true,  "--difficulty D", "ALE's difficulty, 0 to 3 (default: the model's)" },
    { PLAY_OPT_SEED,       "seed",       true,  "--seed S",      "game seed: same seed, same games; game g is eval's episode g (default 1)" },
    { PLAY_OPT_GREEDY,     "greedy",     false, "--greedy",      "the likeliest action (pg: UP iff p > 0.5), not sampled as in training" },
    { PLAY_OPT_WORKERS,    "workers",    true,  "--workers N",   "threads (default: one per core)" },
    { PLAY_OPT_GAMES,      "games",      true,  "--games N",     "stop after N games (default: until closed)" },
    { PLAY_OPT_MAX_STEPS,  "max-steps",  true,  "--max-steps N", "end a game after N agent steps (default: none, the whole game)" },
    { PLAY_OPT_WITH_INPUT, "with-input", false, "--with-input",  "the 80x80 difference frame the network sees, beside the screen" },
    { PLAY_OPT_SCALE,      "scale",      true,  "--scale K",     "window size: K times 160x210 (default 3)" },
    { PLAY_OPT_SPEED,      "speed",      true,  "--speed X",     "X times real time (default 1)" },
    { PLAY_OPT_VERBOSE,    "verbose",    false, "--verbose",     "one line per game" },
};
// clang-format on
#define N_FLAGS  (int)(sizeof(FLAGS) / sizeof(FLAGS[0]))
#define OPT_HELP 'h'

static void print_help(const char *cmd, unsigned opts, const char *usage, const char *about) {
    printf("usage: pongrl %s %s\n\n%s", cmd, usage, about);
    printf("MODEL is a checkpoint file, a run directory (its newest checkpoint), or a folder of a\n"
           "learner's network files as `pongrl export` writes them:\n");
    algo_print_npy_files();
    printf("\n");
    for (int i = 0; i < N_FLAGS; i++)
        if (opts & FLAGS[i].opt) printf("  %-16s %s\n", FLAGS[i].usage, FLAGS[i].help);
    printf("  %-16s %s\n", "-h, --help", "this text");
}

static void set_flag(PlayArgs *a, unsigned opt, const char *flag, const char *v) {
    switch (opt) {
        case PLAY_OPT_OUT: a->out = v; break;
        case PLAY_OPT_EPISODES: a->episodes = (int)arg_int(flag, v, 1, 1000000); break;
        case PLAY_OPT_ENV: a->env_id = arg_env(flag, v); break;
        case PLAY_OPT_MODE: a->mode = (int)arg_int(flag, v, 0, env_num_modes() - 1); break;
        case PLAY_OPT_DIFFICULTY: a->difficulty = (int)arg_int(flag, v, 0, env_num_difficulties() - 1); break;
        case PLAY_OPT_SEED: a->seed = arg_u64(flag, v); break;
        case PLAY_OPT_GREEDY: a->greedy = true; break;
        case PLAY_OPT_WORKERS: a->workers = (int)arg_int(flag, v, 1, 1024); break;
        case PLAY_OPT_GAMES: a->games = arg_int(flag, v, 1, 1000000000); break;
        case PLAY_OPT_MAX_STEPS: a->max_steps = arg_int(flag, v, 1, 10000000); break;
        case PLAY_OPT_WITH_INPUT: a->with_input = true; break;
        case PLAY_OPT_SCALE: a->scale = (int)arg_int(flag, v, 1, 16); break;
        case PLAY_OPT_SPEED: a->speed = arg_double(flag, v, 0.01, 1000); break;
        case PLAY_OPT_VERBOSE: a->verbose = true; break;
    }
}

int play_load_model(PlayArgs *a, TrainState *st, char *desc, size_t desclen) {
    char err[2048];
    char raw[2048];
    if (model_load(a->model, ALGO_LEARNERS, st, raw, sizeof(raw), err, sizeof(err))) {
        say_error("%s", err);
        return 1;
    }
    say_escape(raw, desc, desclen); // it names the path it was given: printed to a terminal
    if (!a->env_id) a->env_id = st->cfg.env_id;
    if (a->mode < 0) a->mode = st->cfg.mode;
    if (a->difficulty < 0) a->difficulty = st->cfg.difficulty;
    return 0;
}

void play_args_parse(int argc, char **argv, unsigned opts, const char *usage, const char *about, PlayArgs *a) {
    *a = (PlayArgs){ .mode = -1,
        .difficulty = -1,
        .seed = 1,
        .episodes = 20,
        .workers = train_cores_available(),
        .scale = 3,
        .speed = 1.0 };
    struct option lo[N_FLAGS + 2];
    int n = 0;
    for (int i = 0; i < N_FLAGS; i++)
        if (opts & FLAGS[i].opt) lo[n++] = (struct option){ FLAGS[i].name, FLAGS[i].value, 0, 256 + i };
    lo[n++] = (struct option){ "help", 0, 0, OPT_HELP };
    lo[n] = (struct option){ 0, 0, 0, 0 };
    const char *cmd = argv[0];
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        if (o == OPT_HELP) {
            print_help(cmd, opts, usage, about);
            exit(0);
        }
        if (o == ':') die_usage("%s needs a value", argv[optind - 1]);
        if (o < 256 || o >= 256 + N_FLAGS) die_usage("%s: unknown option '%s'", cmd, argv[optind - 1]);
        char flag[32];
        snprintf(flag, sizeof(flag), "--%s", FLAGS[o - 256].name);
        set_flag(a, FLAGS[o - 256].opt, flag, optarg);
    }
    if (optind != argc - 1) die_usage("usage: pongrl %s %s", cmd, usage);
    a->model = argv[optind];
}
