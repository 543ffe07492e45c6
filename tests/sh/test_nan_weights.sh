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
"$bin" export "$good" --out "$tmp/w" >/dev/null || fail "export"
n=$((6400 * 4 + 4))
# The good file's settings and counters, its weights (from the export) and a cache of zeros
# (plus an f64 at data index idx: 0..n-1 weights, n..2n-1 cache) written as format version 4
# does (checkpoint.h, packed.h), without the fresh run's difference (flags 0): every CRC valid.
poke() {  # out index value
    "$py" - "$good" "$tmp/w" "$@" <<'PY'
import struct, sys, zlib
import numpy as np
src, wdir, out, idx, val = sys.argv[1:]
b = open(src, 'rb').read()
st = struct.unpack_from('<I', b, 16)[0]
head = b[16:20 + st + 48]                      # the settings and the counters
w = np.concatenate([np.load(wdir + '/W1.npy').T.ravel(), np.load(wdir + '/W2.npy')])
data = np.concatenate([w, np.zeros(w.size)])
data[int(idx)] = float(val)
arrays = [('weights', 0, data[:w.size]), ('RMSProp cache', 1, data[w.size:])]
entries, blobs = b'', b''
for name, nonneg, a in arrays:
    u = a.astype('<f8').view('<u8')
    nz = u[u != 0]
    planes = nz.view(np.uint8).reshape(-1, 8).T     # plane b: byte b of every entry not zero
    # the bitmap and the top three planes deflated, then the five low planes as they are
    z = zlib.compress(np.packbits(u != 0, bitorder='little').tobytes() + planes[5:].tobytes(), 1) + planes[:5].tobytes()
    entries += name.encode().ljust(24, b'\0') + struct.pack('<IQQI', nonneg, a.size, len(z), zlib.crc32(a.astype('<f8').tobytes()))
    blobs += z
body = head + struct.pack('<II', 0, len(arrays)) + entries
f = b'PONGRLCK' + struct.pack('<II', 4, 16 + len(body)) + body + blobs
open(out, 'wb').write(f + struct.pack('<I', zlib.crc32(f)))
PY
}
poke "$tmp/ok4.bin" 0 "$("$py" -c 'import numpy as np,sys; print(repr(float(np.load(sys.argv[1])[0,0])))' "$tmp/w/W1.npy")"
"$bin" eval "$tmp/ok4.bin" --episodes 1 --workers 1 >/dev/null || fail "the version 4 file written here does not load"
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
