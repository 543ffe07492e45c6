#!/usr/bin/env bash
# An export replaces the whole model or nothing, and a reader never takes model.txt of one export
# with the arrays of another. A second export to the same DIR is refused without --force and
# leaves DIR as it was; with --force (PPO then pg) DIR holds the new model's files alone, which
# eval, import, record and pongrl.load play. An entry of DIR that is not an export's file (a
# directory or a symlink named model.txt, a user's notes.txt) is refused before anything is
# written, --force or not; OUT that is a symlink, a file or a FIFO is refused. A failure while
# writing (a file past `ulimit -f`), SIGTERM/SIGINT/SIGHUP in the middle leave DIR as it was and no
# temporary folder; a SIGKILL's folder is removed by the next export. model.txt's crc32 line:
# arrays of another export beside it are refused in one line naming the file; an export without
# the line (the shipped models/) still reads. Every check runs, and each failure is named.
set -uo pipefail
bin=${PONGRL_BIN:-build/pongrl}
bin=$(realpath "$bin")
root=$(realpath "$(dirname "$0")/../..")
py=/usr/bin/python3
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ONE_LINE_TIMEOUT=20
source "$(dirname "$0")/hostile_common.sh"
# the files of a folder and their bytes, to compare before and after
state() { (cd "$1" 2>/dev/null && ls -A | while read -r f; do echo "$f $({ sha256sum < "$f"; } 2>/dev/null || echo "not a file")"; done); }
tmps() { ls -A | grep -E '\.p[0-9]+\.[0-9a-f]{8}\.tmp$'; }
cd "$tmp"
"$bin" train --algo ppo --envs 4 --steps 64 --hidden 16 --minibatches 2 --epochs 2 --iterations 1 --seed 3 \
    --workers 1 --quiet --run-dir ppo_run >/dev/null || { echo "FAIL: train ppo"; exit 1; }
"$bin" train --algo ppo --envs 4 --steps 64 --hidden 16 --minibatches 2 --epochs 2 --iterations 1 --seed 4 \
    --workers 1 --quiet --run-dir ppo_run2 >/dev/null || { echo "FAIL: train ppo 2"; exit 1; }
"$bin" train --hidden 8 --batch-size 1 --iterations 1 --quiet --workers 1 --run-dir pg_run >/dev/null ||
    { echo "FAIL: train pg"; exit 1; }
"$bin" train --algo qrdqn --envs 4 --steps 100 --hidden 16 --quantiles 8 --learn-start 200 --replay 2000 \
    --minibatch 8 --update-every 2 --eps-steps 400 --iterations 1 --workers 1 --quiet --run-dir qr_run >/dev/null ||
    { echo "FAIL: train qrdqn"; exit 1; }
"$bin" export --help | grep -q -- "--force" || bad "export --help does not mention --force"

# ---- PPO, then pg to the same DIR: refused without --force; with it, DIR is the pg model alone
"$bin" export ppo_run --out D >/dev/null || bad "export ppo_run --out D"
before=$(state D)
one_line 1 "cannot write D: it exists (a directory holding model.txt and 6 more files); --force replaces it" \
    "$bin" export pg_run --out D
[ "$(state D)" = "$before" ] || bad "a refused export changed D: $(ls D | tr '\n' ' ')"
out=$("$bin" export pg_run --out D/ --force 2>&1) || bad "export --force: $out"
grep -q "to D/W1.npy (8, 6400) and D/W2.npy (8,)" <<<"$out" || bad "export --force said '$out'"
[ "$(ls D | tr '\n' ' ')" = "W1.npy W2.npy " ] || bad "after export --force of pg, D holds $(ls D | tr '\n' ' ')"
e=$("$bin" eval D --episodes 1 2>&1 | head -1)
[[ $e == *"W1.npy/W2.npy, H=8"* ]] || bad "eval D played '$e', not the pg model"
i=$("$bin" import D --out imp.bin 2>&1)
[[ $i == *"(W1.npy/W2.npy, H=8)"* ]] || bad "import D took '$i', not the pg model"
"$bin" record D --out g.gif --max-steps 5 >/dev/null 2>&1 || bad "record D"
p=$($py -c 'import pongrl, sys; p = pongrl.load(sys.argv[1]); print(p.algo, p.H)' D 2>&1)
[ "$p" = "pg 8" ] || bad "pongrl.load(D) gave '$p', not pg 8"
"$bin" export ppo_run --out D --force >/dev/null || bad "export --force of PPO over pg"
[ "$(ls D | tr '\n' ' ')" = "model.txt ppo_W1.npy ppo_Wpi.npy ppo_b1.npy ppo_bpi.npy ppo_bv.npy ppo_wv.npy " ] ||
    bad "after export --force of PPO, D holds $(ls D | tr '\n' ' ')"
[ -z "$(tmps)" ] || bad "temporaries left: $(tmps)"

# ---- entries that are not an export's: nothing written, --force or not
for force in "" --force; do
    mkdir -p E/model.txt; before=$(state E)
    one_line 1 "E/model.txt is not a regular file (a directory)" "$bin" export ppo_run --out E $force
    [ "$(state E)" = "$before" ] || bad "export $force to E wrote: $(ls E | tr '\n' ' ')"
    mkdir -p F; ln -sfn "$tmp/nowhere" F/model.txt; before=$(state F)
    one_line 1 "F/model.txt is not a regular file (a symbolic link)" "$bin" export qr_run --out F $force
    [ "$(state F)" = "$before" ] || bad "export $force to F wrote: $(ls F | tr '\n' ' ')"
    [ -e nowhere ] && bad "written through F/model.txt"
    cp -r D G; echo mine > G/notes.txt; before=$(state G)
    one_line 1 "G/notes.txt is not one of a pongrl export's files" "$bin" export pg_run --out G $force
    [ "$(state G)" = "$before" ] || bad "export $force to G changed it: $(ls G | tr '\n' ' ')"
    rm -rf G
done
mkdir real; ln -s real L; echo x > f; mkfifo fifo
one_line 1 "cannot write L: not a directory (a symbolic link)" "$bin" export pg_run --out L --force
one_line 1 "cannot write f: not a directory (a regular file)" "$bin" export pg_run --out f --force
one_line 1 "cannot write fifo: not a directory (a FIFO)" "$bin" export pg_run --out fifo --force
[ -z "$(ls real)" ] && [ "$(cat f)" = x ] && [ -p fifo ] || bad "an OUT refused was changed"
[ -z "$(tmps)" ] || bad "temporaries left: $(tmps)"

# ---- a failure while writing (a file past ulimit -f: EFBIG) leaves D as it was, and no temporary
before=$(state D)
(ulimit -f 64 && exec "$bin" export ppo_run2 --out D --force) >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "File too large" "$tmp/err" &&
    echo "ok: export past ulimit -f -> $(cat "$tmp/err")" || bad "export past ulimit -f: rc $rc, '$(cat "$tmp/err")'"
[ "$(state D)" = "$before" ] || bad "a failed export changed D: $(ls D | tr '\n' ' ')"
[ -z "$(tmps)" ] || bad "a failed export left $(tmps)"

# ---- a signal in the middle: caught stopped while its temporary folder exists, then signalled
# (SIGTERM, SIGINT, SIGHUP: the folder removed; SIGKILL: left, and the next export removes it).
# D is then the old model or, where the stop came after the swap, the new one whole.
"$bin" export "$root/models/pong-v5-ppo" --out N >/dev/null || bad "export models/pong-v5-ppo"
new=$(state N)
for sig in TERM INT HUP KILL; do
    caught=
    for try in $(seq 40); do
        before=$(state D)
        "$bin" export "$root/models/pong-v5-ppo" --out D --force >/dev/null 2>&1 &
        pid=$!
        while kill -0 $pid 2>/dev/null && [ -z "$(tmps)" ]; do :; done
        kill -STOP $pid 2>/dev/null
        if [ -n "$(tmps)" ] && kill -0 $pid 2>/dev/null; then caught=1; fi
        kill -$sig $pid 2>/dev/null; kill -CONT $pid 2>/dev/null
        wait $pid 2>/dev/null
        [ -n "$caught" ] && break
        "$bin" export ppo_run --out D --force >/dev/null 2>&1 # it ended first: back to the old model, again
    done
    if [ -z "$caught" ]; then echo "note: SIG$sig: never caught an export in the middle"; continue; fi
    now=$(state D)
    [ "$now" = "$before" ] || [ "$now" = "$new" ] || bad "SIG$sig in the middle left D a mix: $(ls D | tr '\n' ' ')"
    if [ $sig = KILL ]; then
        [ -n "$(tmps)" ] || bad "SIGKILL: no temporary folder left (the sweep has nothing to do)"
        "$bin" export ppo_run --out D --force >/dev/null || bad "export after a SIGKILL"
    fi
    [ -z "$(tmps)" ] || bad "SIG$sig: temporary folder left: $(tmps)"
    echo "ok: SIG$sig while the temporary folder existed: D as it was, no temporary left"
done
# a dead writer's folder holding a user's file too is not removed (nothing but an export's files are)
dead=$(sh -c 'echo $$')
mkdir "D.p$dead.0123abcd.tmp" && echo mine > "D.p$dead.0123abcd.tmp/notes.txt" && : > "D.p$dead.0123abcd.tmp/x.npy"
"$bin" export ppo_run --out D --force >/dev/null || bad "export beside a dead writer's folder"
[ "$(ls "D.p$dead.0123abcd.tmp")" = notes.txt ] || bad "the dead writer's folder: $(ls "D.p$dead.0123abcd.tmp")"
rm -rf "D.p$dead.0123abcd.tmp"

# ---- model.txt's crc32 line: arrays of another export beside it are refused, naming the file
"$bin" export ppo_run2 --out D2 >/dev/null || bad "export ppo_run2"
cp -r D M && cp D2/ppo_bv.npy M/
for cmd in eval import record; do
    case $cmd in
        eval) args=(eval M --episodes 1) ;;
        import) args=(import M --out m.bin) ;;
        record) args=(record M --out m.gif --max-steps 5) ;;
    esac
    one_line 1 "M/ppo_bv.npy: not the file M/model.txt was written with (crc32 [0-9a-f]*, model.txt says [0-9a-f]*)" \
        "$bin" "${args[@]}"
done
for reader in "pongrl.load" "pongrl.nets.read_export"; do
    got=$($py -c "import sys, pongrl, pongrl.nets
try:
    $reader(sys.argv[1])
except ValueError as e:
    print(e)" M 2>&1)
    grep -q "M/ppo_bv.npy: not the file M/model.txt was written with" <<<"$got" && echo "ok: $reader: $got" ||
        bad "$reader of mixed files: '$got'"
done
sed -i 's/^crc32=ppo_W1.npy:[0-9a-f]*,/crc32=ppo_W1.npy:xyz,/' M/model.txt
one_line 1 "M/model.txt: crc32: 'ppo_W1.npy:xyz' is not NAME.npy:hhhhhhhh" "$bin" eval M --episodes 1
# an export without the line (written before it existed) reads, the shipped models among them
cp -r D O && sed -i '/^crc32=/d' O/model.txt
for m in O "$root/models/pong-v5-ppo" "$root/models/pong-v5"; do
    "$bin" import "$m" --out o.bin >/dev/null 2>"$tmp/err" || bad "import $m: $(cat "$tmp/err")"
done
got=$($py -c 'import sys, pongrl, pongrl.nets
for m in sys.argv[1:]:
    pongrl.load(m).close()
    pongrl.nets.read_export(m)
print("read")' O "$root/models/pong-v5-ppo" 2>&1)
[ "$got" = read ] && echo "ok: exports without the crc32 line read (O, models/pong-v5-ppo)" ||
    bad "an export without the crc32 line: $got"

finish
