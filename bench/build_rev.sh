#!/bin/sh
# bench/build_rev.sh REV [OUT]: pongrl's binary as it was at git revision REV (a hash, a tag, a
# branch), built from that revision's own sources and Makefile in a scratch folder, into OUT
# (default build/rev-REV/pongrl), to time beside today's: bench/scaling.py --bin OUT,build/pongrl.
# Build flags: that revision's defaults (PORTABLE=1 and the like pass through MAKEFLAGS-style
# arguments after OUT, e.g. `bench/build_rev.sh e863d33 build/base/pongrl PORTABLE=1`).
set -eu
[ $# -ge 1 ] || { echo "usage: bench/build_rev.sh REV [OUT] [MAKE ARGS...]" >&2; exit 2; }
rev=$1
shift
out=${1:-build/rev-$rev/pongrl}
[ $# -ge 1 ] && shift
hash=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "pongrl: bench/build_rev.sh: no revision '$rev' in this repository (a fresh clone has the whole history; a shallow one may not)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pongrl-rev-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
git archive "$hash" | tar -x -C "$tmp"
make -C "$tmp" -j"$(nproc)" "$@" build/pongrl >"$tmp.log" 2>&1 || { tail -5 "$tmp.log" >&2; rm -f "$tmp.log"; echo "pongrl: bench/build_rev.sh: $rev did not build (its make output above)" >&2; exit 1; }
rm -f "$tmp.log"
mkdir -p "$(dirname "$out")"
cp "$tmp/build/pongrl" "$out.tmp" && mv "$out.tmp" "$out"
echo "$out: pongrl at $(git rev-parse --short "$hash")"
