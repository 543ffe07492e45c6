#!/usr/bin/env bash
# One rule for weights, whichever way they come in: NaN or infinity in a checkpoint's weights
# (or in its RMSProp cache, or a negative cache), with a valid checksum, is refused by eval,
# record, export and --resume as `import` refuses it in a .npy file, with one line and exit 1;
# so `export` can never write a file that `import` refuses. Under ASan+UBSan where built.
set -uo pipefail
source "$(dirname "$0")/debug_bin.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$bin" train --hidden 4 --batch-size 1 --iterations 1 --quiet --workers 1 --run-dir "$tmp/run" >/dev/null || fail "train"
good=$tmp/run/checkpoints/ckpt-00000001.bin
n=$((6400 * 4 + 4))
poke() {  # out index value: f64 at data index (0..n-1 weights, n..2n-1 cache), CRC recomputed
    "$py" - "$good" "$@" <<'PY'
import struct, sys, zlib
src, out, idx, val = sys.argv[1:]
b = bytearray(open(src, 'rb').read())
hb = struct.unpack_from('<I', b, 12)[0]          # the header's size: the data follows it
struct.pack_into('<d', b, hb + 8 * int(idx), float(val))
struct.pack_into('<I', b, len(b) - 4, zlib.crc32(bytes(b[:-4])))
open(out, 'wb').write(b)
PY
}
poke "$tmp/w1nan.bin" 10 nan
poke "$tmp/w2inf.bin" $((n - 1)) inf
poke "$tmp/cachenan.bin" $((n + 5)) nan
poke "$tmp/cacheneg.bin" $((n + 5)) -1
for f in w1nan w2inf cachenan cacheneg; do
    mkdir -p "$tmp/r$f/checkpoints" && cp "$tmp/$f.bin" "$tmp/r$f/checkpoints/ckpt-00000001.bin"
    for cmd in eval record export resume; do
        case $cmd in
            eval)   args=(eval "$tmp/$f.bin" --episodes 1 --workers 1);;
            record) args=(record "$tmp/$f.bin" --out "$tmp/g.gif" --max-steps 5);;
            export) args=(export "$tmp/$f.bin" --out "$tmp/exp$f");;
            resume) args=(train --resume "$tmp/r$f" --iterations 2 --quiet);;
        esac
        "$bin" "${args[@]}" >/dev/null 2>"$tmp/err"; rc=$?
        [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$cmd $f: rc $rc, $(cat "$tmp/err")"
        grep -qE 'NaN|negative' "$tmp/err" || fail "$cmd $f: $(cat "$tmp/err")"
    done
    [ -e "$tmp/exp$f/W1.npy" ] && fail "export $f wrote a file"
    echo "$f: $(cat "$tmp/err")"
done
# the good file still goes everywhere, and what export writes, import reads
"$bin" export "$good" --out "$tmp/ok" >/dev/null || fail "export of the good file"
"$bin" import "$tmp/ok" --out "$tmp/ok.bin" >/dev/null || fail "import of an export"
echo ok
