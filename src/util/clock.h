// clock.h: monotonic seconds, for timing (never for anything that decides results).
#ifndef PONGRL_CLOCK_H
#define PONGRL_CLOCK_H

#include <time.h>

static inline double clock_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
