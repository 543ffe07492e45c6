#!/usr/bin/env bash
# `make` on a machine without Open MPI (pkg-config told mpi-c is absent, as on a fresh Debian):
# it builds the binary and both libraries without mpi.h, says in one line that the cluster is
# left out and how to get it, and the binary's cluster commands then say the same; a machine
# without a library every object needs gets one line naming the package, not a compiler error.
# The build goes to a temporary folder at -O0 (the flags do not matter here, the time does).
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
one_line() {  # $1 want rc (or "nonzero"), $2 rc, $3 stderr, $4 what
    if [ "$1" = nonzero ]; then [ "$2" != 0 ]; else [ "$2" = "$1" ]; fi && [ -n "$3" ] \
        && [ "$(printf '%s\n' "$3" | wc -l)" = 1 ] || fail "$4: rc=$2 '$3'"
    echo "$4: rc=$2: $3"
}

# a pkg-config that knows no MPI and passes every other question to the real one (if any)
mkdir "$tmp/bin"
cat > "$tmp/bin/pkg-config" <<EOF
#!/bin/sh
for a in "\$@"; do case "\$a" in *mpi*) exit 1;; esac; done
real=\$(PATH="$PATH" command -v pkg-config) || exit 1
exec "\$real" "\$@"
EOF
chmod +x "$tmp/bin/pkg-config"

out=$(PATH="$tmp/bin:$PATH" nice make --no-print-directory -j2 BUILD="$tmp/b" OPT=-O0 all 2>&1); rc=$?
[ $rc = 0 ] || { echo "$out" | tail -20; fail "make without MPI failed (rc=$rc)"; }
note=$(echo "$out" | grep 'built without MPI')
echo "$note"
[ "$(echo "$note" | wc -l)" = 1 ] || fail "make did not say, in one line, that MPI was left out"
echo "$note" | grep -q 'make setup' && echo "$note" | grep -q libopenmpi-dev || fail "the note does not say how to get MPI"
echo "$out" | grep -q 'mpi\.h' && fail "something still included mpi.h: $(echo "$out" | grep 'mpi\.h')"
for f in pongrl libpongrl.a libpongrl.so; do [ -s "$tmp/b/$f" ] || fail "make built no $f"; done
[ -e "$tmp/b/obj/src/cluster/allreduce.o" ] && fail "allreduce.c was compiled without MPI"
ldd "$tmp/b/pongrl" | grep -q libmpi && fail "the binary links libmpi"

# the binary works, and its cluster parts say how to get them
b=$tmp/b/pongrl
"$b" train --hidden 4 --batch-size 1 --iterations 1 --workers 1 --quiet --run-dir "$tmp/run" >/dev/null \
    || fail "the MPI-less binary does not train"
err=$("$b" bench cluster 2>&1 >/dev/null); one_line 1 $? "$err" "bench cluster"
echo "$err" | grep -q libopenmpi-dev || fail "bench cluster does not say how to get MPI"
err=$(OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$b" train --iterations 1 --run-dir "$tmp/run2" 2>&1 >/dev/null)
one_line nonzero $? "$err" "train under mpirun"
echo "$err" | grep -q 'built without MPI.*libopenmpi-dev' || fail "train under mpirun does not say how to get MPI"

# a machine without giflib's header: one line that names the package, before any compiling
real_cc=$(command -v "${CC:-cc}") || fail "no C compiler"
cat > "$tmp/bin/cc" <<EOF
#!/bin/sh
case " \$* " in *" -E "*) in=\$(cat); case "\$in" in *gif_lib.h*) exit 1;; esac
                          printf '%s\n' "\$in" | exec "$real_cc" "\$@";; esac
exec "$real_cc" "\$@"
EOF
chmod +x "$tmp/bin/cc"
err=$(PATH="$tmp/bin:$PATH" make --no-print-directory BUILD="$tmp/c" CC="$tmp/bin/cc" all 2>&1 >/dev/null)
rc=$?
err=$(echo "$err" | grep -Ev '^make(\[[0-9]+\])?: \*\*\*')
one_line nonzero $rc "$err" "make without libgif-dev"
echo "$err" | grep -q '^pongrl: cannot build: missing libgif-dev (make setup' || fail "the line does not name libgif-dev"
[ -e "$tmp/c/obj" ] && fail "make compiled something before saying what is missing"
# a machine without a C compiler: the same, naming gcc
err=$(make --no-print-directory BUILD="$tmp/d" CC="$tmp/no-such-cc" all 2>&1 >/dev/null); rc=$?
err=$(echo "$err" | grep -Ev '^make(\[[0-9]+\])?: \*\*\*')
one_line nonzero $rc "$err" "make without a compiler"
echo "$err" | grep -q "^pongrl: cannot build: no C compiler .*apt-get install gcc" || fail "the line does not name gcc"
echo "ok"
