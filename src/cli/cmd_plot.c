// cmd_plot.c: `pongrl plot RUN_DIR`: RUN_DIR/curve.png from RUN_DIR/metrics.csv.
#include <stdio.h>
#include <string.h>

#include "../media/plot.h"
#include "../train/checkpoint.h"
#include "args.h"
#include "commands.h"
#include "metrics.h"
#include "../util/say.h"

int cmd_plot(int argc, char **argv) {
    if (argc == 2 && arg_is_help(argv[1])) {
        printf("usage: pongrl plot RUN_DIR\n\n"
               "Draws RUN_DIR/curve.png: the batch mean and running mean reward against episodes and\n"
               "against training wall time (needs gnuplot; training refreshes it at each checkpoint).\n");
        return 0;
    }
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-') die_usage("plot: unknown option '%s'", argv[i]);
    if (argc != 2 || !argv[1][0]) die_usage("usage: pongrl plot RUN_DIR");
    if (strlen(argv[1]) >= RUN_DIR_MAX) die_usage("plot: path too long");
    char csv[CKPT_PATH_MAX], png[CKPT_PATH_MAX], err[RUN_DIR_MAX + 128];
    snprintf(csv, sizeof(csv), "%s/metrics.csv", argv[1]);
    snprintf(png, sizeof(png), "%s/curve.png", argv[1]);
    // a damaged file is refused, not drawn (a resume rebuilds it from the rows that agree)
    if (metrics_check(csv, err, sizeof(err))) {
        say_error("%s", err);
        return 1;
    }
    int rc = plot_curve(csv, png, argv[1], err, sizeof(err));
    if (rc < 0) {
        say_error("%s", err);
        return 1;
    }
    if (rc == 1) {
        say_error("%s: no episode has ended yet: nothing to plot", csv);
        return 1;
    }
    char shown[512];
    printf("wrote %s\n", say_escape(png, shown, sizeof(shown)));
    return 0;
}
