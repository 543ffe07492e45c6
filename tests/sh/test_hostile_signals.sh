#!/usr/bin/env bash
# Signals and limits leave nothing behind. Under `ulimit -f` a write past the limit fails with
# EFBIG, said in one line ("File too large"), the temporary removed, instead of a death by
# SIGXFSZ that leaves it; SIGINT, SIGTERM and SIGHUP during record remove its temporary (the
# process still dies of the signal, as a shell expects); a temporary whose writer died is
# removed by the next write of the same file, a living writer's is kept.
set -uo pipefail
bin=$(realpath "${PONGRL_BIN:-build/pongrl}")
models=$(realpath "$(dirname "$0")/../../models")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/hostile_common.sh"
cd "$tmp"
tmps() { find . -name '*.tmp' | sort | tr '\n' ' '; }

# ---- ulimit -f: EFBIG in one line, status 1, no temporary
for c in "train --iterations 3 --hidden 200 --run-dir big --quiet" "record $models/pong-v5-ppo --out big.gif" \
         "export $models/pong-v5-ppo --out bigx" "import $models/pong-v5 --out big.bin"; do
    (ulimit -f 64; exec "$bin" $c) >/dev/null 2>err; rc=$?
    if [ $rc = 1 ] && [ "$(wc -l < err)" = 1 ] && grep -q 'File too large' err; then echo "ok: ulimit -f 64: $c -> $(cat err)"
    else bad "ulimit -f 64: $c: rc $rc (153: killed by SIGXFSZ), stderr '$(head -c 300 err)'"; fi
    [ -z "$(tmps)" ] || bad "ulimit -f 64: $c left $(tmps)"
done

# ---- a signal during record: the process dies of it, its temporary is gone (job control on:
# a script's background job would otherwise start with SIGINT ignored, and an ignored signal
# stays ignored, as under nohup)
set -m
for sig in INT TERM HUP; do
    "$bin" record "$models/pong-v5-ppo" --out sig.gif >/dev/null 2>&1 & pid=$!
    for i in $(seq 500); do [ -n "$(tmps)" ] && break; sleep 0.01; done
    [ -n "$(tmps)" ] || { bad "record never made its temporary"; wait $pid; continue; }
    kill -$sig $pid; wait $pid; rc=$?
    [ $rc = $((128 + $(kill -l $sig))) ] || bad "record after SIG$sig: rc $rc"
    [ -z "$(tmps)" ] && echo "ok: SIG$sig during record: no temporary left" || bad "SIG$sig during record left $(tmps)"
    rm -f sig.gif
done
set +m
# ... and a signal ignored when pongrl starts (nohup) stays ignored: the recording completes
nohup "$bin" record "$models/pong-v5-ppo" --out hup.gif >/dev/null 2>&1 & pid=$!
for i in $(seq 500); do [ -n "$(tmps)" ] && break; sleep 0.01; done
kill -HUP $pid; wait $pid; rc=$?
[ $rc = 0 ] && [ -s hup.gif ] && echo "ok: SIGHUP under nohup: ignored, the recording completed" ||
    bad "SIGHUP under nohup: rc $rc, $(ls)"

# ---- a dead writer's temporary is swept by the next write of the file; a live one's is kept
sleep 100 & live=$!
bash -c 'exit 0' & dead=$!; wait $dead
touch out.bin.p$dead.0123abcd.tmp out.bin.p$live.0123abcd.tmp
"$bin" import "$models/pong-v5" --out out.bin >/dev/null || bad "import"
[ -e out.bin.p$dead.0123abcd.tmp ] && bad "a dead writer's temporary was kept"
[ -e out.bin.p$live.0123abcd.tmp ] || bad "a living writer's temporary was removed"
kill $live
finish
