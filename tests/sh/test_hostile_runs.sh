#!/usr/bin/env bash
# Run directories and checkpoints that cannot be turned against a run (each case failed before
# its fix):
# - a run inside another, live or ended, is refused in one line and nothing is made (`--run-dir
#   busy/checkpoints` wrote a second run into the first's checkpoints/, which eval and `--resume
#   busy/checkpoints` then took for the first); runs side by side in one folder still start;
# - RUN/.lock a dangling symlink, or a FIFO: refused in one line naming the lock, and the
#   symlink's target is never created (it was, outside the run);
# - a checkpoint's name is only an index: one renamed ckpt-00000002.bin -> ckpt-00000009.bin is
#   named with both numbers and not used (every resume went back to iteration 2, and --keep
#   removed the real checkpoints); a name no load takes (past 2^50, an older build's) is said
#   and removed by --keep (it was passed over without a word, and kept for ever);
# - 2^50 iterations at most, at the flag, in the loop and in the files: --iterations past it is
#   refused, a run there stops with a word, and no checkpoint that eval refuses is written
#   (a run resumed at 2^50 wrote ckpt-1125899906842625.bin);
# - what kills left of checkpoint writes (ckpt-N.bin.XXXXXXXX.tmp) the next owner removes as it
#   starts, even when it saves nothing; names not pongrl's stay.
# Every check runs, and each failure is named. Under ASan+UBSan where built.
set -uo pipefail
source "$(dirname "$0")/debug_bin.sh"
bin=$(realpath "$bin")
tmp=$(mktemp -d); live=; trap 'kill $live 2>/dev/null; rm -rf "$tmp"' EXIT
source "$(dirname "$0")/hostile_common.sh"
# a checkpoint made from another with its iteration set (the first counter after the settings)
# and its CRC redone
at_iteration() {
    "$py" - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
src, out, it = sys.argv[1:]
b = bytearray(open(src, 'rb').read())
st = struct.unpack_from('<I', b, 16)[0]
struct.pack_into('<q', b, 20 + st, int(it))
struct.pack_into('<I', b, len(b) - 4, zlib.crc32(bytes(b[:-4])))
open(out, 'wb').write(b)
PY
}
names() { ls "$1" | tr '\n' ' '; }
T=(--hidden 4 --batch-size 1 --workers 1 --quiet)
cd "$tmp"

# ---- a run inside another
"$bin" train "${T[@]}" --iterations 100000000 --run-dir busy >/dev/null 2>&1 &
live=$!
for i in $(seq 200); do [ -e busy/config.txt ] && break; sleep 0.05; done
one_line 1 "--run-dir busy/checkpoints lies inside the run $tmp/busy" "$bin" train "${T[@]}" --iterations 1 --run-dir busy/checkpoints
one_line 1 "lies inside the run $tmp/busy" "$bin" train "${T[@]}" --iterations 1 --run-dir "$tmp/busy/new/deeper/"
kill $live; wait $live 2>/dev/null; live=
one_line 1 "lies inside the run $tmp/busy" "$bin" train "${T[@]}" --iterations 1 --run-dir busy/checkpoints
[ -e busy/new ] || [ -e busy/checkpoints/checkpoints ] || [ -e busy/checkpoints/config.txt ] ||
    [ -e busy/checkpoints/metrics.csv ] || [ -e busy/checkpoints/.lock ] && bad "a refused run made: $(ls -A busy busy/checkpoints)"
# one made inside by an older build: not resumed as if it were a run of its own
cp -r busy old && rm -f old/.lock && mv old busy/checkpoints/old
one_line 1 "cannot resume busy/checkpoints/old: it lies inside the run $tmp/busy" \
    "$bin" train --resume busy/checkpoints/old --iterations 100000001
# runs side by side, and a run in a folder of a run's name that holds none, start as ever
mkdir -p runs/checkpoints
for d in runs/a runs/b runs/checkpoints/c; do
    "$bin" train "${T[@]}" --iterations 1 --run-dir $d >/dev/null 2>"$tmp/err" || bad "--run-dir $d: $(cat "$tmp/err")"
done

# ---- the lock is never a symlink nor a FIFO
"$bin" train "${T[@]}" --iterations 1 --run-dir run >/dev/null || bad "train"
rm run/.lock && ln -s "$tmp/outside" run/.lock
one_line 1 "cannot lock run/.lock: not a regular file (a symbolic link)" "$bin" train --resume run --iterations 2
mkdir fresh && ln -s "$tmp/outside" fresh/.lock
one_line 1 "cannot lock fresh/.lock: not a regular file (a symbolic link)" "$bin" train "${T[@]}" --iterations 1 --run-dir fresh
[ -e outside ] || [ -L outside ] && bad "the lock's symlink target was created: $(ls -l outside)"
rm run/.lock && mkfifo run/.lock
one_line 1 "cannot lock run/.lock: not a regular file (a FIFO)" "$bin" train --resume run --iterations 2
[ -p run/.lock ] || bad "the FIFO was replaced"
[ -e run/checkpoints/ckpt-00000002.bin ] && bad "a run whose lock was refused went on"
rm run/.lock

# ---- a checkpoint's name is only an index
"$bin" train "${T[@]}" --iterations 4 --checkpoint-every 1 --keep 10 --run-dir mv >/dev/null || bad "train mv"
mv mv/checkpoints/ckpt-00000002.bin mv/checkpoints/ckpt-00000009.bin
"$bin" train --resume mv --iterations 6 --checkpoint-every 1 --keep 2 >"$tmp/out" 2>"$tmp/err" || bad "resume mv: $(cat "$tmp/err")"
grep -q 'resuming .*ckpt-00000004.bin at iteration 4,' "$tmp/out" || bad "renamed: resumed from $(grep resuming "$tmp/out")"
[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'warning: mv/checkpoints/ckpt-00000009.bin holds iteration 2, its name says 9: not used' "$tmp/err" ||
    bad "renamed: stderr '$(cat "$tmp/err")'"
[ "$(names mv/checkpoints)" = "ckpt-00000005.bin ckpt-00000006.bin " ] || bad "renamed: --keep 2 left $(names mv/checkpoints)"
echo "renamed ckpt-00000002.bin to ckpt-00000009.bin: $(cut -c1-140 "$tmp/err"); --keep 2 left $(names mv/checkpoints)"
# a name past 2^50 (an older build's, its file iteration 2^50 + 1): said, passed over, pruned
past=ckpt-1125899906842625.bin
at_iteration mv/checkpoints/ckpt-00000006.bin "mv/checkpoints/$past" 1125899906842625
"$bin" train --resume mv --iterations 7 --keep 2 >"$tmp/out" 2>"$tmp/err" || bad "resume past: $(cat "$tmp/err")"
grep -q 'resuming .*ckpt-00000006.bin at iteration 6,' "$tmp/out" || bad "past 2^50: resumed from $(grep resuming "$tmp/out")"
[ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "1 newer checkpoint did not load (the newest, mv/checkpoints/$past: counters beyond" "$tmp/err" ||
    bad "past 2^50: stderr '$(cat "$tmp/err")'"
[ "$(names mv/checkpoints)" = "ckpt-00000006.bin ckpt-00000007.bin " ] || bad "past 2^50: --keep 2 left $(names mv/checkpoints)"
# nothing but pongrl's own names is ever removed
touch mv/checkpoints/ckpt-7.bin mv/checkpoints/ckpt-000000001.bin mv/checkpoints/ckpt-00000001.binx mv/checkpoints/mine.bin
"$bin" train --resume mv --iterations 8 --keep 1 >/dev/null 2>"$tmp/err" || bad "resume mine: $(cat "$tmp/err")"
[ "$(names mv/checkpoints)" = "ckpt-000000001.bin ckpt-00000001.binx ckpt-00000008.bin ckpt-7.bin mine.bin " ] ||
    bad "other names: --keep 1 left $(names mv/checkpoints)"

# ---- 2^50 iterations at most: the flag, the loop, the files
"$bin" train "${T[@]}" --iterations 1 --run-dir big >/dev/null || bad "train big"
at_iteration big/checkpoints/ckpt-00000001.bin big/checkpoints/ckpt-1125899906842623.bin 1125899906842623
rm big/checkpoints/ckpt-0000000[01].bin
one_line 2 "--iterations must be in \[-1, 1125899906842624\], got 1125899906842625" \
    "$bin" train --resume big --iterations 1125899906842625
"$bin" train --resume big --iterations 1125899906842624 --keep 1 >"$tmp/out" 2>"$tmp/err" || bad "resume to 2^50: $(cat "$tmp/err")"
[ "$(names big/checkpoints)" = "ckpt-1125899906842624.bin " ] || bad "2^50: left $(names big/checkpoints)"
"$bin" export big --out big_npy >/dev/null 2>"$tmp/err" || bad "the checkpoint of iteration 2^50 does not load: $(cat "$tmp/err")"
timeout 30 "$bin" train --resume big --iterations -1 --keep 1 >"$tmp/out" 2>"$tmp/err" || bad "resume at 2^50: $(cat "$tmp/err")"
grep -q 'warning: iteration 1125899906842624 is the most a run may have (2^50): the run ends there' "$tmp/err" ||
    bad "at 2^50, no --iterations: stderr '$(cat "$tmp/err")'"
grep -q 'stopped after 1125899906842624 iterations' "$tmp/out" || bad "at 2^50: $(tail -1 "$tmp/out")"
[ "$(names big/checkpoints)" = "ckpt-1125899906842624.bin " ] || bad "past 2^50: wrote $(names big/checkpoints)"
echo "at 2^50: $(grep -o 'iteration 1125899906842624 is.*' "$tmp/err"); checkpoints: $(names big/checkpoints)"

# ---- what kills left of checkpoint writes, removed as the next owner starts (nothing is saved)
"$bin" train "${T[@]}" --iterations 2 --run-dir sweep >/dev/null || bad "train sweep"
c=sweep/checkpoints
touch $c/ckpt-00000001.bin.0123abcd.tmp $c/ckpt-00000002.bin.deadbeef.tmp $c/ckpt-00000001.bin.tmp $c/ckpt-mine.tmp \
    $c/notes.tmp
"$bin" train --resume sweep --iterations 2 >/dev/null 2>"$tmp/err" || bad "resume sweep: $(cat "$tmp/err")"
[ "$(names $c)" = "ckpt-00000000.bin ckpt-00000001.bin.tmp ckpt-00000002.bin ckpt-mine.tmp notes.tmp " ] ||
    bad "start-up sweep of checkpoints/ left $(names $c)"

finish
