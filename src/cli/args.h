// args.h: strict parsing of flag values; a bad value ends the program with exit code 2 and
// one line naming the flag and what it accepts (die_usage).
#ifndef PONGRL_ARGS_H
#define PONGRL_ARGS_H

#include <stdbool.h>
#include <stdint.h>

// One line on stderr, "pongrl: ... (see --help)", and exit code 2: every usage error.
void die_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

// -h or --help: every subcommand takes both.
bool arg_is_help(const char *s);

long long arg_int(const char *flag, const char *s, long long lo, long long hi);
double arg_double(const char *flag, const char *s, double lo, double hi);
uint64_t arg_u64(const char *flag, const char *s);
// The preset id, checked against the known ones; Gymnasium's pongrl/<name> gives the preset it names.
const char *arg_env(const char *flag, const char *s);

#endif
