// plot.h: learning curves from a run's metrics.csv, drawn by gnuplot (pngcairo).
#ifndef PONGRL_PLOT_H
#define PONGRL_PLOT_H

#include <stddef.h>

// Draws two panels into png (atomically, file.h): batch mean and running mean reward against
// episodes, and against training wall time. metrics.csv is read here (a FIFO or a device is
// refused); gnuplot gets its values on stdin and hands the picture back on stdout, and is
// killed if it takes more than a minute. Returns 0; 1 when metrics.csv has no row after an
// ended episode yet (nothing drawn); -1 with one line in err (gnuplot missing or failing,
// unreadable metrics, a full disk).
int plot_curve(const char *metrics_csv, const char *png, const char *title, char *err, size_t errlen);

#endif
