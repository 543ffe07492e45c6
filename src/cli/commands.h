// commands.h: the subcommands of build/pongrl. Each returns the process exit status:
// 0 success, 1 failure at run time, 2 bad usage.
#ifndef PONGRL_COMMANDS_H
#define PONGRL_COMMANDS_H

// The whole of `pongrl ARGS` (main.c): build/pongrl's main is this call alone (pongrl.c), and a
// program that adds learners of its own (algo.h's algo_register) calls it after adding them.
int pongrl_main(int argc, char **argv);

int cmd_train(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
// `pongrl bench ...`: speed measurements, printed as "name: value" lines. argv holds the
// words after "bench".
int bench_env(int argc, char **argv);     // agent steps/s and emulated frames/s on one core
int bench_train(int argc, char **argv);   // network and training speed, against Karpathy's NumPy code
int bench_cluster(int argc, char **argv); // the MPI transport's share of an iteration

#endif
