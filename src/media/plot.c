// plot.c: gnuplot through a pipe. gnuplot-nox is a run-time tool, not a library we link:
// a machine without it still trains, it only draws no curve.
#include "plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/file.h"

// The rows after the header that follow an ended episode (-1 if the file cannot be read), and
// the largest wall_s (4th column). Rows before the first episode have no value to draw, and
// gnuplot refuses a file with none.
static long scan_rows(const char *path, double *wall_max, char *err, size_t errlen) {
    FILE *f = file_fopen_read(path, err, errlen); // a FIFO or a device: refused, never waited on
    if (!f) return -1;
    long rows = -1;
    char line[512];
    *wall_max = 0;
    while (fgets(line, sizeof(line), f)) {
        if (rows++ < 0) continue; // the header
        long long episodes;
        double w;
        if (sscanf(line, "%*[^,],%lld,%*[^,],%lf", &episodes, &w) != 2 || episodes <= 0)
            rows--;
        else if (w > *wall_max)
            *wall_max = w;
    }
    fclose(f);
    return rows < 0 ? 0 : rows;
}

// Whether an executable gnuplot is on PATH. Checked before popen: writing a script into
// the pipe of a shell that found no gnuplot would end us with SIGPIPE.
static int gnuplot_found(void) {
    const char *path = getenv("PATH");
    if (!path) return 0;
    char dir[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n < sizeof(dir) - 16) {
            memcpy(dir, path, n);
            snprintf(dir + n, sizeof(dir) - n, "/gnuplot");
            if (n > 0 && access(dir, X_OK) == 0) return 1;
        }
        path += n;
        if (*path == ':') path++;
    }
    return 0;
}

// gnuplot strings are single-quoted; a quote inside would end them.
static int quotable(const char *s) { return strchr(s, '\'') == NULL && strchr(s, '\n') == NULL; }

int plot_curve(const char *metrics_csv, const char *png, const char *title, char *err, size_t errlen) {
    double wall_max;
    char why[FILE_PATH_MAX + 64];
    long rows = scan_rows(metrics_csv, &wall_max, why, sizeof(why));
    if (rows < 0) {
        snprintf(err, errlen, "cannot read %s", why);
        return -1;
    }
    if (rows == 0) return 1;
    if (!quotable(metrics_csv) || !quotable(png) || !quotable(title)) {
        snprintf(err, errlen, "cannot plot: a path contains a quote or newline");
        return -1;
    }
    // wall time in the unit that reads best for the run's length
    double div = wall_max < 120 ? 1 : wall_max < 7200 ? 60 : 3600;
    const char *unit = div == 1 ? "seconds" : div == 60 ? "minutes" : "hours";
    if (!gnuplot_found()) {
        snprintf(err, errlen, "gnuplot not found: no curve drawn (install gnuplot-nox)");
        return -1;
    }
    // gnuplot draws to stdout when it cannot open its output: begin makes sure it can, first
    FileReplace fr;
    if (file_replace_begin(&fr, png, err, errlen)) return -1;
    const char *tmp = fr.tmp;
    // stderr of gnuplot goes to a pipe we ignore: its own messages are not one clear line; its
    // stdout too, so that no picture ever lands on ours
    FILE *g = popen("gnuplot >/dev/null 2>&1", "w");
    if (!g) {
        snprintf(err, errlen, "cannot run gnuplot: %s", strerror(errno));
        file_replace_abort(&fr);
        return -1;
    }
    fprintf(g,
        "set terminal pngcairo size 1200,500 noenhanced font 'sans,10'\n"
        "set output '%s'\n"
        "set datafile separator ','\n"
        "set key top left opaque box\n"
        "set grid\n"
        "set yrange [-21:21]\n"
        "set ytics 7\n"
        "set multiplot layout 1,2 title 'pongrl run %s'\n"
        "set xlabel 'episodes'\n"
        "set ylabel 'reward per episode (agent - CPU points)'\n"
        // a batch mean only where episodes ended (a rollout learner's iteration may end none:
        // its row leaves the field empty, earlier versions wrote 0), the running mean from the
        // first episode on
        "ended(e) = (d = e - prev, prev = e, d > 0)\n"
        "prev = 0\n"
        "plot '%s' using 2:(ended($2) ? $5 : NaN) with points pt 7 ps 0.6 lc rgb '#9ab0d0' title 'batch mean', "
        "'' using 2:($2 > 0 ? $6 : NaN) with lines lw 2 lc rgb '#c03020' title 'running mean (0.99)'\n"
        "set xlabel 'training wall time (%s)'\n"
        "unset ylabel\n"
        "prev = 0\n"
        "plot '%s' using ($4/%g):(ended($2) ? $5 : NaN) with points pt 7 ps 0.6 lc rgb '#9ab0d0' title 'batch mean', "
        "'' using ($4/%g):($2 > 0 ? $6 : NaN) with lines lw 2 lc rgb '#c03020' title 'running mean (0.99)'\n"
        "unset multiplot\n"
        "set output\n",
        tmp, title, metrics_csv, unit, metrics_csv, div, div);
    int st = pclose(g);
    struct stat drawn;
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || stat(tmp, &drawn) || drawn.st_size == 0) {
        file_replace_abort(&fr);
        if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
            snprintf(err, errlen, "gnuplot not found: no curve drawn (install gnuplot-nox)");
        else
            snprintf(err, errlen, "gnuplot failed drawing %s", png);
        return -1;
    }
    return file_replace_commit(&fr, err, errlen);
}
