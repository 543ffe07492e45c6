// say.h: the one way pongrl speaks of what it was given. A message names paths, flag values,
// env ids and settings read from files, any of which may hold bytes a terminal acts on (ESC
// sequences that clear the screen or retitle the window, CR that overwrites the line, a newline
// that forges a second message). Every such string reaches the user through here: control bytes,
// DEL, C1 controls and bytes that are not UTF-8 are shown as \xNN (a backslash as \\), and a
// long text keeps its start and its end around "...", so that the reason after a long path
// survives. Errors and warnings go to stderr as one line "pongrl: ...\n" in one write(2), so that
// lines of several processes (MPI ranks) never interleave.
#ifndef PONGRL_SAY_H
#define PONGRL_SAY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define SAY_LINE_MAX 2048 // bytes of one message shown, escapes included

// s escaped into buf (n bytes, n >= 16), cut in the middle if it does not fit; returns buf.
const char *say_escape(const char *s, char *buf, size_t n);

// "pongrl: " + the formatted message, escaped, + "\n" on stderr.
void say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// "pongrl: warning: " + the formatted message, escaped, + "\n" on stderr.
void say_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// prefix (trusted, not escaped) + the formatted message, escaped, + suffix (trusted) to f.
void say_vline(FILE *f, const char *prefix, const char *suffix, const char *fmt, va_list ap);

#endif
