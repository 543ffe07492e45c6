// bench.h: speed measurements, printed as "name: value" lines (`pongrl bench ...`).
#ifndef PONGRL_BENCH_H
#define PONGRL_BENCH_H

// `pongrl bench env [--seconds S]`: agent steps/s and emulated frames/s of ALE/Pong-v5 on one
// core. argv holds the words after "bench" (non-flag words are ignored). Returns the exit code.
int bench_env(int argc, char **argv);

#endif
