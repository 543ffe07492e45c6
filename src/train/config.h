// config.h: what a training run is asked to do, as ONE table of settings (TRAIN_SETTINGS). Each
// row makes a TrainConfig field, and from the rows alone come: the flags of `pongrl train` and
// their --help, config.txt, the checkpoint's settings, the comparison of the ranks' settings
// under MPI, what the other ranks of a resumed run take from rank 0, and what --resume may
// change. Adding a setting is adding a row.
#ifndef PONGRL_TRAIN_CONFIG_H
#define PONGRL_TRAIN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RUN_DIR_MAX      1024
#define TRAIN_H_MAX      100000  // the largest H a run may have (checkpoints refuse more)
#define TRAIN_BATCH_MAX  1000000 // the largest batch a run may have
#define TRAIN_REWARD_MAX 21      // an episode's reward lies in [-21, 21] (21 points end a game)
#define TRAIN_STR_MAX    64      // a text setting's bytes, its NUL included

// What a setting is for:
//   RUN   defines the run (same seed, same bits): every rank must have rank 0's, the other ranks
//         of a resumed run take rank 0's, --resume refuses it (the run keeps its own).
//   GOAL  when the run stops and how it is kept: saved, may be given again with --resume.
//   HOST  this process's own (threads, output): not saved, never compared.
enum { SETTING_RUN = 1, SETTING_GOAL = 2, SETTING_HOST = 4 };
// Its kind, and the C type of its field:
//   STR char[TRAIN_STR_MAX] | INT int | I64 int64_t | U64 uint64_t | F64 double |
//   OPT double, unset until given (and bool has_<name>) | BOOL bool, a flag without a value
typedef enum { SETTING_STR, SETTING_INT, SETTING_I64, SETTING_U64, SETTING_F64, SETTING_OPT, SETTING_BOOL } SettingKind;

// X(KIND, field, "flag", "default", "learners' defaults", "before", min, max, ROLE, "learner", "help")
//   default: what a new run gets, as config.txt writes it; "learners' defaults": "" or the
//   learners that start otherwise, as "NAME=VALUE NAME=VALUE" (the default of `--algo NAME`).
//   before: what runs before the setting existed had, "" for the default: a checkpoint, a
//   model.txt or a config.txt without the row gets it, so that those runs go on the same.
//   min, max: the one range of the setting, for every learner (INT, I64, F64, OPT).
//   learner: "" for every learner's setting, else the --algo names whose setting it is, one space
//   between two (its flag is refused with another learner, and it is saved and compared only in
//   those learners' runs).
//   workers: 0 here, one per core at run time.
// clang-format off
#define TRAIN_SETTINGS(X) \
    X(STR,  algo,             "algo",             "pg",          "", "",           0, 0,                RUN,  "", \
      "the learner") \
    X(STR,  env_id,           "env",              "ALE/Pong-v5", "", "",           0, 0,                RUN,  "", \
      "ALE/Pong-v5, Pong-v0, Pong-v4, PongDeterministic-v0/-v4, PongNoFrameskip-v0/-v4") \
    X(INT,  mode,             "mode",             "0",           "", "",           0, 1,                RUN,  "", \
      "ALE's game mode: 0 or 1 (the cartridge's games 1 and 2)") \
    X(INT,  difficulty,       "difficulty",       "0",           "", "",           0, 3,                RUN,  "", \
      "ALE's difficulty 0-3: bit 0 halves the CPU's bat, bit 1 the agent's") \
    X(INT,  batch_size,       "batch-size",       "10",          "", "",           1, TRAIN_BATCH_MAX,  RUN,  "pg", \
      "episodes per update") \
    X(INT,  hidden,           "hidden",           "200",         "ppo=128 qrdqn=256", "",   1, TRAIN_H_MAX,      RUN,  "", \
      "hidden units H") \
    X(F64,  lr,               "lr",               "0.0001",      "ppo=0.001 qrdqn=0.0001", "", 0, 1,                RUN,  "", \
      "learning rate") \
    X(F64,  gamma,            "gamma",            "0.99",        "", "",           0, 1,                RUN,  "", \
      "reward discount") \
    X(F64,  decay,            "decay",            "0.99",        "", "",           0, 1,                RUN,  "pg", \
      "RMSProp decay") \
    X(U64,  seed,             "seed",             "1",           "", "",           0, 0,                RUN,  "", \
      "run seed: same seed, same bits") \
    X(INT,  envs,             "envs",             "32",          "qrdqn=16", "",   1, 65536,            RUN,  "ppo qrdqn", \
      "envs played together") \
    X(INT,  steps,            "steps",            "128",         "qrdqn=64", "",   1, 65536,            RUN,  "ppo qrdqn", \
      "steps of each env an iteration (a rollout)") \
    X(INT,  epochs,           "epochs",           "2",           "", "",           1, 1000,             RUN,  "ppo", \
      "passes over a rollout") \
    X(INT,  minibatches,      "minibatches",      "16",          "", "",           1, 16777216,         RUN,  "ppo", \
      "minibatches a pass") \
    X(F64,  lambda,           "lambda",           "0.95",        "", "",           0, 1,                RUN,  "ppo", \
      "GAE's lambda") \
    X(F64,  clip,             "clip",             "0.1",         "", "",           1e-9, 1e9,           RUN,  "ppo", \
      "the probability ratio's clip (and the value's)") \
    X(F64,  ent_coef,         "ent-coef",         "0.001",       "", "",           -1, 1e9,             RUN,  "ppo", \
      "entropy bonus; negative: a penalty, that makes the policy surer") \
    X(F64,  vf_coef,          "vf-coef",          "0.5",         "", "",           0, 1e9,              RUN,  "ppo", \
      "value loss weight") \
    X(F64,  max_grad_norm,    "max-grad-norm",    "0.5",         "", "",           1e-12, 1e12,         RUN,  "ppo", \
      "the gradient's largest global norm") \
    X(I64,  anneal_steps,     "anneal-steps",     "14000000",    "", "",           0, INT64_MAX,        RUN,  "ppo", \
      "agent steps over which lr falls to 0, 0: constant") \
    X(INT,  coarse,           "coarse",           "1",           "", "",           0, 1,                RUN,  "ppo", \
      "1: the input has the frames' coarse views too") \
    X(INT,  value_hidden,     "value-hidden",     "-1",          "", "0",          -1, TRAIN_H_MAX,     RUN,  "ppo", \
      "of the H hidden units, the last N serve the value alone and the rest the policy alone " \
      "(a separate value network); -1: H/2; 0: all serve both") \
    X(INT,  chunk,            "chunk",            "128",         "", "256",        1, 16777216,         RUN,  "ppo", \
      "accepted and recorded for the runs of older versions; no longer used (any value: the same bits)") \
    X(I64,  ent_anneal_steps, "ent-anneal-steps", "0",           "", "",           0, INT64_MAX,        RUN,  "ppo", \
      "agent steps over which the entropy coefficient falls linearly to 0, 0: constant") \
    X(I64,  sticky_warmup,    "sticky-warmup",    "0",           "", "",           0, INT64_MAX,        RUN,  "ppo", \
      "agent steps over which the training envs' repeat-action probability rises linearly from 0 to the env's own " \
      "(0.25 in ALE/Pong-v5), 0: the env's own throughout") \
    X(INT,  quantiles,        "quantiles",        "32",          "", "",           1, 1024,             RUN,  "qrdqn", \
      "quantiles of each action's return") \
    X(INT,  nstep,            "nstep",            "3",           "", "",           1, 1000,             RUN,  "qrdqn", \
      "steps of a target's rewards before it bootstraps") \
    X(I64,  replay,           "replay",           "100000",      "", "",           1, 67108864,         RUN,  "qrdqn", \
      "transitions the replay memory holds") \
    X(I64,  learn_start,      "learn-start",      "20000",       "", "",           0, INT64_MAX,        RUN,  "qrdqn", \
      "agent steps played before the first update") \
    X(INT,  update_every,     "update-every",     "4",           "", "",           1, 65536,            RUN,  "qrdqn", \
      "agent steps an update") \
    X(INT,  minibatch,        "minibatch",        "32",          "", "",           1, 65536,            RUN,  "qrdqn", \
      "transitions an update") \
    X(INT,  target_every,     "target-every",     "2000",        "", "",           1, INT32_MAX,        RUN,  "qrdqn", \
      "updates between copies of the weights to the target network") \
    X(I64,  eps_steps,        "eps-steps",        "250000",      "", "",           0, INT64_MAX,        RUN,  "qrdqn", \
      "agent steps after --learn-start over which epsilon falls from 1 to --eps-final") \
    X(F64,  eps_final,        "eps-final",        "0.01",        "", "",           0, 1,                RUN,  "qrdqn", \
      "epsilon of the epsilon-greedy actions, once fallen") \
    X(F64,  adam_eps,         "adam-eps",         "0.0003125",   "", "",           1e-12, 1,            RUN,  "qrdqn", \
      "Adam's epsilon (Dopamine's 0.01 / 32)") \
    X(I64,  iterations,       "iterations",       "-1",          "", "",           -1, INT64_MAX,       GOAL, "", \
      "stop after N updates in total (default: -1, no limit)") \
    X(OPT,  target_reward,    "target-reward",    "none",        "", "",           -TRAIN_REWARD_MAX, TRAIN_REWARD_MAX, GOAL, "", \
      "stop when the running mean reaches X (default: none)") \
    X(I64,  checkpoint_every, "checkpoint-every", "100",         "", "",           0, INT64_MAX,        GOAL, "", \
      "checkpoint every N iterations, 0: never") \
    X(F64,  checkpoint_secs,  "checkpoint-secs",  "300",         "", "",           0, 1e9,              GOAL, "", \
      "and every X seconds, 0: never") \
    X(INT,  keep,             "keep",             "3",           "", "",           1, 1000000,          GOAL, "", \
      "checkpoints kept (the newest)") \
    X(INT,  workers,          "workers",          "0",           "", "",           1, INT32_MAX,        HOST, "", \
      "worker threads in this process (default: one per core)") \
    X(BOOL, quiet,            "quiet",            "false",       "", "",           0, 0,                HOST, "", \
      "no per-batch line")
// clang-format on

#define SETTING_FIELD_STR(name) char name[TRAIN_STR_MAX];
#define SETTING_FIELD_INT(name) int name;
#define SETTING_FIELD_I64(name) int64_t name;
#define SETTING_FIELD_U64(name) uint64_t name;
#define SETTING_FIELD_F64(name) double name;
#define SETTING_FIELD_OPT(name) \
    double name; \
    bool has_##name;
#define SETTING_FIELD_BOOL(name) bool name;

typedef struct TrainConfig {
#define X(kind, name, ...) SETTING_FIELD_##kind(name)
    TRAIN_SETTINGS(X)
#undef X
    char run_dir[RUN_DIR_MAX]; // where the run is kept (the CLI's: --run-dir, --resume)
} TrainConfig;

// A row of the table, for the code that walks it.
typedef struct {
    SettingKind kind;
    const char *name, *flag;  // the field's name (config.txt, checkpoints, messages); the flag
    size_t offset;            // of the field in TrainConfig
    size_t has_offset;        // OPT: of its has_ flag
    const char *def;          // a new run's value, as text (train_setting_set reads it)
    const char *learner_defs; // "" or "NAME=VALUE ...": the learners whose new runs start otherwise
    const char *before;       // what a file without the row holds, "" for def
    double min, max;          // the range of numbers (U64: min = max = 0, any)
    int role;                 // SETTING_*
    const char *learner;      // "" or --algo names, one space between two
    const char *help;
} TrainSetting;

extern const TrainSetting TRAIN_SETTING_ROWS[];
extern const int TRAIN_SETTING_COUNT;

// What a checkpoint, a model.txt or a config.txt without a row holds: every row's "before"
// value (the --algo pg run of Karpathy's recipe, whose rows all had their default).
void train_config_default(TrainConfig *c);
// A new run of the learner `algo`: every row's default, or the learner's own.
void train_config_fresh(TrainConfig *c, const char *algo);
// The row's default for a new run of the learner `algo`, as text.
const char *train_setting_default(const TrainSetting *row, const char *algo, char *out, size_t n);
// NULL when every row that applies to c holds a value in its range, else what is wrong (in
// why: "--hidden must be in [1, 100000], got 0"). The flags and files are checked as they are
// read (train_setting_set); this is for configurations that code builds.
const char *train_config_check(const TrainConfig *c, char *why, size_t n);
// The CPUs this process may run on (its affinity mask: taskset, cgroups, mpirun's binding).
int train_cores_available(void);

// Whether the row is one of c's learner's (or every learner's).
bool train_setting_applies(const TrainSetting *row, const TrainConfig *c);
// Whether the row's learners are `learner`'s: "" for every learner's rows, else a name that
// the row's list holds.
bool train_setting_of(const TrainSetting *row, const char *learner);
// The row of this name, or NULL.
const TrainSetting *train_setting_find(const char *name);
// Sets the row's field of c from text, checked against the row's range (and, for env_id, the
// known presets). NULL when set, else why, holding what is wrong ("expects an integer, got 'x'").
const char *train_setting_set(const TrainSetting *row, TrainConfig *c, const char *text, char *why, size_t n);
// The row's value in c as text that train_setting_set reads back to the same bits ("none" for
// an unset OPT, "true"/"false" for BOOL).
const char *train_setting_text(const TrainSetting *row, const TrainConfig *c, char *out, size_t n);
// Copies the rows of the given roles (SETTING_* ORed) from src to dst; with `only` (not NULL,
// one bool per row) only the rows it marks.
void train_config_copy(TrainConfig *dst, const TrainConfig *src, int roles, const bool *only);
// The text form of a configuration: "name=value\n" for each row of the roles that applies to c
// (the checkpoint's settings, what the ranks compare and adopt). Returns its bytes (out may be
// NULL, n 0, to count them).
size_t train_config_write(const TrainConfig *c, int roles, char *out, size_t n);
// Reads such text (len bytes) into c over what it holds: every line must be a row of the roles,
// once, with a valid value, and apply to c's learner. NULL, or what is wrong (in why).
const char *train_config_read(TrainConfig *c, const char *text, size_t len, int roles, char *why, size_t n);

#endif
