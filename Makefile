# pongrl: distributed policy-gradient Pong from pixels, in C.
#
#   make            build build/pongrl, build/libpongrl.a and build/libpongrl.so
#   make train      install what is missing, build, train with the seed's recipe until the
#                   running mean reaches 0 (ARGS="..." adds or overrides flags)
#   make test       install what is missing, build, run every test
#   make bench      the random agent against the real game; speed measurements (name: value lines);
#                   then make bench-learners
#   make bench-learners  the seeds' recipe, PPO in C and examples/ppo_pong.py to a running mean of 0,
#                   one after the other on 2 cores (LEARNERS_ARGS="..." adds flags: bench/README.md)
#   make debug      build/debug/pongrl with AddressSanitizer and UndefinedBehaviorSanitizer
#   make fuzz       fuzz the checkpoint loader for a bounded time (libFuzzer)
#   PORTABLE=1      build without -march=native (for clusters of mixed CPUs)

CC      ?= cc
BUILD   := build
SHELL   := /bin/bash

# -ffp-contract=off: no fused multiply-add, so results are bit-identical on every x86-64 CPU
# (no -ffast-math either: it would let the compiler reorder sums). -fno-math-errno: sqrt() is
# the instruction, with no call for a negative argument to set errno, so loops with it vectorise
# (PPO's Adam); no code reads errno after a math function. -fno-trapping-math: no code looks at
# floating-point exception flags, so floor() and the conversion to int64 vectorise (the exact
# sum's gradsum_set/add). Neither changes a value: with them `train --seed 1 --iterations 150`
# still ends at weights crc32 ad25b5f5, and PPO's `--iterations 8 --workers 1` with ba78b58's
# defaults (now `--hidden 128 --value-hidden 0 --epochs 4 --minibatches 8 --lr 0.0005 --chunk 256
# --anneal-steps 7000000`) at 0c939c0f.
WARN    := -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter
BASE    := $(WARN) -D_GNU_SOURCE -pthread -fPIC -ffp-contract=off -fno-math-errno -fno-trapping-math -g
NATIVE  := $(if $(PORTABLE),,$(shell $(CC) -march=native -E -x c /dev/null >/dev/null 2>&1 && echo -march=native))
OPT     := -O3 $(NATIVE)
SAN     := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

MPI_CFLAGS := $(shell pkg-config --cflags mpi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs mpi-c 2>/dev/null)
ifneq ($(MPI_LIBS),)
MPI_DEF := -DHAVE_MPI
endif
# The files that read HAVE_MPI are rebuilt when Open MPI comes or goes (a `make` before
# scripts/setup.sh installed it would otherwise leave their MPI-less objects beside MPI ones):
# their flags are kept in a file that changes with them, as SDL2's below.
MPI_SRC   := $(shell grep -l HAVE_MPI src/*/*.c)
MPI_STAMP := $(BUILD)/mpi.flags
$(shell mkdir -p $(BUILD) && echo '$(MPI_DEF) $(MPI_CFLAGS) $(MPI_LIBS)' | cmp -s - $(MPI_STAMP) || \
        echo '$(MPI_DEF) $(MPI_CFLAGS) $(MPI_LIBS)' > $(MPI_STAMP))
# SDL2 (Debian's libsdl2-dev) is optional: with it `pongrl watch` opens a window, without it
# the binary says how to get one. Only the binary links it (src/media/window.c is kept out of
# the libraries), so the libraries and Python never need SDL.
SDL_CFLAGS := $(shell pkg-config --cflags sdl2 2>/dev/null)
SDL_LIBS   := $(shell pkg-config --libs sdl2 2>/dev/null)
ifneq ($(SDL_LIBS),)
SDL_DEF := -DHAVE_SDL
endif
WINDOW_SRC := src/media/window.c
# the window is rebuilt when SDL2 comes or goes: its flags are kept in a file that changes with them
SDL_STAMP := $(BUILD)/sdl.flags
$(shell mkdir -p $(BUILD) && echo '$(SDL_DEF) $(SDL_CFLAGS) $(SDL_LIBS)' | cmp -s - $(SDL_STAMP) || \
        echo '$(SDL_DEF) $(SDL_CFLAGS) $(SDL_LIBS)' > $(SDL_STAMP))
LIBS    := -lgif -lz -lm
CRIT    := $(shell pkg-config --cflags --libs criterion 2>/dev/null || echo -lcriterion)

LIB_SRC := $(filter-out $(WINDOW_SRC),$(sort $(wildcard src/pong/*.c src/env/*.c src/policy/*.c src/rl/*.c src/train/*.c src/algo/*.c src/algo/*/*.c src/media/*.c src/util/*.c)))
BIN_SRC := $(sort $(wildcard src/cli/*.c src/cluster/*.c)) $(WINDOW_SRC)
TEST_SRC:= $(sort $(wildcard tests/unit/*.c))
HDRS    := $(wildcard src/*/*.h src/*/*/*.h)

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
BIN_OBJ := $(BIN_SRC:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/san/%.o)
SAN_BIN_OBJ := $(BIN_SRC:%.c=$(BUILD)/san/%.o)

.PHONY: all setup train test test-run bench bench-learners debug fuzz fuzz-run clean
all: $(BUILD)/pongrl $(BUILD)/libpongrl.a $(BUILD)/libpongrl.so

setup:
	@scripts/setup.sh

$(BUILD)/obj/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(OPT) $(MPI_DEF) $(if $(filter src/cluster/% src/cli/%,$<),$(MPI_CFLAGS)) $(if $(filter $(WINDOW_SRC),$<),$(SDL_DEF) $(SDL_CFLAGS)) -c $< -o $@

# The version is written once, in python/pongrl/__init__.py; `pongrl --version` says the same.
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"$$/\1/p' python/pongrl/__init__.py)
$(BUILD)/obj/src/cli/main.o $(BUILD)/san/src/cli/main.o: BASE += -DPONGRL_VERSION='"$(VERSION)"'
$(BUILD)/obj/src/cli/main.o $(BUILD)/san/src/cli/main.o: python/pongrl/__init__.py

# The game's frame is byte arithmetic on its RAM, which the vectoriser packs into vector code
# that costs more than it saves: 25-31 ns a frame without it against 33-36 ns (alternating runs).
$(BUILD)/obj/src/pong/%.o: OPT += -fno-tree-vectorize

$(WINDOW_SRC:%.c=$(BUILD)/obj/%.o) $(WINDOW_SRC:%.c=$(BUILD)/san/%.o): $(SDL_STAMP)
$(foreach d,obj san hooks,$(MPI_SRC:%.c=$(BUILD)/$(d)/%.o)): $(MPI_STAMP)

$(BUILD)/san/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SAN) $(MPI_DEF) $(if $(filter src/cluster/% src/cli/%,$<),$(MPI_CFLAGS)) $(if $(filter $(WINDOW_SRC),$<),$(SDL_DEF) $(SDL_CFLAGS)) -c $< -o $@

$(BUILD)/libpongrl.a: $(LIB_OBJ)
	@rm -f $@; ar rcs $@ $^

$(BUILD)/libpongrl.so: $(LIB_OBJ)
	$(CC) -shared -pthread -o $@ $^ $(LIBS)

$(BUILD)/pongrl: $(BIN_OBJ) $(BUILD)/libpongrl.a
	$(CC) -pthread -o $@ $(BIN_OBJ) $(BUILD)/libpongrl.a $(MPI_LIBS) $(SDL_LIBS) $(LIBS)

$(BUILD)/san/libpongrl.a: $(SAN_LIB_OBJ)
	@rm -f $@; ar rcs $@ $^

# Unit tests are built with the sanitizers: every test run is an ASan/UBSan run.
$(BUILD)/test_unit: $(TEST_SRC) $(BUILD)/san/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(SAN) -Isrc -o $@ $(TEST_SRC) $(BUILD)/san/libpongrl.a $(CRIT) $(LIBS)

# The all-reduce on its own against an exact reference, under mpirun (test_mpi_allreduce.sh).
$(BUILD)/test_allreduce: tests/mpi/test_allreduce.c $(BUILD)/san/src/cluster/allreduce.o $(BUILD)/san/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(SAN) $(MPI_CFLAGS) -Isrc -o $@ $< $(BUILD)/san/src/cluster/allreduce.o $(BUILD)/san/libpongrl.a \
	    $(MPI_LIBS) $(LIBS)

# Test support, not in the product binary: episodes and one update exported as .npy for the
# NumPy reference tests (tests/py) and bench/seed_bench.py's comparison with the seed's code.
$(BUILD)/dump_episodes: tests/reference/dump_episodes.c $(BUILD)/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# One PPO batch and minibatch step exported for the NumPy reference (tests/py/test_ppo_reference.py).
$(BUILD)/ppo_dump: tests/reference/ppo_dump.c $(BUILD)/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# The MPI tests' fault injection (src/cluster/test_hooks.h) is compiled only into this copy of
# the binary: build/pongrl reads no test variable.
HOOK_OBJ := $(patsubst %.c,$(BUILD)/hooks/%.o,$(filter src/cluster/%,$(BIN_SRC)))
$(BUILD)/hooks/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(OPT) $(MPI_DEF) -DPONGRL_TEST_HOOKS $(MPI_CFLAGS) -c $< -o $@
$(BUILD)/pongrl-testhooks: $(filter-out $(BUILD)/obj/src/cluster/%,$(BIN_OBJ)) $(HOOK_OBJ) $(BUILD)/libpongrl.a
	$(CC) -pthread -o $@ $^ $(MPI_LIBS) $(SDL_LIBS) $(LIBS)

debug: $(BUILD)/debug/pongrl
$(BUILD)/debug/pongrl: $(SAN_BIN_OBJ) $(BUILD)/san/libpongrl.a
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=address,undefined -pthread -o $@ $(SAN_BIN_OBJ) $(BUILD)/san/libpongrl.a $(MPI_LIBS) $(SDL_LIBS) $(LIBS)

# Fuzz the checkpoint reader with clang's libFuzzer for FUZZ_SECS seconds. Seeds: a real
# checkpoint of the smallest network (H=1) and its header alone; new finds go to build/fuzz/corpus.
FUZZ_SECS ?= 60
$(BUILD)/fuzz/fuzz_checkpoint: tests/fuzz/fuzz_checkpoint.c $(LIB_SRC) $(HDRS) Makefile
	@mkdir -p $(dir $@)
	clang $(WARN) -D_GNU_SOURCE -pthread -ffp-contract=off -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -Isrc -o $@ $< $(LIB_SRC) $(LIBS)

fuzz:
	@scripts/setup.sh fuzz
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(BUILD)/fuzz/fuzz_checkpoint $(BUILD)/pongrl
	@rm -rf $(BUILD)/fuzz/run && mkdir -p $(BUILD)/fuzz/seeds $(BUILD)/fuzz/corpus
	@$(BUILD)/pongrl train --hidden 1 --batch-size 1 --iterations 1 --workers 1 --quiet --run-dir $(BUILD)/fuzz/run >/dev/null
	@cp $(BUILD)/fuzz/run/checkpoints/ckpt-00000001.bin $(BUILD)/fuzz/seeds/h1.bin
	@head -c 228 $(BUILD)/fuzz/seeds/h1.bin > $(BUILD)/fuzz/seeds/header.bin
	$(BUILD)/fuzz/fuzz_checkpoint -max_total_time=$(FUZZ_SECS) -max_len=110000 -print_final_stats=1 \
	    $(BUILD)/fuzz/corpus $(BUILD)/fuzz/seeds

# setup may have just installed Open MPI: MPI_LIBS is read afresh by the inner make.
test:
	@scripts/setup.sh test
	@$(MAKE) --no-print-directory test-run

test-run:
	@$(MAKE) --no-print-directory all $(BUILD)/test_unit $(BUILD)/debug/pongrl $(BUILD)/dump_episodes $(BUILD)/ppo_dump \
	    $(if $(MPI_LIBS),$(BUILD)/test_allreduce $(BUILD)/pongrl-testhooks)
	@tests/run.sh

train: setup
	@$(MAKE) --no-print-directory all
	$(BUILD)/pongrl train --target-reward 0 $(ARGS)

# Tools the docs quote: the random agent against the real game's table, the fidelity picture.
$(BUILD)/random_play_stats: tools/random_play_stats.c $(BUILD)/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)
$(BUILD)/fidelity_image: tools/fidelity_image.c $(BUILD)/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# The worker pool's round trip (bench/README.md: its waiting strategy against a condition variable alone).
$(BUILD)/workpool_bench: bench/workpool_bench.c $(BUILD)/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# The exact sum's conversions in the caches (bench/README.md: whether they vectorise on this CPU).
$(BUILD)/gradsum_bench: bench/gradsum_bench.c $(BUILD)/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

bench: setup
	@$(MAKE) --no-print-directory all $(BUILD)/random_play_stats $(BUILD)/dump_episodes $(BUILD)/workpool_bench $(BUILD)/gradsum_bench
	$(BUILD)/random_play_stats
	$(BUILD)/pongrl bench env
	/usr/bin/python3 bench/atari_vec_bench.py --repeat 3   # ALE's own beside it: PONGRL_ALE_VEC_BENCH, PONGRL_ALE_ROM
	set -o pipefail; $(BUILD)/pongrl bench train | tee $(BUILD)/bench_train.txt
	OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/seed_bench.py --dump $(BUILD)/dump_episodes --ours $(BUILD)/bench_train.txt
	$(BUILD)/pongrl bench cluster
	$(BUILD)/workpool_bench
	$(BUILD)/gradsum_bench
	@$(MAKE) --no-print-directory bench-learners

bench-learners: setup
	@$(MAKE) --no-print-directory all
	/usr/bin/python3 bench/learners.py $(LEARNERS_ARGS)

clean:
	rm -rf $(BUILD)
