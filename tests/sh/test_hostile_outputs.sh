#!/usr/bin/env bash
# Outputs and inputs that cannot be turned against the user. An OUT that is a symlink, a FIFO,
# a device or a directory is refused in one line and left as it was (as root, `import --out
# /dev/null` once replaced /dev/null: a device made with mknod stands for it here); a symlink
# planted as the old temporary name is not written through; a FIFO given as a model is refused
# at once, never waited on; `--resume RUN/checkpoints` takes the run's own lock; a failed or
# closed stdout is one line and status 1 (never death by SIGPIPE, 141); numbers are plain
# numbers; PPO settings that cannot be, read from a model.txt, get the learner's own message;
# a model.txt with CRLF line ends reads; a long path keeps the reason. Every check runs, and
# each failure is named. Under ASan+UBSan where built.
set -uo pipefail
bin=${PONGRL_BIN:-build/pongrl}
bin=$(realpath "$bin")
models=$(realpath "$(dirname "$0")/../../models")
dbg="$(dirname "$bin")/debug/pongrl"
[ -x "$dbg" ] && bin=$dbg && echo "using $dbg (ASan+UBSan)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
tmp=$(mktemp -d); trap 'kill $live 2>/dev/null; rm -rf "$tmp"' EXIT
live=
source "$(dirname "$0")/hostile_common.sh"
cd "$tmp"
"$bin" train --hidden 4 --batch-size 1 --iterations 1 --quiet --workers 1 --run-dir run >/dev/null || { echo "FAIL: train"; exit 1; }
"$bin" export run --out npy >/dev/null || { echo "FAIL: export"; exit 1; }

# ---- an OUT that is not a regular file
echo victim > victim.txt
devok=; mknod null.bin c 1 3 2>/dev/null && mknod null.gif c 1 3 && devok=1 || echo "note: mknod not allowed here: no device case"
for ext in bin gif; do mkfifo fifo.$ext; ln -s "$tmp/victim.txt" link.$ext; mkdir dir.$ext; done
for out in fifo link dir ${devok:+null}; do
    one_line 1 "not a regular file" "$bin" import npy --out "$out.bin"
    one_line 1 "not a regular file" "$bin" record run --out "$out.gif" --max-steps 5
done
mkdir exp && ln -s "$tmp/victim.txt" exp/W1.npy
one_line 1 "not a regular file" "$bin" export run --out exp
[ -p fifo.bin ] && [ -L link.bin ] && [ -d dir.bin ] && [ -p fifo.gif ] && [ -L link.gif ] && [ -d dir.gif ] &&
    [ -L exp/W1.npy ] || bad "an OUT was replaced: $(ls -l)"
[ -z "$devok" ] || { [ -c null.bin ] && [ -c null.gif ]; } || bad "the device was replaced: $(ls -l null.*)"
[ "$(cat victim.txt)" = victim ] || bad "written through a symlink: victim.txt holds $(head -c 40 victim.txt | od -c | head -2)"

# ---- a symlink planted as the temporary file's old name (OUT.tmp) is not followed
ln -s "$tmp/victim.txt" o.bin.tmp
ln -s "$tmp/victim.txt" planted.gif.tmp
"$bin" import npy --out o.bin >/dev/null 2>&1 || bad "import beside a planted o.bin.tmp failed"
"$bin" record run --out planted.gif --max-steps 5 >/dev/null 2>&1 || bad "record beside a planted .tmp failed"
[ "$(cat victim.txt)" = victim ] || bad "written through the planted OUT.tmp"
[ -L o.bin.tmp ] && [ -L planted.gif.tmp ] || bad "the planted links were replaced"
[ -z "$(ls | grep -E '\.[0-9a-f]{8}\.tmp$')" ] || bad "temporary files left: $(ls | grep tmp)"

# ---- inputs: a FIFO (no writer) as a model, a model.txt, a .npy, metrics.csv: refused at once
one_line 1 "not a regular file (a FIFO)" "$bin" eval fifo.bin --episodes 1
mkdir fifo_txt && cp "$models/pong-v5-ppo"/*.npy fifo_txt/ && mkfifo fifo_txt/model.txt
one_line 1 "not a regular file (a FIFO)" "$bin" eval fifo_txt --episodes 1
mkdir fifo_npy && cp npy/W2.npy fifo_npy/ && mkfifo fifo_npy/W1.npy
one_line 1 "not a regular file" "$bin" import fifo_npy --out f.bin
cp -r run fifo_run && rm fifo_run/metrics.csv && mkfifo fifo_run/metrics.csv
one_line 1 "not a regular file" "$bin" train --resume fifo_run --iterations 2
one_line 1 "not a regular file (a FIFO)" "$bin" plot fifo_run

# ---- --resume RUN/checkpoints: the run that owns the folder, under its lock
"$bin" train --hidden 4 --batch-size 1 --iterations 100000000 --quiet --workers 1 --run-dir busy >/dev/null 2>&1 &
live=$!
for i in $(seq 100); do [ -e busy/metrics.csv ] && break; sleep 0.05; done
one_line 1 "in use by another pongrl" "$bin" train --resume busy/checkpoints --iterations 100000001
one_line 1 "in use by another pongrl" "$bin" train --resume busy/checkpoints/ --iterations 100000001
kill $live; wait $live 2>/dev/null; live=
"$bin" train --resume run/checkpoints --iterations 2 --quiet >/dev/null 2>"$tmp/err" || bad "--resume run/checkpoints: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && bad "--resume run/checkpoints said: $(cat "$tmp/err")"
[ -e run/checkpoints/ckpt-00000002.bin ] || bad "--resume run/checkpoints did not continue the run: $(ls run/checkpoints)"
[ -e run/checkpoints/metrics.csv ] || [ -e run/checkpoints/checkpoints ] && bad "a second run was written inside checkpoints/"
[ "$(tail -1 run/metrics.csv | cut -d, -f1)" = 2 ] || bad "run/metrics.csv has no row of iteration 2"
# what a kill leaves of the run's own files' writes (each write a new name) the next owner removes
touch run/config.txt.0123abcd.tmp run/metrics.csv.deadbeef.tmp run/notes.tmp
"$bin" train --resume run --iterations 3 --quiet >/dev/null 2>&1 || bad "--resume run"
[ -e run/config.txt.0123abcd.tmp ] || [ -e run/metrics.csv.deadbeef.tmp ] && bad "stale temporaries kept: $(ls run)"
[ -e run/notes.tmp ] || bad "a file not pongrl's was removed"

# ---- stdout: every write checked; a closed pipe is one line and status 1, never SIGPIPE
for c in version --version --help help "train --help" "eval --help" "record --help" "watch --help" "plot --help" \
         "export --help" "import --help" "bench --help" "bench env --help" "bench train --help" "bench cluster --help" \
         "eval run --episodes 1 --workers 1"; do
    one_line 1 "cannot write to stdout" bash -c '"$0" "$@" >/dev/full' "$bin" $c
done
for c in version "train --help"; do
    (sleep 0.3; exec "$bin" $c) 2>"$tmp/err" | true; rc=${PIPESTATUS[0]}
    [ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'Broken pipe' "$tmp/err" ||
        bad "'$c' into a closed pipe: rc $rc (141: killed by SIGPIPE), stderr '$(cat "$tmp/err")'"
done

# ---- numbers: a plain number or a refusal
one_line 2 "expects a non-negative integer, got ' -1'" "$bin" train --seed ' -1' --iterations 1 --run-dir s1
one_line 2 "expects a non-negative integer, got '+1'" "$bin" train --seed '+1' --iterations 1 --run-dir s2
one_line 2 "expects a non-negative integer, got '1 '" "$bin" eval run --seed '1 '
one_line 2 "expects a number, got ' 0.01'" "$bin" train --lr ' 0.01' --iterations 1 --run-dir s3
one_line 2 "expects an integer, got '+4'" "$bin" train --hidden '+4' --iterations 1 --run-dir s4
one_line 2 "expects a number, got 'inf'" "$bin" train --lr inf --iterations 1 --run-dir s5
[ -e s1 ] || [ -e s2 ] || [ -e s3 ] || [ -e s4 ] || [ -e s5 ] && bad "a refused run left its directory"
mkdir blank && cp "$models/pong-v5-ppo"/* blank/ && sed -i 's/^hidden=128$/hidden= 128/' blank/model.txt
one_line 1 "setting hidden expects an integer, got ' 128'" "$bin" export blank --out blank_out

# ---- messages: a subcommand's bad flag; PPO settings that cannot be; CRLF; long paths
one_line 2 "^pongrl: bench env: unknown option '--bogus'" "$bin" bench env --bogus
one_line 2 "^pongrl: bench train: unknown option '--bogus'" "$bin" bench train --bogus
one_line 2 "^pongrl: bench cluster: unknown option '--bogus'" "$bin" bench cluster --bogus
one_line 2 "^pongrl: plot: unknown option '--bogus'" "$bin" plot --bogus
mkdir vh mb crlf && for d in vh mb crlf; do cp "$models/pong-v5-ppo"/* $d/; done
sed -i 's/^value_hidden=0$/value_hidden=128/' vh/model.txt
sed -i 's/^minibatches=16$/minibatches=9999999/' mb/model.txt
sed -i 's/$/\r/' crlf/model.txt
one_line 1 "value-hidden must be less than --hidden" "$bin" export vh --out vh_out
one_line 1 "minibatches must be in \[1, envs x steps\]" "$bin" export mb --out mb_out
# the same in a checkpoint whose checksum is right (settings as text, the crc32 last)
"$bin" train --algo ppo --hidden 8 --envs 2 --steps 16 --minibatches 2 --iterations 1 --workers 1 --quiet \
    --run-dir ppo >/dev/null || bad "a PPO run"
# craft SRC DST OLD NEW: DST is SRC with its first OLD replaced by NEW (as many bytes), its crc32 fixed
craft() {
    /usr/bin/python3 - "$@" <<'EOF_PY' || bad "crafting $2"
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
old, new = (sys.argv[k].encode().decode('unicode_escape').encode('latin-1') for k in (3, 4))
i = b.find(old)
b[i:i + len(new)] = new
b[-4:] = struct.pack('<I', zlib.crc32(bytes(b[:-4])))
open(sys.argv[2], 'wb').write(b)
EOF_PY
}
craft ppo/checkpoints/ckpt-00000001.bin ppo_vh.bin 'value_hidden=-1\n' 'value_hidden=99\n'
one_line 1 "value-hidden must be less than --hidden" "$bin" eval ppo_vh.bin --episodes 1 --workers 1
one_line 1 "value-hidden must be less than --hidden" "$bin" export ppo_vh.bin --out vh2_out
# the run's newest checkpoint: iteration 2, as its name says (the first counter after the settings)
/usr/bin/python3 - ppo_vh.bin ppo/checkpoints/ckpt-00000002.bin <<'EOF_PY' || bad "crafting a checkpoint"
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<q', b, 20 + struct.unpack_from('<I', b, 16)[0], 2)
b[-4:] = struct.pack('<I', zlib.crc32(bytes(b[:-4])))
open(sys.argv[2], 'wb').write(b)
EOF_PY
one_line 1 "value-hidden must be less than --hidden" "$bin" train --resume ppo --iterations 3
"$bin" export crlf --out crlf_out >/dev/null 2>"$tmp/err" || bad "a model.txt with CRLF line ends: $(cat "$tmp/err")"
long=$tmp/$(printf 'x%.0s' $(seq 200))/$(printf 'y%.0s' $(seq 200))/$(printf 'z%.0s' $(seq 200))/$(printf 'w%.0s' $(seq 300))
one_line 1 "No such file or directory" "$bin" eval "$long"
one_line 1 "No such file or directory" "$bin" import npy --out "$long"
long=$long/$(printf 'v%.0s' $(seq 250))/$(printf 'u%.0s' $(seq 250))/$(printf 't%.0s' $(seq 250))
one_line 2 "an argument of $(( ${#long} + 4 )) bytes.*at most 1023" "$bin" eval "$long/x.b"

# ---- nothing raw reaches a terminal: an env_id of ESC bytes (in a model.txt, and in a checkpoint
# whose crc32 is right), CR, form feed, a flag value with a newline: shown as \xNN on one line
mkdir esc && cp "$models/pong-v5-ppo"/* esc/ && sed -i 's/^env_id=.*$/env_id=\x1b[2J\x1b[31mX\r\x0c/' esc/model.txt
one_line 1 "unknown environment '\\\\x1b\[2J\\\\x1b\[31mX\\\\x0d\\\\x0c'" "$bin" eval esc --episodes 1
craft ppo/checkpoints/ckpt-00000001.bin ppo_esc.bin 'env_id=ALE/Pong-v5\n' 'env_id=\x1b[2J\x1b[31mXY\n'
one_line 1 "\\\\x1b\[2J\\\\x1b\[31mXY" "$bin" eval ppo_esc.bin --episodes 1 --workers 1
one_line 1 "a\\\\x0ab\\\\x1b\[2J: No such file" "$bin" eval $'a\nb\x1b[2J' --episodes 1
one_line 2 "expects an integer, got '1\\\\x0a2'" "$bin" train --hidden $'1\n2' --iterations 1 --run-dir s6

finish
