// plot.c: the learning curve, drawn by gnuplot (pngcairo). gnuplot-nox is a run-time tool, not
// a library we link: a machine without it still trains, it only draws no curve.
//
// gnuplot is given no name to open. Its script, with metrics.csv's values in it as an inline
// datablock, is a memory file on its stdin (we read metrics.csv ourselves, refusing a FIFO, so
// that nothing can block it or swap what it reads); the picture comes back on its stdout, a
// pipe, and we write it to the temporary file's descriptor (file.h). Written by us, a full disk
// is told as such (gnuplot itself exits 0 with half a picture there); a picture that does not
// end with PNG's IEND chunk is refused. Drawing the curve in C instead would need a font
// rasteriser and a PNG writer for the same picture: gnuplot stays, held at arm's length.
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../util/file.h"
#include "../util/say.h"
#include "../util/spawn.h"

// gnuplot is killed after a minute: a run of 100,000 iterations (a smooth running mean) draws in
// under 5 s on the 2-core host, 10,000 in about 1 s (measured 2026-11-29)
#define PLOT_LIMIT_S 60.0

// ----------------------------------------------------------------------------
// metrics.csv -> the datablock: episodes, wall time in `unit`, batch mean, running mean

typedef struct {
    long long episodes;
    double wall, batch, running; // NaN where there is nothing to draw
} PlotRow;

typedef struct {
    PlotRow *rows;
    size_t n, cap;
    double wall_max;
} PlotData;

// Field k (0-based) of a CSV line: its start, its length in *len; NULL if the line has fewer.
static const char *csv_field(const char *line, int k, size_t *len) {
    for (; k > 0; k--) {
        line = strchr(line, ',');
        if (!line) return NULL;
        line++;
    }
    *len = strcspn(line, ",\r\n");
    return line;
}

// A number of a field: NAN if it is empty or not a finite number.
static double csv_number(const char *line, int k) {
    size_t len;
    const char *f = csv_field(line, k, &len);
    if (!f || !len || len >= 64) return NAN;
    char buf[64], *end;
    memcpy(buf, f, len);
    buf[len] = 0;
    double v = strtod(buf, &end);
    return *end || !isfinite(v) ? NAN : v;
}

// The rows after the header that follow an ended episode. A batch mean is drawn only where
// episodes ended (a rollout learner's iteration may end none: its row leaves the field empty,
// earlier versions wrote 0), the running mean from the first episode on. 0, or -1 with one
// line in err.
static int plot_read(const char *csv, PlotData *d, char *err, size_t errlen) {
    char why[FILE_PATH_MAX + 64];
    FILE *f = file_fopen_read(csv, why, sizeof(why)); // a FIFO or a device: refused, never waited on
    if (!f) {
        snprintf(err, errlen, "cannot read %s", why);
        return -1;
    }
    char line[1024];
    bool header = true;
    long long prev = 0;
    while (fgets(line, sizeof(line), f)) {
        if (header) {
            header = false;
            continue;
        }
        double e = csv_number(line, 1);
        if (!(e > 0) || e > 9e15) continue; // no episode yet, or not a row
        PlotRow r = { (long long)e, csv_number(line, 3), csv_number(line, 4), csv_number(line, 5) };
        if (r.episodes <= prev) r.batch = NAN; // no episode ended in this iteration
        prev = r.episodes;
        if (d->n == d->cap) {
            size_t cap = d->cap ? 2 * d->cap : 1024;
            PlotRow *p = realloc(d->rows, cap * sizeof(PlotRow));
            if (!p) {
                fclose(f);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            d->rows = p;
            d->cap = cap;
        }
        d->rows[d->n++] = r;
        if (r.wall > d->wall_max) d->wall_max = r.wall;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "cannot read %s: %s", csv, strerror(EIO));
        return -1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// the script

// s as a gnuplot double-quoted string's contents, every byte as an octal escape: no quote,
// backquote (gnuplot's command substitution) or newline of a path can reach the script.
static void put_octal(FILE *g, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) fprintf(g, "\\%03o", *p);
}

static void put_number(FILE *g, double v) {
    if (isnan(v))
        fputs(" NaN", g);
    else
        fprintf(g, " %.9g", v);
}

static void put_script(FILE *g, const PlotData *d, const char *title) {
    // wall time in the unit that reads best for the run's length
    double div = d->wall_max < 120 ? 1 : d->wall_max < 7200 ? 60 : 3600;
    const char *unit = div == 1 ? "seconds" : div == 60 ? "minutes" : "hours";
    fputs("$data << EOD\n", g);
    for (size_t i = 0; i < d->n; i++) {
        const PlotRow *r = &d->rows[i];
        fprintf(g, "%lld", r->episodes);
        put_number(g, r->wall / div);
        put_number(g, r->batch);
        put_number(g, r->running);
        fputc('\n', g);
    }
    char shown[512];
    fputs("EOD\n"
          "set terminal pngcairo size 1200,500 noenhanced font 'sans,10'\n"
          "set output\n" // no name: stdout
          "set key top left opaque box\n"
          "set grid\n"
          "set yrange [-21:21]\n"
          "set ytics 7\n"
          "set multiplot layout 1,2 title \"pongrl run ",
        g);
    put_octal(g, say_escape(title, shown, sizeof(shown)));
    fprintf(g,
        "\"\n"
        "set xlabel 'episodes'\n"
        "set ylabel 'reward per episode (agent - CPU points)'\n"
        "plot $data using 1:3 with points pt 7 ps 0.6 lc rgb '#9ab0d0' title 'batch mean', "
        "$data using 1:4 with lines lw 2 lc rgb '#c03020' title 'running mean (0.99)'\n"
        "set xlabel 'training wall time (%s)'\n"
        "unset ylabel\n"
        "plot $data using 2:3 with points pt 7 ps 0.6 lc rgb '#9ab0d0' title 'batch mean', "
        "$data using 2:4 with lines lw 2 lc rgb '#c03020' title 'running mean (0.99)'\n"
        "unset multiplot\n"
        "unset output\n",
        unit);
}

// The script in a memory file, at its start: gnuplot's stdin. -1 with one line in err.
static int script_file(const PlotData *d, const char *title, char *err, size_t errlen) {
    int fd = memfd_create("gnuplot-script", MFD_CLOEXEC);
    int copy = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
    FILE *g = copy < 0 ? NULL : fdopen(copy, "w");
    if (!g) {
        snprintf(err, errlen, "cannot plot: %s", strerror(errno));
        if (copy >= 0) close(copy);
        if (fd >= 0) close(fd);
        return -1;
    }
    put_script(g, d, title);
    int bad = ferror(g);
    bad |= fclose(g);
    if (bad || lseek(fd, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "cannot plot: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

// ----------------------------------------------------------------------------
// gnuplot's picture into the temporary file

typedef struct {
    int fd;
    const char *png;
    long long bytes;
    bool failed;      // a write to fd failed: err is the whole story
    uint8_t tail[12]; // the last 12 bytes: a whole PNG's are its IEND chunk
} PngSink;

static int png_sink(void *ctx, const uint8_t *b, size_t n, char *err, size_t errlen) {
    PngSink *s = ctx;
    if (file_write_all(s->fd, b, n)) {
        snprintf(err, errlen, "cannot write %s: %s", s->png, strerror(errno));
        s->failed = true;
        return -1;
    }
    size_t keep = n >= 12 ? 0 : 12 - n; // bytes of the old tail still among the last 12
    if (keep) memmove(s->tail, s->tail + 12 - keep, keep);
    memcpy(s->tail + keep, b + n - (12 - keep), 12 - keep);
    s->bytes += (long long)n;
    return 0;
}

static const uint8_t PNG_IEND[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82 };

// gnuplot draws the script on stdin into fr's temporary file. 0, or -1 with one line in err.
static int gnuplot_draw(int script, FileReplace *fr, const char *png, char *err, size_t errlen) {
    int out[2];
    if (pipe2(out, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot run gnuplot: %s", strerror(errno));
        return -1;
    }
    char *argv[] = { "gnuplot", NULL };
    SpawnFd fds[] = { { script, 0 }, { out[1], 1 } };
    Child c;
    char why[512];
    int rc = spawn_start(&c, argv, fds, 2, PLOT_LIMIT_S, why, sizeof(why));
    int e = errno;
    close(out[1]);
    if (rc) {
        close(out[0]);
        if (e == ENOENT)
            snprintf(err, errlen, "gnuplot not found: no curve drawn (install gnuplot-nox)");
        else
            snprintf(err, errlen, "cannot draw %s: %s", png, why);
        return -1;
    }
    PngSink s = { file_replace_fd(fr), png, 0, false, { 0 } };
    rc = spawn_read(&c, out[0], png_sink, &s, why, sizeof(why));
    close(out[0]);
    if (!rc && (s.bytes < 12 || memcmp(s.tail, PNG_IEND, 12))) {
        char said[256];
        spawn_last_words(&c, said, sizeof(said));
        snprintf(why, sizeof(why), "gnuplot drew no whole picture (%lld bytes): %s", s.bytes, said);
        rc = -1;
    }
    spawn_end(&c);
    if (rc && s.failed)
        snprintf(err, errlen, "%s", why); // "cannot write PNG: No space left on device"
    else if (rc)
        snprintf(err, errlen, "cannot draw %s: %s", png, why);
    return rc;
}

int plot_curve(const char *metrics_csv, const char *png, const char *title, char *err, size_t errlen) {
    PlotData d = { 0 };
    if (plot_read(metrics_csv, &d, err, errlen)) {
        free(d.rows);
        return -1;
    }
    if (d.n == 0) return 1; // gnuplot refuses a plot with no point
    int script = script_file(&d, title, err, errlen);
    free(d.rows);
    if (script < 0) return -1;
    FileReplace fr;
    if (file_replace_begin(&fr, png, err, errlen)) {
        close(script);
        return -1;
    }
    int rc = gnuplot_draw(script, &fr, png, err, errlen);
    close(script);
    if (rc) {
        file_replace_abort(&fr);
        return -1;
    }
    return file_replace_commit(&fr, err, errlen);
}
