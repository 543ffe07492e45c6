// fmt.h: the shortest %g that reads back as the same double (0.99, not 0.98999999999999999;
// 0.0001, not 1.0000000000000000479e-4): config.txt and the ranks' configuration messages.
#ifndef PONGRL_FMT_H
#define PONGRL_FMT_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static inline const char *fmt_shortest(double v, char *buf, size_t n) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

#endif
