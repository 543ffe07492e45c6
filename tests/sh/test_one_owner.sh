#!/usr/bin/env bash
# One process at a time owns a run directory: while a run trains, a second --resume of it and a
# fresh run into it are refused with one line (rc 1) and the owner's metrics.csv stays one row
# per iteration, in order; an owner killed with SIGKILL leaves no lock behind (an immediate
# --resume goes ahead), and the run still ends with the weights of one straight run.
set -uo pipefail
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); pids=()
trap 'for p in "${pids[@]}"; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
crc() { sed -n 's/.*weights crc32 \([0-9a-f]*\).*/\1/p'; }
T=(--hidden 16 --batch-size 2 --seed 11 --quiet --workers 1)
in_order() { awk -F, 'NR > 1 && $1 != p + 1 { bad++ } NR > 1 { p = $1 } END { exit bad > 0 }' "$1"; }
rows() { tail -n +2 "$1" | wc -l; }

d=$tmp/run
"$bin" train "${T[@]}" --iterations 2 --run-dir "$d" >/dev/null || fail "first run"
"$bin" train --resume "$d" --iterations 100000000 --quiet >"$tmp/a.out" 2>&1 &
a=$!; pids+=($a)
for i in $(seq 100); do [ "$(rows "$d/metrics.csv")" -gt 10 ] && break; sleep 0.05; done
for second in "train --resume $d --iterations 100000000 --quiet" "train ${T[*]} --iterations 5 --run-dir $d"; do
    t0=$(date +%s%N)
    err=$(timeout 10 "$bin" $second 2>&1 >/dev/null); rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "second process ($second): rc $rc after $ms ms: $err"
    [ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] && grep -q 'in use' <<<"$err" || fail "a second process on the run: rc $rc, '$err'"
    [ $ms -lt 5000 ] || fail "refusing took $ms ms"
done
kill -0 $a 2>/dev/null || { cat "$tmp/a.out"; fail "the owner did not survive the second process"; }
kill -INT $a; wait $a; rc=$?
[ $rc = 0 ] || { cat "$tmp/a.out"; fail "owner after SIGINT: rc $rc"; }
in_order "$d/metrics.csv" || fail "metrics.csv is not one row per iteration, in order"
n=$(rows "$d/metrics.csv")
echo "owner stopped at iteration $n"

# a dead owner leaves nothing stuck: SIGKILL, then at once a resume, which takes the run over
"$bin" train --resume "$d" --iterations 100000000 --quiet >/dev/null 2>&1 &
b=$!; pids+=($b)
for i in $(seq 100); do [ "$(rows "$d/metrics.csv")" -gt $((n + 5)) ] && break; sleep 0.05; done
kill -9 $b; wait $b 2>/dev/null
m=$(( $(ls "$d/checkpoints" | grep -v tmp | tail -1 | tr -dc 0-9 | sed 's/^0*//') + 3 ))
got=$("$bin" train --resume "$d" --iterations $m 2>"$tmp/err" | crc)
[ -n "$got" ] || fail "resume after SIGKILL of the owner: $(cat "$tmp/err")"
in_order "$d/metrics.csv" || fail "metrics.csv out of order after the takeover"
[ "$(rows "$d/metrics.csv")" = $m ] || fail "metrics.csv has $(rows "$d/metrics.csv") rows, want $m"
want=$("$bin" train "${T[@]}" --iterations $m --run-dir "$tmp/straight" | crc)
echo "after the owner's SIGKILL: resumed to $m, weights $got, straight run $want"
[ "$got" = "$want" ] || fail "weights differ from a straight run"
echo ok
