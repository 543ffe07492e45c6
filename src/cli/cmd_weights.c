// cmd_weights.c: `pongrl export` and `pongrl import`: the weights in and out of NumPy's .npy
// files: Karpathy's network in Karpathy's layout, so a model trained by Karpathy's Python code
// can be evaluated and recorded here, and one trained here can be loaded there
// (model['W1'] = np.load('W1.npy')); a learner's own network (PPO's) as its arrays beside a
// model.txt of its settings, which tools/play_npy.py plays on any Gymnasium Pong env.
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../algo/algo.h"
#include "../train/checkpoint.h"
#include "args.h"
#include "commands.h"
#include "../train/weights_npy.h"
#include "../train/model.h"
#include "../util/say.h"

// MODEL --out PATH, the form both commands take; returns the out path. -h/--help prints "usage:
// pongrl CMD USAGE" and `about`.
static const char *parse_model_out(int argc, char **argv, const char *cmd, const char *usage, const char *about) {
    static const struct option opts[] = { { "out", 1, 0, 'o' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *out = NULL;
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
            case 'o': out = optarg; break;
            case 'h': printf("usage: pongrl %s %s\n\n%s", cmd, usage, about); exit(0);
            case ':': die_usage("%s needs a value", argv[optind - 1]);
            default: die_usage("%s: unknown option '%s'", cmd, argv[optind - 1]);
        }
    }
    if (optind != argc - 1 || !out) die_usage("usage: pongrl %s %s", cmd, usage);
    if (!out[0]) die_usage("--out needs a path, got ''");
    return out;
}

// What export and import do with the model once its learner holds it: write it to `out`, and say
// where in `wrote`. 0, or -1 with one line in err.
typedef int (*ModelWrite)(
    const Learner *l, TrainState *st, const char *out, char *wrote, size_t wrotelen, char *err, size_t errlen);

// MODEL --out PATH: MODEL loaded, attached to its learner (which must be able to export when
// `exporting`) and written by `write`; `done` then says so on stdout, given the model's
// description and where it went. The exit status, after one line on stderr on failure.
static int model_command(int argc, char **argv, const char *cmd, const char *usage, bool exporting, ModelWrite write,
    const char *done, const char *about) {
    const char *out = parse_model_out(argc, argv, cmd, usage, about);
    const char *model = argv[optind];
    TrainState st;
    char desc[2048], wrote[2048], err[2048];
    if (model_load(model, ALGO_LEARNERS, &st, desc, sizeof(desc), err, sizeof(err))) {
        say_error("%s", err);
        return 1;
    }
    const Learner *l = algo_find(st.cfg.algo);
    int rc = 1;
    if (!l || (exporting && !l->export_npy))
        say_error("%s: a model of --algo %s, which this build %s", model, st.cfg.algo,
            exporting ? "cannot export" : "does not have");
    // the model's learner takes it, its state as a fresh run's (for Karpathy's network an RMSProp
    // cache of zeros; a learner that read its own files has attached itself already)
    else if (train_state_attach(&st, l, err, sizeof(err)) || write(l, &st, out, wrote, sizeof(wrote), err, sizeof(err)))
        say_error("%s", err);
    else {
        char d[2048], w[2048]; // both name paths the user gave: printed to a terminal
        printf(done, say_escape(desc, d, sizeof(d)), say_escape(wrote, w, sizeof(w)));
        rc = 0;
    }
    train_state_free(&st);
    return rc;
}

static int export_write(
    const Learner *l, TrainState *st, const char *out, char *wrote, size_t wrotelen, char *err, size_t errlen) {
    if (mkdir(out, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -1;
    }
    return l->export_npy(st, out, wrote, wrotelen, err, errlen);
}

int cmd_export(int argc, char **argv) {
    return model_command(argc, argv, "export", "MODEL --out DIR", true, export_write, "exported %s\n  to %s\n",
        "Karpathy's network (--algo pg): writes DIR/W1.npy (H, 6400) and DIR/W2.npy (H,), float64,\n"
        "Karpathy's model['W1'] and model['W2']. A learner with its own network (--algo ppo):\n"
        "writes its arrays as DIR/ppo_*.npy and its settings as DIR/model.txt (docs/runs.md gives\n"
        "the forward pass; tools/play_npy.py plays them). MODEL: a checkpoint, a run directory\n"
        "(its newest checkpoint) or a folder that export wrote. DIR is created if missing.\n");
}

static int import_write(
    const Learner *l, TrainState *st, const char *out, char *wrote, size_t wrotelen, char *err, size_t errlen) {
    snprintf(wrote, wrotelen, "%s", out);
    return checkpoint_write(out, st, CKPT_FLAG_IMPORTED, err, errlen);
}

int cmd_import(int argc, char **argv) {
    return model_command(argc, argv, "import", "DIR --out FILE.bin", false, import_write, "imported %s to %s\n",
        "Reads DIR/W1.npy (H, 6400) and DIR/W2.npy (H,), float64 (Karpathy's model, saved with\n"
        "np.save), or a folder that `pongrl export` wrote with model.txt (a PPO network), and\n"
        "writes it as a pongrl weights file that eval, record and export read. (eval, record and\n"
        "export also read such a folder directly.)\n");
}
