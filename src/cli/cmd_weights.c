// cmd_weights.c: `pongrl export` and `pongrl import`: the weights in and out of NumPy's .npy
// files: Karpathy's network in Karpathy's layout, so a model trained by Karpathy's Python code
// can be evaluated and recorded here, and one trained here can be loaded there
// (model['W1'] = np.load('W1.npy')); a learner's own network as its arrays beside a
// model.txt of its settings, which tools/play_npy.py plays on any Gymnasium Pong env.
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../algo/algo.h"
#include "../train/checkpoint.h"
#include "args.h"
#include "commands.h"
#include "../train/weights_npy.h"
#include "../train/model.h"
#include "../util/dir_replace.h"
#include "../util/say.h"

// MODEL --out PATH [--force], the form both commands take (--force only where force is not NULL:
// export's); returns the out path. -h/--help prints "usage: pongrl CMD USAGE" and `about`.
static const char *parse_model_out(
    int argc, char **argv, const char *cmd, const char *usage, const char *about, bool *force) {
    static const struct option opts[] = { { "out", 1, 0, 'o' }, { "force", 0, 0, 'f' }, { "help", 0, 0, 'h' },
        { 0, 0, 0, 0 } };
    const char *out = NULL;
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
            case 'o': out = optarg; break;
            case 'f':
                if (!force) die_usage("%s: unknown option '%s'", cmd, argv[optind - 1]);
                *force = true;
                break;
            case 'h':
                printf("usage: pongrl %s %s\n\n%s\nEach learner's network files:\n", cmd, usage, about);
                algo_print_npy_files();
                exit(0);
            case ':': die_usage("%s needs a value", argv[optind - 1]);
            default: die_usage("%s: unknown option '%s'", cmd, argv[optind - 1]);
        }
    }
    if (optind != argc - 1 || !out) die_usage("usage: pongrl %s %s", cmd, usage);
    if (!out[0]) die_usage("--out needs a path, got ''");
    return out;
}

// What export and import do with the model once its learner holds it: write it to `out` (an
// existing one replaced only with force), and say where in `wrote`. 0, or -1 with one line in err.
typedef int (*ModelWrite)(const Learner *l, TrainState *st, const char *out, bool force, char *wrote, size_t wrotelen,
    char *err, size_t errlen);

// MODEL --out PATH: MODEL loaded, attached to its learner (which must be able to export when
// `exporting`) and written by `write`; `done` then says so on stdout, given the model's
// description and where it went. The exit status, after one line on stderr on failure.
static int model_command(int argc, char **argv, const char *cmd, const char *usage, bool exporting, ModelWrite write,
    const char *done, const char *about) {
    bool force = false;
    const char *out = parse_model_out(argc, argv, cmd, usage, about, exporting ? &force : NULL);
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
    else if (train_state_attach(&st, l, err, sizeof(err)) ||
        write(l, &st, out, force, wrote, sizeof(wrote), err, sizeof(err)))
        say_error("%s", err);
    else {
        char d[2048], w[2048]; // both name paths the user gave: printed to a terminal
        printf(done, say_escape(desc, d, sizeof(d)), say_escape(wrote, w, sizeof(w)));
        rc = 0;
    }
    train_state_free(&st);
    return rc;
}

// s with every `from` in it replaced by `to`, in place (s holds n bytes).
static void replace_all(char *s, size_t n, const char *from, const char *to) {
    char buf[4096];
    size_t used = 0;
    const size_t fl = strlen(from);
    for (const char *p = s; *p && used + 1 < sizeof(buf);) {
        if (fl && !strncmp(p, from, fl)) {
            used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s", to);
            p += fl;
        } else
            buf[used++] = *p++;
    }
    buf[used < sizeof(buf) ? used : sizeof(buf) - 1] = 0;
    snprintf(s, n, "%s", buf);
}

// The learner writes its files into a new directory beside out, which then takes out's place in
// one step (util/dir_replace.h): out holds the old model or the new one, never a mix, and a
// failure or a kill leaves it as it was. An existing out is replaced only with --force, and only
// when it holds nothing but an export's files.
static int export_write(const Learner *l, TrainState *st, const char *out, bool force, char *wrote, size_t wrotelen,
    char *err, size_t errlen) {
    DirReplace r;
    if (dir_replace_begin(&r, out, force, npy_export_owns, NPY_EXPORT_FILES, err, errlen)) return -1;
    if (l->export_npy(st, r.tmp, wrote, wrotelen, err, errlen)) {
        dir_replace_abort(&r);
        return -1;
    }
    const int rc = dir_replace_commit(&r, err, errlen);
    if (rc < 0) return -1;
    if (rc > 0) say_warning("%s", err);          // the new model is in place; the old one's files were not all removed
    replace_all(wrote, wrotelen, r.tmp, r.path); // the files by the names they now have
    return 0;
}

int cmd_export(int argc, char **argv) {
    return model_command(argc, argv, "export", "MODEL --out DIR [--force]", true, export_write,
        "exported %s\n  to %s\n",
        "Writes MODEL's network as its learner's files (below; docs/runs.md gives the forward\n"
        "pass; tools/play_npy.py plays them). MODEL: a checkpoint, a run directory (its newest\n"
        "checkpoint) or a folder that export wrote.\n"
        "DIR is written whole beside its name and put in place in one step. An existing DIR is\n"
        "refused; --force replaces it, when it holds nothing but an export's files (model.txt,\n"
        "*.npy): a reader sees the old model or the new one, never a mix.\n");
}

static int import_write(const Learner *l, TrainState *st, const char *out, bool force, char *wrote, size_t wrotelen,
    char *err, size_t errlen) {
    (void)force;
    snprintf(wrote, wrotelen, "%s", out);
    return checkpoint_write(out, st, CKPT_FLAG_IMPORTED, err, errlen);
}

int cmd_import(int argc, char **argv) {
    return model_command(argc, argv, "import", "DIR --out FILE.bin", false, import_write, "imported %s to %s\n",
        "Reads DIR, a learner's network files (below: as `pongrl export` writes them; pg's as\n"
        "Karpathy's model, saved with np.save), and writes it as a pongrl weights file that eval,\n"
        "record and export read. (eval, record and export also read such a folder directly.)\n");
}
