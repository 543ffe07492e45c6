#!/usr/bin/env bash
# Checkpoint names past 8 digits: a run at iteration 99,999,999 goes on to write
# ckpt-100000000.bin and ckpt-100000001.bin, --keep 2 then removes ckpt-99999999.bin (the names
# are taken in the order of their iterations, not as text), and --resume takes the newest,
# ckpt-100000001.bin; a folder holding ckpt-99999999.bin and ckpt-100000000.bin loads the
# latter. (With names read as 8 digits, the 9-digit ones were never seen: resume went back to
# iteration 99,999,999 and --keep never removed them.) Under ASan+UBSan where built.
set -uo pipefail
source "$(dirname "$0")/debug_bin.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
d=$tmp/run

"$bin" train --hidden 4 --batch-size 1 --iterations 1 --workers 1 --quiet --run-dir "$d" >/dev/null || fail "train"
# a checkpoint made from another, at another iteration (the counter patched, the CRC redone)
at_iteration() {
    "$py" - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
src, out, it = sys.argv[1:]
b = bytearray(open(src, 'rb').read())
st = struct.unpack_from('<I', b, 16)[0]
struct.pack_into('<q', b, 20 + st, int(it))        # the iteration: the first counter after the settings
struct.pack_into('<I', b, len(b) - 4, zlib.crc32(bytes(b[:-4])))
open(out, 'wb').write(b)
PY
}
# its checkpoint at iteration 1 made that of iteration 99,999,999
at_iteration "$d/checkpoints/ckpt-00000001.bin" "$d/checkpoints/ckpt-99999999.bin" 99999999
rm "$d"/checkpoints/ckpt-0000000[01].bin
"$bin" train --resume "$d" --iterations 100000001 --checkpoint-every 1 --keep 2 >"$tmp/out" 2>&1 || fail "resume: $(tail -3 "$tmp/out")"
grep -q 'resuming .*ckpt-99999999.bin at iteration 99999999' "$tmp/out" || fail "did not resume at 99999999: $(head -3 "$tmp/out")"
got=$(ls "$d/checkpoints" | tr '\n' ' ')
echo "after iterations 100000000 and 100000001, --keep 2: $got"
[ "$got" = "ckpt-100000000.bin ckpt-100000001.bin " ] || fail "--keep 2 left: $got"
"$bin" train --resume "$d" --iterations 100000002 --keep 2 >"$tmp/out" 2>&1 || fail "second resume: $(tail -3 "$tmp/out")"
grep -q 'resuming .*ckpt-100000001.bin at iteration 100000001' "$tmp/out" || fail "second resume: $(head -3 "$tmp/out")"
echo "$(grep -m1 resuming "$tmp/out")"
# the newest of an 8-digit and a 9-digit name (each file holding the iteration of its name: a
# name is only an index, and one that says another iteration is not used)
mkdir -p "$tmp/two/checkpoints"
at_iteration "$d/checkpoints/ckpt-100000002.bin" "$tmp/two/checkpoints/ckpt-100000000.bin" 100000000
at_iteration "$d/checkpoints/ckpt-100000001.bin" "$tmp/two/checkpoints/ckpt-99999999.bin" 99999999
out=$("$bin" export "$tmp/two" --out "$tmp/exp" 2>&1) || fail "export: $out"
echo "$out" | grep -q 'ckpt-100000000.bin' || fail "export took: $out"
echo ok
