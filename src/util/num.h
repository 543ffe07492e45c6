// num.h: what a number given as text may look like, before strtoll/strtoull/strtod read it.
// They skip leading blanks, take a '+' and (strtoull) a '-' that wraps around, and strtod reads
// "inf", "nan" and hex: " -1" would become 18446744073709551615 as a seed. A plain number is
// an optional '-' (where sign_ok), digits, and where real_ok a fraction and an exponent.
#ifndef PONGRL_NUM_H
#define PONGRL_NUM_H

#include <stdbool.h>

static inline bool num_is_digit(char c) { return c >= '0' && c <= '9'; }

static inline bool num_plain(const char *s, bool sign_ok, bool real_ok) {
    if (*s == '-' && sign_ok) s++;
    int digits = 0;
    while (num_is_digit(*s)) {
        s++;
        digits++;
    }
    if (real_ok && *s == '.') {
        s++;
        while (num_is_digit(*s)) {
            s++;
            digits++;
        }
    }
    if (!digits) return false;
    if (real_ok && (*s == 'e' || *s == 'E')) {
        s++;
        if (*s == '-' || *s == '+') s++;
        if (!num_is_digit(*s)) return false;
        while (num_is_digit(*s)) s++;
    }
    return *s == 0;
}

#endif
