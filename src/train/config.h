// config.h: what a training run is asked to do, as ONE table of settings (settings.def: the
// shared rows, and each learner's own rows from its folder, at their places). Each row makes a
// TrainConfig field, and from the rows alone come: the flags of `pongrl train` and
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
// No counter of a run gets past 2^50 (a million agent steps a second for 35 years): the most
// --iterations may ask, where the loop stops whatever it was asked, and the most a checkpoint
// may say (checkpoint.h: written and read alike), so that a run's every checkpoint loads.
#define TRAIN_COUNTER_BITS 50
#define TRAIN_COUNTER_MAX  ((int64_t)1 << TRAIN_COUNTER_BITS)

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

// The places of settings.def where the learners' own rows sit (SETTINGS_PLACE).
#define SETTINGS_AT_START   1 // after --difficulty
#define SETTINGS_AT_NETWORK 2 // after --gamma
#define SETTINGS_AT_ENVS    3 // after --steps

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
#define SETTING(kind, name, ...) SETTING_FIELD_##kind(name)
#include "settings.def"
    char run_dir[RUN_DIR_MAX]; // where the run is kept (the CLI's: --run-dir, --resume)
} TrainConfig;

// A row of the table, for the code that walks it.
typedef struct {
    SettingKind kind;
    const char *name, *flag; // the field's name (config.txt, checkpoints, messages); the flag
    size_t offset;           // of the field in TrainConfig
    size_t has_offset;       // OPT: of its has_ flag
    const char *def;         // a new run's value, as text (train_setting_set reads it)
    const char *before;      // what a file without the row holds, "" for def
    double min, max;         // the range of numbers (U64: min = max = 0, any)
    int role;                // SETTING_*
    const char *learner;     // "", "+" (the learners that take it) or its --algo name
    const char *help;
} TrainSetting;

extern const TrainSetting TRAIN_SETTING_ROWS[];
extern const int TRAIN_SETTING_COUNT;

// A learner's SETTING_USE row: it takes the shared row `name` (a "+" row), or starts it at def.
typedef struct {
    const char *learner, *name;
    const char *def; // "": the row's own
} TrainSettingUse;

extern const TrainSettingUse TRAIN_SETTING_USES[];
extern const int TRAIN_SETTING_USE_COUNT;

// Whether `name` is a setting that older versions had and that no longer plays a part: a
// checkpoint or a model.txt that holds one still reads (train_config_read skips its line).
bool train_setting_retired(const char *name);

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
// Whether the row's learners are `learner`'s: "" for every learner's rows, else a learner
// whose setting the row is (its own, or a "+" row it takes).
bool train_setting_of(const TrainSetting *row, const char *learner);
// The learners whose setting the row is, "" for every learner's, joined by `sep` (" or
// --algo ": "A or --algo B").
const char *train_setting_learners(const TrainSetting *row, const char *sep, char *out, size_t n);
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
