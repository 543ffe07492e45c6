// commands.h: the subcommands of build/pongrl. Each returns the process exit status:
// 0 success, 1 failure at run time, 2 bad usage.
#ifndef PONGRL_COMMANDS_H
#define PONGRL_COMMANDS_H

int cmd_train(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int bench_env(int argc, char **argv);
int bench_train(int argc, char **argv);
int bench_cluster(int argc, char **argv);   // src/cluster/bench_cluster.c

// One line on stderr, "pongrl: ...", for every error a user can cause.
void die_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
