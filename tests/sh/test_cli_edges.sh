#!/usr/bin/env bash
# Small ways to go wrong, each one line on stderr and a non-zero exit, nothing half-written:
# a flag missing its value at the end of the line; an empty --run-dir, --resume or --out (no
# silent run elsewhere); --workers far past the cores, refused at once; `plot` on a read-only
# run directory (no picture on stdout); `export` and `record` to a full disk (no partial file,
# the previous export left whole); --version, and -h/--help on every subcommand (its usage on
# stdout, nothing on stderr, exit 0). Under ASan+UBSan where built.
set -uo pipefail
bin=${PONGRL_BIN:-build/pongrl}
bin=$(realpath "$bin")
dbg="$(dirname "$bin")/debug/pongrl"
[ -x "$dbg" ] && bin=$dbg && echo "using $dbg (ASan+UBSan)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
tmp=$(mktemp -d)
trap 'for m in "$tmp/ro" "$tmp/full"; do mountpoint -q "$m" && umount "$m"; done; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
one_line() {  # rc-wanted pattern command...: exit status and one stderr line matching pattern
    local want=$1 pat=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    [ $rc = "$want" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q -- "$pat" "$tmp/err" ||
        fail "$*: rc $rc, want $want; stderr '$(cat "$tmp/err")', want '$pat'"
    echo "$(echo "$*" | sed "s|$tmp/||g; s|$bin|pongrl|") -> $(cat "$tmp/err")"
}
"$bin" train --hidden 4 --batch-size 1 --iterations 2 --quiet --workers 1 --run-dir "$tmp/run" >/dev/null || fail "train"
cd "$tmp"

# a flag without its value, last on the line
one_line 2 "--lr needs a value" "$bin" train --iterations 2 --lr
one_line 2 "--run-dir needs a value" "$bin" train --iterations 2 --run-dir
one_line 2 "--episodes needs a value" "$bin" eval run --episodes
one_line 2 "--out needs a value" "$bin" record run --out
one_line 2 "--out needs a value" "$bin" export run --out
# empty paths
one_line 2 "--run-dir needs a directory" "$bin" train --iterations 1 --hidden 4 --run-dir ''
one_line 2 "--resume needs a run directory" "$bin" train --resume ''
one_line 2 "--out needs" "$bin" export run --out ''
[ -e runs ] && fail "an empty --run-dir trained into runs/"
# far more worker threads than cores: refused before any memory is taken
t0=$(date +%s%N)
one_line 2 "--workers 1024: at most" "$bin" train --workers 1024 --iterations 1 --run-dir w
[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 3000 ] || fail "--workers 1024 took more than 3 s to refuse"
[ -e w ] && fail "--workers 1024 left a run directory"

# the version, as the Python package states it (python/pongrl/__init__.py: the one place)
want=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$OLDPWD/python/pongrl/__init__.py")
[ -n "$want" ] || fail "no __version__ in python/pongrl/__init__.py"
for v in --version version; do
    out=$("$bin" $v 2>"$tmp/err"); rc=$?
    [ $rc = 0 ] && [ "$out" = "pongrl $want" ] && [ ! -s "$tmp/err" ] || fail "pongrl $v: rc $rc, '$out', want 'pongrl $want'"
done
# -h and --help on every subcommand, wherever they stand
for c in train eval record watch plot export import "bench env" "bench train" "bench cluster"; do
    for h in -h --help; do
        "$bin" $c $h >"$tmp/out" 2>"$tmp/err"; rc=$?
        [ $rc = 0 ] && grep -q "^usage: pongrl $c" "$tmp/out" && [ ! -s "$tmp/err" ] ||
            fail "pongrl $c $h: rc $rc, stdout '$(head -1 "$tmp/out")', stderr '$(cat "$tmp/err")'"
    done
done
for c in eval record watch export; do
    "$bin" $c run -h >"$tmp/out" 2>&1 && grep -q "^usage: pongrl $c" "$tmp/out" || fail "pongrl $c MODEL -h"
done
# eval, record and watch read one table of flags: each refuses another's flag, and says which
one_line 2 "eval: unknown option '--out'" "$bin" eval run --out x.gif
one_line 2 "record: unknown option '--episodes'" "$bin" record run --out x.gif --episodes 3
one_line 2 "watch: unknown option '--workers'" "$bin" watch run --workers 2

if [ "$(id -u)" = 0 ] && mkdir -p ro full && mount --bind run ro 2>/dev/null && mount -o remount,bind,ro ro 2>/dev/null; then
    one_line 1 "Read-only file system" "$bin" plot ro
    [ -s "$tmp/out" ] && fail "plot on a read-only run wrote $(wc -c < "$tmp/out") bytes to stdout"
    umount ro
    mount -t tmpfs -o size=1m tmpfs full || fail "tmpfs"
    "$bin" export run --out full/npy >/dev/null || fail "a small export"
    sum=$(cat full/npy/W1.npy full/npy/W2.npy | sha256sum)
    # H=200: W1.npy is 10 MB, more than the disk holds
    one_line 1 "No space left on device" "$bin" export "$OLDPWD/models/pong-v5" --out full/npy --force
    [ "$(ls full/npy | tr '\n' ' ')" = "W1.npy W2.npy " ] || fail "export to a full disk left $(ls full/npy | tr '\n' ' ')"
    [ "$(cat full/npy/W1.npy full/npy/W2.npy | sha256sum)" = "$sum" ] || fail "export to a full disk changed the previous export"
    dd if=/dev/zero of=full/filler bs=64k 2>/dev/null      # the disk is now full
    one_line 1 "No space left on device\|disk full" "$bin" record run --out full/game.gif --max-steps 2000
    [ "$(ls full | tr '\n' ' ')" = "filler npy " ] || fail "record to a full disk left $(ls full | tr '\n' ' ')"
    umount full
else
    echo "note: cannot mount here (not root, or no mount permission): read-only and full-disk cases skipped"
fi
echo ok
