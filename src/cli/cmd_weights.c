// cmd_weights.c: `pongrl export` and `pongrl import`: the weights in and out of the seed's
// NumPy layout, so a model trained by the seed's Python code can be evaluated and recorded
// here, and one trained here can be loaded there (model['W1'] = np.load('W1.npy')).
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

// MODEL --out PATH, the form both commands take; returns the out path.
static const char *parse_model_out(int argc, char **argv, const char *cmd, const char *usage, const char *help) {
    static const struct option opts[] = {{"out", 1, 0, 'o'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'o': out = optarg; break;
        case 'h': fputs(help, stdout); exit(0);
        case ':': die_usage("%s needs a value", argv[optind - 1]);
        default:  die_usage("%s: unknown option '%s'", cmd, argv[optind - 1]);
        }
    }
    if (optind != argc - 1 || !out) die_usage("usage: pongrl %s %s", cmd, usage);
    if (!out[0]) die_usage("--out needs a path, got ''");
    return out;
}

int cmd_export(int argc, char **argv) {
    const char *help =
        "usage: pongrl export MODEL --out DIR\n"
        "\n"
        "Writes DIR/W1.npy (H, 6400) and DIR/W2.npy (H,), float64, the seed's model['W1'] and\n"
        "model['W2']. MODEL: a checkpoint, a run directory (its newest checkpoint) or a folder\n"
        "with W1.npy/W2.npy. DIR is created if missing.\n";
    const char *out = parse_model_out(argc, argv, "export", "MODEL --out DIR", help);
    TrainState st;
    char desc[2048], err[2048];
    if (model_load(argv[optind], &st, desc, sizeof(desc), err, sizeof(err))) { fprintf(stderr, "pongrl: %s\n", err); return 1; }
    int rc = 1;
    if (strcmp(st.cfg.algo, "pg"))       // W1.npy/W2.npy are the seeds' network's
        fprintf(stderr, "pongrl: %s: a model of --algo %s: export writes the seeds' network only (not yet %s's)\n",
                argv[optind], st.cfg.algo, st.cfg.algo);
    else if (mkdir(out, 0777) && errno != EEXIST) fprintf(stderr, "pongrl: cannot create %s: %s\n", out, strerror(errno));
    else if (weights_export_npy(&st.policy, out, err, sizeof(err))) fprintf(stderr, "pongrl: %s\n", err);
    else {
        printf("exported %s\n  to %s/W1.npy (%d, %d) and %s/W2.npy (%d,), float64\n", desc, out, st.policy.H,
               st.policy.D, out, st.policy.H);
        rc = 0;
    }
    train_state_free(&st);
    return rc;
}

int cmd_import(int argc, char **argv) {
    const char *help =
        "usage: pongrl import DIR --out FILE.bin\n"
        "\n"
        "Reads DIR/W1.npy (H, 6400) and DIR/W2.npy (H,), float64 (the seed's model, saved with\n"
        "np.save), and writes them as a pongrl weights file that eval, record and export read.\n"
        "(eval, record and export also read such a folder directly.)\n";
    const char *out = parse_model_out(argc, argv, "import", "DIR --out FILE.bin", help);
    TrainState st;
    memset(&st, 0, sizeof(st));
    train_config_default(&st.cfg);
    char err[2048];
    if (weights_import_npy(argv[optind], &st.policy, err, sizeof(err))) { fprintf(stderr, "pongrl: %s\n", err); return 1; }
    st.cfg.hidden = st.policy.H;
    int rc = 1;
    // a checkpoint of the default learner, its state as a fresh run's (an RMSProp cache of zeros)
    if (train_state_attach(&st, algo_find(ALGO_DEFAULT), err, sizeof(err))) fprintf(stderr, "pongrl: %s\n", err);
    else if (checkpoint_write(out, &st, CKPT_FLAG_IMPORTED, err, sizeof(err))) fprintf(stderr, "pongrl: %s\n", err);
    else { printf("imported %s/W1.npy, W2.npy (H=%d) to %s\n", argv[optind], st.policy.H, out); rc = 0; }
    train_state_free(&st);
    return rc;
}
