# pongrl: distributed policy-gradient Pong from pixels, in C.
#
#   make            build build/pongrl, build/libpongrl.a and build/libpongrl.so (without Open MPI:
#                   all but the cluster transport; it says so)
#   make install    PREFIX=/usr/local DESTDIR=: headers under include/pongrl/, both libraries, pongrl.pc
#   make train      install what is missing, build, train with Karpathy's recipe until the
#                   running mean reaches 0 (ARGS="..." adds or overrides flags)
#   make test       install what is missing, build, run every test
#   make bench      the random agent against the real game; speed measurements (name: value lines);
#                   then make bench-learners
#   make bench-learners  Karpathy's recipe, PPO in C and examples/ppo_pong.py to a running mean of 0,
#                   one after the other on 2 cores (LEARNERS_ARGS="..." adds flags: bench/README.md)
#   make debug      build/debug/pongrl with AddressSanitizer and UndefinedBehaviorSanitizer
#   make format     apply the formatters (clang-format, black) that make test checks
#   make fuzz       fuzz the checkpoint, model.txt and .npy readers for a bounded time (libFuzzer)
#   PORTABLE=1      build without -march=native (for clusters of mixed CPUs)
#   ARCH=x86-64-v2  build for that baseline instead of this CPU (what `pip install ./python` builds,
#                   in build/python/: a package that runs on any x86-64 machine of the baseline)

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
NATIVE  := $(if $(ARCH),-march=$(ARCH),$(if $(PORTABLE),,$(shell $(CC) -march=native -E -x c /dev/null >/dev/null 2>&1 && echo -march=native)))
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

LIB_SRC := $(filter-out $(WINDOW_SRC),$(sort $(wildcard src/pong/*.c src/env/*.c src/rl/*.c src/train/*.c src/algo/*.c src/algo/*/*.c src/media/*.c src/util/*.c)))
BIN_SRC := $(sort $(wildcard src/cli/*.c src/cluster/*.c)) $(WINDOW_SRC)
# Without Open MPI the binary is built without the cluster transport (cluster.c's stand-ins say
# how to get it); allreduce.c is MPI through and through, so it is left out rather than guarded.
ifeq ($(MPI_LIBS),)
BIN_SRC := $(filter-out src/cluster/allreduce.c,$(BIN_SRC))
endif
TEST_SRC:= $(sort $(wildcard tests/unit/*.c))
TEST_HDRS:= $(wildcard tests/unit/*.h)
# Each object depends on the headers it includes, as the compiler lists them (-MMD -MP: a .d
# file beside the object, read back below; a header that goes away is no error). The unit tests
# and the fuzzer are built from many sources in one command, where gcc lists only the last
# one's headers: they depend on every header (and every table a header includes, *.def) instead.
HDRS    := $(wildcard src/*/*.h src/*/*/*.h src/*/*.def)
DEP     := -MMD -MP

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
BIN_OBJ := $(BIN_SRC:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/san/%.o)
SAN_BIN_OBJ := $(BIN_SRC:%.c=$(BUILD)/san/%.o)

.PHONY: all setup train test test-run bench bench-versus bench-learners debug fuzz fuzz-run clean install uninstall format
all: $(BUILD)/pongrl $(BUILD)/libpongrl.a $(BUILD)/libpongrl.so
ifeq ($(MPI_LIBS),)
	@echo "make: built without MPI (pkg-config finds no mpi-c): everything works but the cluster" \
	      "(mpirun ... pongrl train, pongrl bench cluster); make setup (or apt-get install libopenmpi-dev)," \
	      "then make, adds it"
endif

# What every object needs and a fresh machine may lack: one line that says what to install,
# instead of the compiler's first missing header.
$(BUILD)/deps.ok:
	@mkdir -p $(dir $@)
	@command -v $(firstword $(CC)) >/dev/null || \
	     { echo "pongrl: cannot build: no C compiler '$(firstword $(CC))' (make setup installs gcc, or apt-get install gcc)" >&2; exit 1; }
	@missing=""; \
	 printf '#include <zlib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing zlib1g-dev"; \
	 printf '#include <gif_lib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing libgif-dev"; \
	 if [ -n "$$missing" ]; then \
	     echo "pongrl: cannot build: missing$$missing (make setup installs them, or apt-get install$$missing)" >&2; \
	     exit 1; \
	 fi; touch $@
$(LIB_OBJ) $(SAN_LIB_OBJ) $(BIN_OBJ) $(SAN_BIN_OBJ): | $(BUILD)/deps.ok

setup:
	@scripts/setup.sh

$(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(DEP) $(OPT) $(MPI_DEF) $(if $(filter src/cluster/% src/cli/%,$<),$(MPI_CFLAGS)) $(if $(filter $(WINDOW_SRC),$<),$(SDL_DEF) $(SDL_CFLAGS)) -c $< -o $@

# The version is written once, in python/pongrl/__init__.py; `pongrl --version` says the same.
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"$$/\1/p' python/pongrl/__init__.py)
$(BUILD)/obj/src/cli/main.o $(BUILD)/san/src/cli/main.o: BASE += -DPONGRL_VERSION='"$(VERSION)"'
$(BUILD)/obj/src/cli/main.o $(BUILD)/san/src/cli/main.o: python/pongrl/__init__.py

# The game's frame is byte arithmetic on its RAM, which the vectoriser packs into vector code
# that costs more than it saves: 25-31 ns a frame without it against 33-36 ns (alternating runs).
$(BUILD)/obj/src/pong/%.o: OPT += -fno-tree-vectorize

$(WINDOW_SRC:%.c=$(BUILD)/obj/%.o) $(WINDOW_SRC:%.c=$(BUILD)/san/%.o): $(SDL_STAMP)
$(foreach d,obj san hooks,$(MPI_SRC:%.c=$(BUILD)/$(d)/%.o)): $(MPI_STAMP)

$(BUILD)/san/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(DEP) $(SAN) $(MPI_DEF) $(if $(filter src/cluster/% src/cli/%,$<),$(MPI_CFLAGS)) $(if $(filter $(WINDOW_SRC),$<),$(SDL_DEF) $(SDL_CFLAGS)) -c $< -o $@

$(BUILD)/libpongrl.a: $(LIB_OBJ)
	@rm -f $@; ar rcs $@ $^

# The shared library names its ABI's major version (SONAME libpongrl.so.0 while the version is
# 0.x): a program linked with -lpongrl asks the loader for libpongrl.so.0, which `make install`
# lays down as a link to libpongrl.so.$(VERSION), beside the link libpongrl.so that -lpongrl finds.
SO_MAJOR := $(firstword $(subst ., ,$(VERSION)))
$(BUILD)/libpongrl.so: $(LIB_OBJ)
	$(CC) -shared -pthread -Wl,-soname,libpongrl.so.$(SO_MAJOR) -o $@ $^ $(LIBS)
	@ln -sf libpongrl.so $(BUILD)/libpongrl.so.$(SO_MAJOR)

$(BUILD)/pongrl: $(BIN_OBJ) $(BUILD)/libpongrl.a
	$(CC) -pthread -o $@ $(BIN_OBJ) $(BUILD)/libpongrl.a $(MPI_LIBS) $(SDL_LIBS) $(LIBS)

$(BUILD)/san/libpongrl.a: $(SAN_LIB_OBJ)
	@rm -f $@; ar rcs $@ $^

# Unit tests are built with the sanitizers: every test run is an ASan/UBSan run.
$(BUILD)/test_unit: $(TEST_SRC) $(TEST_HDRS) $(BUILD)/san/libpongrl.a $(HDRS)
	$(CC) $(BASE) $(SAN) -Isrc -o $@ $(TEST_SRC) $(BUILD)/san/libpongrl.a $(CRIT) $(LIBS)

# The all-reduce on its own against an exact reference, under mpirun (test_mpi_allreduce.sh).
$(BUILD)/test_allreduce: tests/mpi/test_allreduce.c $(BUILD)/san/src/cluster/allreduce.o $(BUILD)/san/libpongrl.a
	$(CC) $(BASE) $(DEP) $(SAN) $(MPI_CFLAGS) -Isrc -o $@ $< $(BUILD)/san/src/cluster/allreduce.o $(BUILD)/san/libpongrl.a \
	    $(MPI_LIBS) $(LIBS)

# Test support, not in the product binary: episodes and one update exported as .npy for the
# NumPy reference tests (tests/py) and bench/karpathy_bench.py's comparison with Karpathy's code.
$(BUILD)/dump_episodes: tests/reference/dump_episodes.c $(BUILD)/libpongrl.a
	$(CC) $(BASE) $(DEP) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# One PPO batch and minibatch step exported for the NumPy reference (tests/py/test_ppo_reference.py).
$(BUILD)/ppo_dump: tests/reference/ppo_dump.c $(BUILD)/libpongrl.a
	$(CC) $(BASE) $(DEP) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# One QR-DQN update exported for the NumPy reference (tests/py/test_qrdqn_reference.py).
$(BUILD)/qrdqn_dump: tests/reference/qrdqn_dump.c $(BUILD)/libpongrl.a
	$(CC) $(BASE) $(DEP) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# The MPI tests' fault injection (src/cluster/test_hooks.h) is compiled only into this copy of
# the binary: build/pongrl reads no test variable.
HOOK_OBJ := $(patsubst %.c,$(BUILD)/hooks/%.o,$(filter src/cluster/%,$(BIN_SRC)))
$(BUILD)/hooks/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(DEP) $(OPT) $(MPI_DEF) -DPONGRL_TEST_HOOKS $(MPI_CFLAGS) -c $< -o $@
$(BUILD)/pongrl-testhooks: $(filter-out $(BUILD)/obj/src/cluster/%,$(BIN_OBJ)) $(HOOK_OBJ) $(BUILD)/libpongrl.a
	$(CC) -pthread -o $@ $^ $(MPI_LIBS) $(SDL_LIBS) $(LIBS)

# A program with a learner of its own: the pongrl command line under the sanitizers, plus the
# test tree's learner (tests/learner/linear.c), which its main.c registers before the arguments
# are parsed (algo.h's algo_register). No file of src/ names it (tests/sh/test_own_learner.sh).
TESTLEARNER_SRC := $(sort $(wildcard tests/learner/*.c))
TESTLEARNER_OBJ := $(filter-out $(BUILD)/san/src/cli/pongrl.o,$(SAN_BIN_OBJ)) $(BUILD)/san/libpongrl.a
$(BUILD)/pongrl-testlearner: $(TESTLEARNER_SRC) $(wildcard tests/learner/*.h) $(TESTLEARNER_OBJ) $(HDRS)
	$(CC) $(BASE) $(SAN) -Isrc -o $@ $(TESTLEARNER_SRC) $(TESTLEARNER_OBJ) $(MPI_LIBS) $(SDL_LIBS) $(LIBS)

debug: $(BUILD)/debug/pongrl
$(BUILD)/debug/pongrl: $(SAN_BIN_OBJ) $(BUILD)/san/libpongrl.a
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=address,undefined -pthread -o $@ $(SAN_BIN_OBJ) $(BUILD)/san/libpongrl.a $(MPI_LIBS) $(SDL_LIBS) $(LIBS)

# Fuzz the readers of what a user hands pongrl with clang's libFuzzer, FUZZ_SECS seconds each:
# the checkpoint (seeds: a real checkpoint of the smallest network, H=1, and its header alone),
# model.txt (the shipped PPO model's) and .npy (an export's W2.npy and the PPO model's arrays).
# New finds go to build/fuzz/corpus-<reader>.
FUZZ_SECS ?= 60
FUZZ_TARGETS := checkpoint model_txt npy
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_SRC) $(HDRS) Makefile
	@mkdir -p $(dir $@)
	clang $(WARN) -D_GNU_SOURCE -pthread -ffp-contract=off -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -Isrc -o $@ $< $(LIB_SRC) $(LIBS)

fuzz:
	@scripts/setup.sh fuzz
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%) $(BUILD)/pongrl
	@rm -rf $(BUILD)/fuzz/run $(BUILD)/fuzz/npy && mkdir -p $(FUZZ_TARGETS:%=$(BUILD)/fuzz/seeds-%) $(FUZZ_TARGETS:%=$(BUILD)/fuzz/corpus-%)
	@$(BUILD)/pongrl train --hidden 1 --batch-size 1 --iterations 1 --workers 1 --quiet --run-dir $(BUILD)/fuzz/run >/dev/null
	@cp $(BUILD)/fuzz/run/checkpoints/ckpt-00000001.bin $(BUILD)/fuzz/seeds-checkpoint/h1.bin
	@head -c 228 $(BUILD)/fuzz/seeds-checkpoint/h1.bin > $(BUILD)/fuzz/seeds-checkpoint/header.bin
	@cp models/pong-v5-ppo/model.txt $(BUILD)/fuzz/seeds-model_txt/
	@$(BUILD)/pongrl export $(BUILD)/fuzz/run --out $(BUILD)/fuzz/npy >/dev/null
	@cp $(BUILD)/fuzz/npy/W2.npy $(BUILD)/fuzz/seeds-npy/ && cp models/pong-v5-ppo/ppo_bv.npy models/pong-v5-ppo/ppo_bpi.npy $(BUILD)/fuzz/seeds-npy/
	@for t in $(FUZZ_TARGETS); do \
	    echo "== fuzz_$$t, $(FUZZ_SECS) s"; \
	    $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECS) -max_len=$$([ $$t = checkpoint ] && echo 110000 || echo 70000) \
	        -print_final_stats=1 $(BUILD)/fuzz/corpus-$$t $(BUILD)/fuzz/seeds-$$t || exit 1; \
	done

# ----------------------------------------------------------------------------
# make install PREFIX=... DESTDIR=...: the binary, both libraries, the public headers as
# <pongrl/env.h>, <pongrl/vecenv.h>, ... and lib/pkgconfig/pongrl.pc. The headers are flat under
# include/pongrl/, so their `#include "../pong/pong.h"` become `#include "pong.h"` on the way.
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
PUB_HDRS := src/env/env.h src/env/vecenv.h src/env/atari_prep.h src/env/abi.h src/pong/pong.h src/util/rng.h
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/pongrl $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 755 $(BUILD)/pongrl $(DESTDIR)$(PREFIX)/bin/pongrl
	install -m 644 $(BUILD)/libpongrl.a $(DESTDIR)$(LIBDIR)/libpongrl.a
	install -m 755 $(BUILD)/libpongrl.so $(DESTDIR)$(LIBDIR)/libpongrl.so.$(VERSION)
	ln -sf libpongrl.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libpongrl.so.$(SO_MAJOR)
	ln -sf libpongrl.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libpongrl.so
	for h in $(PUB_HDRS); do \
	    sed 's|^#include "\.\./[a-z]*/\([a-z_]*\.h\)"|#include "\1"|' $$h > $(DESTDIR)$(PREFIX)/include/pongrl/$$(basename $$h) \
	        && chmod 644 $(DESTDIR)$(PREFIX)/include/pongrl/$$(basename $$h) || exit 1; \
	done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' pongrl.pc.in \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/pongrl.pc
	@# the loader's cache, so that a program linked against $(LIBDIR) finds it at once
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/pongrl $(DESTDIR)$(LIBDIR)/libpongrl.a $(DESTDIR)$(LIBDIR)/libpongrl.so \
	    $(DESTDIR)$(LIBDIR)/libpongrl.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libpongrl.so.$(VERSION) \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/pongrl.pc $(addprefix $(DESTDIR)$(PREFIX)/include/pongrl/,$(notdir $(PUB_HDRS)))
	-rmdir $(DESTDIR)$(PREFIX)/include/pongrl

# The tree as its formatters write it: clang-format (.clang-format) for C, black (pyproject.toml)
# for Python. tests/sh/test_format.sh, in `make test`, checks it.
FORMAT_C  = $(shell find src tests examples tools bench -name '*.[ch]' | sort)
FORMAT_PY = $(shell find python tests tools bench examples -name '*.py' -not -path '*/build/*' | sort)
format:
	@scripts/setup.sh format
	clang-format -i $(FORMAT_C)
	black -q $(FORMAT_PY)

# setup may have just installed Open MPI: MPI_LIBS is read afresh by the inner make.
test:
	@scripts/setup.sh test
	@$(MAKE) --no-print-directory test-run

test-run:
	@$(MAKE) --no-print-directory all $(BUILD)/test_unit $(BUILD)/debug/pongrl $(BUILD)/dump_episodes $(BUILD)/ppo_dump \
	    $(BUILD)/qrdqn_dump $(BUILD)/pongrl-testlearner $(if $(MPI_LIBS),$(BUILD)/test_allreduce $(BUILD)/pongrl-testhooks)
	@tests/run.sh

train: setup
	@$(MAKE) --no-print-directory all
	$(BUILD)/pongrl train --target-reward 0 $(ARGS)

# Tools the docs quote: the random agent against the real game's table, the fidelity picture.
$(BUILD)/random_play_stats: tools/random_play_stats.c $(BUILD)/libpongrl.a
	$(CC) $(BASE) $(DEP) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)
$(BUILD)/fidelity_image: tools/fidelity_image.c $(BUILD)/libpongrl.a
	$(CC) $(BASE) $(DEP) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# The worker pool's round trip (bench/README.md: its waiting strategy against a condition variable alone).
$(BUILD)/workpool_bench: bench/workpool_bench.c $(BUILD)/libpongrl.a
	$(CC) $(BASE) $(DEP) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# The exact sum's conversions in the caches (bench/README.md: whether they vectorise on this CPU).
$(BUILD)/gradsum_bench: bench/gradsum_bench.c $(BUILD)/libpongrl.a
	$(CC) $(BASE) $(DEP) $(OPT) -Isrc -o $@ $< $(BUILD)/libpongrl.a $(LIBS)

# The thread-scaling table of `make bench`; SCALING_BINS=OLD,build/pongrl puts another build beside
# this one, their runs alternating (bench/scaling.py).
SCALING_BINS ?= $(BUILD)/pongrl
bench: setup
	@$(MAKE) --no-print-directory all $(BUILD)/random_play_stats $(BUILD)/dump_episodes $(BUILD)/workpool_bench $(BUILD)/gradsum_bench
	$(BUILD)/random_play_stats
	$(BUILD)/pongrl bench env
	/usr/bin/python3 bench/atari_vec_bench.py --repeat 3   # ALE's own beside it: PONGRL_ALE_VEC_BENCH, PONGRL_ALE_ROM
	set -o pipefail; $(BUILD)/pongrl bench train | tee $(BUILD)/bench_train.txt
	OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/karpathy_bench.py --dump $(BUILD)/dump_episodes --ours $(BUILD)/bench_train.txt
	$(BUILD)/pongrl bench cluster
	$(BUILD)/workpool_bench
	$(BUILD)/gradsum_bench
	/usr/bin/python3 bench/scaling.py --bin $(SCALING_BINS)
	@$(MAKE) --no-print-directory bench-versus
	@$(MAKE) --no-print-directory bench-learners

# PPO's defaults, this build beside SPEED_BASE's (built from the repository's history by
# bench/build_rev.sh), alternated 3 times a worker count; the last row is the ratio.
SPEED_BASE ?= e863d33
bench-versus: setup
	@$(MAKE) --no-print-directory all
	bench/build_rev.sh $(SPEED_BASE) $(BUILD)/rev-$(SPEED_BASE)/pongrl
	/usr/bin/python3 bench/scaling.py --bin $(BUILD)/rev-$(SPEED_BASE)/pongrl,$(BUILD)/pongrl --only "ppo defaults" --rounds 3 --iterations 40

bench-learners: setup
	@$(MAKE) --no-print-directory all
	/usr/bin/python3 bench/learners.py $(LEARNERS_ARGS)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
