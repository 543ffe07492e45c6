#!/usr/bin/env bash
# The programs pongrl starts (gnuplot, ffmpeg, mpirun) cannot be turned against the user. A
# watcher that swaps every *.tmp name it sees for a symlink to a victim file runs during
# `plot`, `train` (a checkpoint and a curve every iteration) and `record --out x.mp4`: the
# victim and every file outside the run stay as they were (the children write to descriptors,
# never to a name). A binary in a directory named a';touch X;'b runs `bench cluster` without
# running touch (no shell). metrics.csv swapped for a FIFO while `plot` runs: no hang, no
# .tmp left. `bench cluster --ranks ''` is a usage error; `watch` with DISPLAY naming no X
# server says so in one line and fails; a full disk under `plot` says "No space left on
# device"; a failing gnuplot is one line with its own reason; no popen or system in src/.
# HOSTILE_SECS (3) is how long each watcher runs. Skips (77) when ffmpeg is missing; the MPI
# case is left out, with a note, without MPI.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${PONGRL_BIN:-$root/build/pongrl}")
src=${PONGRL_SRC:-$root/src}
model=$root/models/pong-v5
secs=${HOSTILE_SECS:-3}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
source "$(dirname "$0")/hostile_common.sh"
skipped=
cd "$tmp"

# watcher DIR VICTIM SECS [PREFIX]: every regular file named *.tmp (PREFIX*.tmp) under DIR
# becomes a symlink to VICTIM (renamed over it: atomic), for SECS seconds; prints how many of
# each it swapped
mkdir ctl
cat > ctl/watcher.py <<'EOF'
import os, sys, time
top, victim, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
only = sys.argv[4] if len(sys.argv) > 4 else ""  # swap only the names that start so
end, n, kinds = time.time() + secs, 0, {}
while time.time() < end:
    for d, _, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            if not f.endswith(".tmp") or not f.startswith(only) or os.path.islink(p):
                continue
            link = os.path.join(d, ".swap%d" % n)
            try:
                os.symlink(victim, link)
                os.rename(link, p)
                n += 1
                kind = f.rsplit(".p", 1)[0] if not f.startswith("ckpt-") else "ckpt-*.bin"
                kinds[kind] = kinds.get(kind, 0) + 1
            except OSError:
                try:
                    os.unlink(link)
                except OSError:
                    pass
print(n, " ".join("%s:%d" % k for k in sorted(kinds.items())))
EOF
echo victim > victim
# every file of $tmp but the watched folder w/ and our own ctl/, with its contents
outside() { find "$tmp" \( -path "$tmp/w" -o -path "$tmp/ctl" \) -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; }
# race NAME COMMAND...: COMMAND runs again and again, each time in a new folder w/N/ (holding
# run/, a copy of $seed_run, if set) while the watcher runs (swapping $only*.tmp, if set)
race() {
    local name=$1; shift
    rm -rf w; mkdir w
    outside > ctl/before.sum
    /usr/bin/python3 ctl/watcher.py "$tmp/w" "$tmp/victim" "$secs" "${only:-}" > ctl/swaps & local wp=$!
    local runs=0 end=$((SECONDS + secs))
    while [ $SECONDS -lt $end ]; do
        mkdir w/$runs; [ -n "${seed_run:-}" ] && cp -r "$seed_run" w/$runs/run
        (cd w/$runs && timeout 60 "$@" >/dev/null 2>>"$tmp/ctl/race.err")
        [ $? = 124 ] && bad "$name: hung"
        runs=$((runs + 1))
    done
    wait $wp
    local n; n=$(cut -d' ' -f1 ctl/swaps)
    if [ "$(cat victim)" = victim ]; then echo "ok: $name, $secs s: $runs runs, $n swaps ($(cut -d' ' -f2- ctl/swaps)): victim unchanged"
    else bad "$name, $secs s: $runs runs, $n swaps: the victim was overwritten: $(od -An -c -N16 victim | head -1)"; echo victim > victim; fi
    outside > ctl/after.sum
    cmp -s ctl/before.sum ctl/after.sum || bad "$name: files outside the run changed: $(diff ctl/before.sum ctl/after.sum | head -4)"
    [ "$n" -gt 0 ] || bad "$name: the watcher swapped nothing (the race was not run)"
}

"$bin" train --hidden 4 --batch-size 2 --iterations 3 --quiet --workers 1 --run-dir seed >/dev/null || { echo "FAIL: train"; exit 1; }
seed_run=$tmp/seed race "plot" "$bin" plot run
# train: a checkpoint, config.txt and the curve every iteration; a swapped checkpoint ends the
# run (its write refuses to commit), so a second race swaps only the curve's temporaries, and
# train goes on drawing it
T=(train --hidden 4 --batch-size 1 --workers 1 --checkpoint-every 1 --iterations 10 --quiet --run-dir run)
race "train" "$bin" "${T[@]}"
only=curve.png race "train, curve.png.*.tmp only" "$bin" "${T[@]}"
if command -v ffmpeg >/dev/null; then
    race "record --out x.mp4" "$bin" record "$model" --out x.mp4 --max-steps 300
else skipped="ffmpeg not installed (Debian: ffmpeg): record --out x.mp4 not raced"; fi

# ---- metrics.csv becomes a FIFO once plot has begun its picture: no hang, no .tmp
cat > ctl/fifoswap.py <<'EOF'
import os, sys, time
d, end = sys.argv[1], time.time() + float(sys.argv[2])
while time.time() < end:
    if any(f.startswith("curve.png.") and f.endswith(".tmp") for f in os.listdir(d)):
        os.mkfifo(os.path.join(d, ".fifo"))
        os.rename(os.path.join(d, ".fifo"), os.path.join(d, "metrics.csv"))
        print("swapped"); break
EOF
swapped=
for try in 1 2 3 4 5; do
    rm -rf frun; cp -r seed frun
    /usr/bin/python3 ctl/fifoswap.py frun 10 > fifo.out & fp=$!
    sleep 0.2
    timeout 20 "$bin" plot frun >/dev/null 2>fifo.err; rc=$?
    kill $fp 2>/dev/null; wait $fp 2>/dev/null
    [ $rc = 124 ] && { bad "plot hung on a FIFO swapped in for metrics.csv"; break; }
    grep -q swapped fifo.out && { swapped=1; break; }
done
[ -n "$swapped" ] || bad "metrics.csv was never swapped for a FIFO during plot"
ls frun | grep -q '\.tmp$' && bad "a .tmp was left: $(ls frun | tr '\n' ' ')"
timeout 20 "$bin" plot frun >/dev/null 2>fifo.err; rc=$?
[ $rc = 1 ] && [ "$(wc -l < fifo.err)" = 1 ] && grep -q "not a regular file" fifo.err ||
    bad "plot with a FIFO metrics.csv: rc $rc: $(cat fifo.err)"
ls frun | grep -q '\.tmp$' && bad "a .tmp was left: $(ls frun | tr '\n' ' ')"
[ -n "$swapped" ] && echo "ok: metrics.csv a FIFO during plot: no hang, no .tmp; then: $(cat fifo.err)"

# ---- bench cluster from a directory named a';touch X;'b: no shell runs touch
mkdir inj && d="a';touch X;'b" && mkdir "inj/$d" && cp "$bin" "inj/$d/pongrl"
(cd inj && timeout 300 "./$d/pongrl" bench cluster --ranks 1 --transports vader --iterations 1 --batch-per-rank 1 \
    >"$tmp/bench.out" 2>"$tmp/bench.err"); rc=$?
if grep -q "built without" bench.err; then echo "note: built without MPI: bench cluster's launch not tested"
elif ! command -v mpirun >/dev/null; then echo "note: no mpirun: bench cluster's launch not tested"
else
    [ -e inj/X ] && bad "bench cluster ran a shell: the directory's name ran touch"
    [ $rc = 0 ] && grep -q '^cluster_vader_np1_ranks: 1$' bench.out || bad "bench cluster from $d: rc $rc: $(tail -3 bench.err)"
    [ -e inj/X ] || [ $rc != 0 ] || echo "ok: bench cluster from $d: measured, touch not run"
fi

# ---- one-line refusals
one_line() { # rc-wanted pattern command...
    local want=$1 pat=$2; shift 2
    timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ $rc = "$want" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q -- "$pat" "$tmp/err"; then
        echo "ok: $(echo "$*" | sed "s|$tmp/||g; s|$bin|pongrl|g; s|$root/||g" | cut -c1-100) -> $(cat "$tmp/err")"
    else bad "$*: rc $rc, want $want; stderr '$(head -c 400 "$tmp/err")', want '$pat'"; fi
}
one_line 2 "--ranks ''" "$bin" bench cluster --ranks ''
one_line 2 "--ranks '1,,2'" "$bin" bench cluster --ranks 1,,2
one_line 2 "unknown transport" "$bin" bench cluster --transports vader,ib
dpy=99; while [ -e /tmp/.X11-unix/X$dpy ] || [ -e /tmp/.X$dpy-lock ]; do dpy=$((dpy + 1)); done
one_line 1 "window" env -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER DISPLAY=:$dpy "$bin" watch "$model" --games 1 --max-steps 50

# ---- a failing gnuplot: its own reason, in one line; a full disk: the real reason
mkdir fake && printf '#!/bin/sh\necho "line 9: something broke" >&2\nexit 1\n' > fake/gnuplot && chmod +x fake/gnuplot
cp -r seed fg
one_line 1 "gnuplot failed (exit 1): line 9: something broke" env PATH="$tmp/fake:/usr/bin:/bin" "$bin" plot fg
ls fg | grep -q '\.tmp$' && bad "a failing gnuplot left a .tmp: $(ls fg)"
mkdir full
if mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
    mkdir full/run && cp seed/metrics.csv full/run/ && { dd if=/dev/zero of=full/filler bs=4k 2>/dev/null; true; }
    one_line 1 "No space left on device" "$bin" plot full/run
    ls full/run | grep -q '\.tmp$' && bad "plot on a full disk left a .tmp: $(ls full/run)"
    umount full
else echo "note: cannot mount a tmpfs (not root): plot on a full disk not tested"; fi

# ---- no shell anywhere in src/
hits=$(grep -rnE '\b(popen|system)\(' "$src" | grep -vE '^[^:]+:[0-9]+:\s*//')
[ -z "$hits" ] && echo "ok: no popen( or system( in src/" || bad "a shell is still started: $hits"

[ $failures = 0 ] || { echo "$failures failed"; exit 1; }
[ -z "$skipped" ] || { echo "skip: $skipped"; exit 77; }
echo ok
