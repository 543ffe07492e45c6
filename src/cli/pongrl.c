// pongrl.c: build/pongrl's main: the command line (main.c's pongrl_main) with the built-in
// learners. A program with learners of its own registers them first, then calls the same.
#include "commands.h"

int main(int argc, char **argv) { return pongrl_main(argc, argv); }
