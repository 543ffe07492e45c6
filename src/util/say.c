// say.c: escaped messages (say.h).
#include "say.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

// Length of the well-formed UTF-8 sequence at s (2-4) that is not a C1 control, or 0.
static size_t utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (c >= 0xf5) n = 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (n == 2 && c == 0xc2 && s[1] < 0xa0) return 0;  // U+0080-U+009F: C1 controls (CSI is one)
    if (n == 3 && c == 0xe0 && s[1] < 0xa0) return 0;  // overlong
    if (n == 3 && c == 0xed && s[1] >= 0xa0) return 0; // surrogates
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0; // overlong, > U+10FFFF
    return n;
}

// The escaped form of the piece at s: its length in s (*used) and its text in out (<= 4 bytes).
static size_t piece(const unsigned char *s, size_t *used, char out[5]) {
    static const char hex[] = "0123456789abcdef";
    size_t n = s[0] >= 0x80 ? utf8_len(s) : 0;
    if (n) {
        memcpy(out, s, n);
        *used = n;
        return n;
    }
    *used = 1;
    if (s[0] == '\\') return memcpy(out, "\\\\", 2), 2;
    if (s[0] >= 0x20 && s[0] < 0x7f) return out[0] = (char)s[0], 1;
    out[0] = '\\', out[1] = 'x', out[2] = hex[s[0] >> 4], out[3] = hex[s[0] & 15];
    return 4;
}

const char *say_escape(const char *s, char *buf, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t total = 0, len = strlen(s), used;
    char p[5];
    for (size_t i = 0; i < len; i += used) total += piece(u + i, &used, p);
    // what fits: all of it, or a head and a tail of about (n - 4) / 2 bytes each around "..."
    size_t head = total < n ? total : (n - 4) / 2, k = 0, i = 0;
    for (size_t m; i < len && k + (m = piece(u + i, &used, p)) <= head; i += used) memcpy(buf + k, p, m), k += m;
    if (total >= n) {
        // the tail: skip pieces until what is left fits in the room after "..."
        size_t room = n - 1 - k - 3, left = total;
        size_t j = 0;
        for (size_t m; j < len && left > room; j += used) m = piece(u + j, &used, p), left -= m;
        if (j < i) j = i;
        memcpy(buf + k, "...", 3), k += 3;
        for (size_t m; j < len; j += used) m = piece(u + j, &used, p), memcpy(buf + k, p, m), k += m;
    }
    buf[k] = 0;
    return buf;
}

void say_vline(FILE *f, const char *prefix, const char *suffix, const char *fmt, va_list ap) {
    char raw[4 * SAY_LINE_MAX], line[SAY_LINE_MAX + 128];
    vsnprintf(raw, sizeof(raw), fmt, ap);
    char shown[SAY_LINE_MAX];
    int n = snprintf(line, sizeof(line), "%s%s%s\n", prefix, say_escape(raw, shown, sizeof(shown)), suffix);
    if (n < 0) return;
    if ((size_t)n >= sizeof(line)) n = (int)sizeof(line) - 1, line[n - 1] = '\n';
    fflush(f);
    for (const char *b = line; n > 0;) { // one write: the line of one process, whole
        ssize_t w = write(fileno(f), b, (size_t)n);
        if (w <= 0) break;
        b += w, n -= (int)w;
    }
}

void say_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say_vline(stderr, "pongrl: ", "", fmt, ap);
    va_end(ap);
}

void say_warning(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say_vline(stderr, "pongrl: warning: ", "", fmt, ap);
    va_end(ap);
}
