#!/usr/bin/env bash
# Bad checkpoints and bad places: a truncated, corrupted, newer-version, wrong-shape, foreign
# (PNG) or empty file is refused with one line on stderr saying which, a non-zero exit and no
# crash (under ASan+UBSan when build/debug/pongrl exists); a full disk or a read-only run
# directory ends the run with one clear line and leaves the last good checkpoint as it was.
set -uo pipefail
source "$(dirname "$0")/debug_bin.sh"
tmp=$(mktemp -d); trap 'mountpoint -q "$tmp/mnt" && umount "$tmp/mnt"; rm -rf "$tmp"' EXIT

"$bin" train --hidden 4 --batch-size 1 --iterations 2 --quiet --workers 1 --run-dir "$tmp/run" >/dev/null || fail "train"
good="$tmp/run/checkpoints/ckpt-00000002.bin"
size=$(stat -c %s "$good")
# the layout (checkpoint.h): the header's size at 12, the settings text's at 16, then the text,
# the counters (48 bytes), D, H, n
read hb st <<<"$("$py" -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); print(*struct.unpack_from("<II", b, 12))' "$good")"
[ "$size" = $((hb + 2 * 8 * (6400 * 4 + 4) + 4)) ] || fail "checkpoint size $size (header $hb)"
shape=$((20 + st + 48))

# a copy of the good file with bytes replaced at an offset; fix=1 recomputes the CRC so that
# only the check behind it can refuse the file
patch() {  # out offset struct-format value fix
    "$py" - "$good" "$@" <<'PY'
import struct, sys, zlib
src, out, off, fmt, val, fix = sys.argv[1:]
b = bytearray(open(src, 'rb').read())
struct.pack_into(fmt, b, int(off), int(val))
if fix == '1':
    struct.pack_into('<I', b, len(b) - 4, zlib.crc32(bytes(b[:-4])))
open(out, 'wb').write(b)
PY
}
head -c 1000 "$good" > "$tmp/trunc.bin"
head -c $((size - 1)) "$good" > "$tmp/trunc1.bin"
head -c 100 "$good" > "$tmp/trunchdr.bin"
patch "$tmp/flip.bin" 5000 '<B' 255 0
patch "$tmp/crcbyte.bin" $((size - 1)) '<B' 0 0
patch "$tmp/version.bin" 8 '<I' 4 1
patch "$tmp/hidden.bin" $((shape + 4)) '<i' 5 1   # shape H=5 with n and config saying 4
patch "$tmp/n.bin" $((shape + 8)) '<Q' 999 1      # n inconsistent with D*H+H
patch "$tmp/hugeH.bin" $((shape + 4)) '<i' 2000000000 1   # absurd H: refused before any allocation
"$py" - "$good" "$tmp/cfgH.bin" <<'PY'                # config hidden differs from the weights'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.index(b'\nhidden=4\n')
b[i:i + 10] = b'\nhidden=7\n'
struct.pack_into('<I', b, len(b) - 4, zlib.crc32(bytes(b[:-4])))
open(sys.argv[2], 'wb').write(b)
PY
cp "$tmp/run/curve.png" "$tmp/foreign.png" 2>/dev/null || printf '\x89PNG\r\n\x1a\n0000000000000000000' > "$tmp/foreign.png"
: > "$tmp/empty.bin"
mkdir -p "$tmp/emptydir"

check() {  # file expected-words...
    local f=$1; shift
    for cmd in eval export; do
        if [ $cmd = eval ]; then args=(eval "$f" --episodes 1 --workers 1); else args=(export "$f" --out "$tmp/exp"); fi
        "$bin" "${args[@]}" >/dev/null 2>"$tmp/err"; rc=$?
        [ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "$cmd $(basename "$f"): rc=$rc $(head -3 "$tmp/err")"
        [ "$(wc -l < "$tmp/err")" = 1 ] || { cat "$tmp/err"; fail "$cmd $(basename "$f"): not one line"; }
        grep -q "^pongrl: .*$*" "$tmp/err" || fail "$cmd $(basename "$f"): '$(cat "$tmp/err")', want '$*'"
    done
    echo "$(basename "$f"): $(cat "$tmp/err")"
}
check "$tmp/trunc.bin" "truncated"
check "$tmp/trunc1.bin" "truncated"
check "$tmp/trunchdr.bin" "truncated"
check "$tmp/flip.bin" "corrupted (checksum mismatch)"
check "$tmp/crcbyte.bin" "corrupted (checksum mismatch)"
check "$tmp/version.bin" "format version 4, this build reads versions 1 to 3"
check "$tmp/hidden.bin" "wrong shape"
check "$tmp/n.bin" "wrong shape"
check "$tmp/cfgH.bin" "wrong shape: configuration says H=7"
check "$tmp/hugeH.bin" "wrong shape"
check "$tmp/foreign.png" "not a pongrl checkpoint"
check "$tmp/empty.bin" "empty file"
check "$tmp/emptydir" "not a checkpoint, a run directory"
check "$tmp/missing.bin" "No such file"
# a run directory whose only checkpoints are bad
mkdir -p "$tmp/badrun/checkpoints" && cp "$tmp/flip.bin" "$tmp/badrun/checkpoints/ckpt-00000001.bin"
check "$tmp/badrun" "no usable checkpoint"
"$bin" train --resume "$tmp/badrun" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] || fail "resume of a bad run: rc=$rc $(cat "$tmp/err")"

# full disk and read-only run directory, on a small tmpfs (root) or by permissions (others)
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$tmp/mnt"
    if ! mount -t tmpfs -o size=2m tmpfs "$tmp/mnt" 2>/dev/null; then
        echo "note: cannot mount a tmpfs here; skipping the full-disk and read-only cases"; echo ok; exit 0
    fi
    # H=16 checkpoints are 1.6 MB: the first fits, the next does not
    "$bin" train --hidden 16 --batch-size 1 --workers 1 --iterations 5 --checkpoint-every 1 --quiet \
        --run-dir "$tmp/mnt/run" >/dev/null 2>"$tmp/err"; rc=$?
    cat "$tmp/err"
    [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'No space left on device' "$tmp/err" || fail "disk full: rc=$rc"
    ls "$tmp/mnt/run/checkpoints" | grep -q '\.tmp$' && fail "disk full: a temporary file was left"
    sum=$(sha256sum < "$tmp/mnt/run/checkpoints/ckpt-00000000.bin")
    "$bin" export "$tmp/mnt/run" --out "$tmp/exp" >/dev/null || fail "disk full: the last good checkpoint does not load"
    # read-only: the same run cannot resume (it would rewrite metrics.csv) and says so
    mount -o remount,ro "$tmp/mnt" || fail "remount ro"
    "$bin" train --resume "$tmp/mnt/run" --iterations 5 --quiet >/dev/null 2>"$tmp/err"; rc=$?
    cat "$tmp/err"
    [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'Read-only file system' "$tmp/err" || fail "read-only: rc=$rc"
    [ "$(sha256sum < "$tmp/mnt/run/checkpoints/ckpt-00000000.bin")" = "$sum" ] || fail "read-only: checkpoint changed"
    umount "$tmp/mnt"
else
    mkdir -p "$tmp/ro" && chmod a-w "$tmp/ro"
    "$bin" train --hidden 4 --batch-size 1 --iterations 1 --quiet --run-dir "$tmp/ro" >/dev/null 2>"$tmp/err"; rc=$?
    cat "$tmp/err"
    [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'Permission denied' "$tmp/err" || fail "read-only: rc=$rc"
    echo "note: not root: full-disk case skipped (needs a tmpfs mount)"
fi
echo ok
