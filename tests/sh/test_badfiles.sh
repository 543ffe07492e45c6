#!/usr/bin/env bash
# Bad checkpoints and bad places: a truncated, corrupted, newer-version, wrong-shape, foreign
# (PNG) or empty file, one whose counters no run reaches or whose packed arrays do not come
# back (with a valid CRC), in format version 4 and in version 3, is refused with one line on
# stderr saying which, a non-zero exit and no crash (under ASan+UBSan when build/debug/pongrl
# exists); a good version 3 file still plays; a full disk or a read-only run
# directory ends the run with one clear line and leaves the last good checkpoint as it was.
set -uo pipefail
source "$(dirname "$0")/debug_bin.sh"
tmp=$(mktemp -d); trap 'mountpoint -q "$tmp/mnt" && umount "$tmp/mnt"; rm -rf "$tmp"' EXIT

"$bin" train --hidden 4 --batch-size 1 --iterations 2 --quiet --workers 1 --run-dir "$tmp/run" >/dev/null || fail "train"
good="$tmp/run/checkpoints/ckpt-00000002.bin"
size=$(stat -c %s "$good")
# version 4's layout (checkpoint.h): the header's size at 12, the settings text's at 16, then the
# text, the counters (48 bytes), flags, the count, each array's entry (48 bytes: name 24,
# nonneg 4, length 8, stored bytes 8, CRC 4), the packed arrays
read hb st <<<"$("$py" -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); print(*struct.unpack_from("<II", b, 12))' "$good")"
[ "$(od -An -tu4 -j8 -N4 "$good" | tr -d ' ')" = 4 ] || fail "not format version 4"
[ "$size" -lt $((2 * 8 * (6400 * 4 + 4) / 2)) ] || fail "checkpoint size $size: its arrays are not packed"
counters=$((20 + st))
entry0=$((20 + st + 48 + 8))
# A version 3 file as the builds before version 4 wrote it (a pg run: the settings, the counters,
# Karpathy's network's shape D, H, n, flags, one array, the RMSProp cache; then the weights and
# the cache as raw float64s), from the good file's settings and counters: the older versions'
# cases below are made from it.
"$py" - "$good" "$tmp/v3.bin" <<'PY'
import struct, sys, zlib
b = open(sys.argv[1], 'rb').read()
st = struct.unpack_from('<I', b, 16)[0]
text, counters = b[20:20 + st], b[20 + st:20 + st + 48]
H, n = 4, 6400 * 4 + 4
entry = b'RMSProp cache'.ljust(24, b'\0') + struct.pack('<IQ', 1, n)
body = struct.pack('<I', st) + text + counters + struct.pack('<iiQI', 6400, H, n, 0) + struct.pack('<I', 1) + entry
hb = 16 + len(body)
out = b'PONGRLCK' + struct.pack('<II', 3, hb) + body
out += struct.pack('<%dd' % n, *[((i * 7919) % 1000 - 500) * 1e-5 for i in range(n)]) + bytes(8 * n)
open(sys.argv[2], 'wb').write(out + struct.pack('<I', zlib.crc32(out)))
PY
v3="$tmp/v3.bin"
v3size=$(stat -c %s "$v3")
shape=$((20 + st + 48))                 # version 3: D, H, n after the counters

# a copy of a file (the good one unless SRC is set) with bytes replaced at an offset; fix=1
# recomputes the CRC so that only the check behind it can refuse the file
patch() {  # out offset struct-format value fix
    "$py" - "${SRC:-$good}" "$@" <<'PY'
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
patch "$tmp/version.bin" 8 '<I' 5 1
patch "$tmp/iteration.bin" $counters '<q' 4611686018427387904 1      # 2^62: no run gets there
patch "$tmp/frames.bin" $((counters + 24)) '<q' 9223372036854775807 1
patch "$tmp/length.bin" $((entry0 + 28)) '<Q' 999 1                   # the weights' length
patch "$tmp/stored.bin" $((entry0 + 36)) '<Q' 7 1                     # the weights' stored bytes
patch "$tmp/arraycrc.bin" $((entry0 + 44)) '<I' 12345 1               # the weights' own CRC
patch "$tmp/data.bin" $((hb + 200)) '<B' 0 1                          # inside the packed weights
head -c $((v3size - 9)) "$v3" > "$tmp/v3cut.bin"
SRC=$v3 patch "$tmp/hidden.bin" $((shape + 4)) '<i' 5 1   # shape H=5 with n and config saying 4
SRC=$v3 patch "$tmp/n.bin" $((shape + 8)) '<Q' 999 1      # n inconsistent with D*H+H
SRC=$v3 patch "$tmp/hugeH.bin" $((shape + 4)) '<i' 2000000000 1   # absurd H: refused before any allocation
SRC=$v3 patch "$tmp/v3iteration.bin" $counters '<q' 9223372036854775000 1
"$py" - "$v3" "$tmp/cfgH.bin" <<'PY'                # config hidden differs from the weights'
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
check "$tmp/version.bin" "format version 5, this build reads versions 1 to 4"
check "$tmp/iteration.bin" "counters beyond what a run can reach"
check "$tmp/frames.bin" "counters beyond what a run can reach"
check "$tmp/length.bin" "corrupted (array weights: "
check "$tmp/stored.bin" "the header says"
check "$tmp/arraycrc.bin" "array weights does not come back as it was written"
check "$tmp/data.bin" "corrupted (array weights: "
check "$tmp/v3cut.bin" "truncated"
check "$tmp/v3iteration.bin" "counters beyond what a run can reach"
check "$tmp/hidden.bin" "wrong shape"
check "$tmp/n.bin" "wrong shape"
check "$tmp/cfgH.bin" "wrong shape: configuration says H=7"
check "$tmp/hugeH.bin" "wrong shape"
check "$tmp/foreign.png" "not a pongrl checkpoint"
check "$tmp/empty.bin" "empty file"
check "$tmp/emptydir" "not a checkpoint, a run directory"
check "$tmp/missing.bin" "No such file"
"$bin" eval "$v3" --episodes 1 --workers 1 >/dev/null 2>"$tmp/err" || fail "a good version 3 file: $(cat "$tmp/err")"
# a run directory whose only checkpoints are bad
mkdir -p "$tmp/badrun/checkpoints" && cp "$tmp/flip.bin" "$tmp/badrun/checkpoints/ckpt-00000001.bin"
check "$tmp/badrun" "no usable checkpoint"
"$bin" train --resume "$tmp/badrun" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] || fail "resume of a bad run: rc=$rc $(cat "$tmp/err")"

# full disk and read-only run directory, on a small tmpfs (root) or by permissions (others)
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$tmp/mnt"
    if ! mount -t tmpfs -o size=1m tmpfs "$tmp/mnt" 2>/dev/null; then
        echo "note: cannot mount a tmpfs here; skipping the full-disk and read-only cases"; echo ok; exit 0
    fi
    # H=64: the first checkpoints (iteration 0: a fresh run's, a few kB; 1: 0.6 MB) fit in 1 MB,
    # the next does not
    "$bin" train --hidden 64 --batch-size 1 --workers 1 --iterations 5 --checkpoint-every 1 --quiet \
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
