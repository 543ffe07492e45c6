# lib_learner.sh: sourced after run_common.sh by a learner's end-to-end tests (not a test
# itself): the checks every learner's runs and exports pass, so that a new learner's tests call
# them with its settings instead of copying them. The runs take the learner's flags from the
# array T (--algo NAME and its settings, --seed 3 --quiet).

# same_bits_threads N: N iterations with 1, 2 and 3 worker threads ($tmp/w1, w2, w3) end with
# the same weights crc32 (left in a) and the same metrics rows.
same_bits_threads() {
    local b c w
    a=$("$bin" train "${T[@]}" --iterations "$1" --workers 1 --run-dir "$tmp/w1" | crc)
    b=$("$bin" train "${T[@]}" --iterations "$1" --workers 2 --run-dir "$tmp/w2" | crc)
    c=$("$bin" train "${T[@]}" --iterations "$1" --workers 3 --run-dir "$tmp/w3" | crc)
    echo "workers 1: $a  2: $b  3: $c"
    [ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ] || fail "weights differ with the thread count"
    for w in 2 3; do diff <(rows "$tmp/w1") <(rows "$tmp/w$w") || fail "metrics differ, workers 1 and $w"; done
}

# resumed_same_bits N: N/2 iterations on 2 threads ($tmp/r), then --resume to N on one, end as
# same_bits_threads's run did (its weights $a, the rows of $tmp/w1).
resumed_same_bits() {
    local got
    "$bin" train "${T[@]}" --iterations $(($1 / 2)) --workers 2 --run-dir "$tmp/r" >/dev/null || fail "first half"
    got=$("$bin" train --resume "$tmp/r" --iterations "$1" --workers 1 --quiet | crc)
    echo "straight $a, resumed $got"
    [ "$got" = "$a" ] || fail "resumed weights differ"
    diff <(rows "$tmp/w1") <(rows "$tmp/r") || fail "resumed metrics differ"
}

# other_seed N: N iterations with --seed 4 end with other weights than with T's seed 3 ($tmp/s3,
# its crc left in e).
other_seed() {
    local d
    d=$("$bin" train "${T[@]}" --iterations "$1" --seed 4 --run-dir "$tmp/s4" | crc)
    e=$("$bin" train "${T[@]}" --iterations "$1" --run-dir "$tmp/s3" | crc)
    echo "seed 3: $e, seed 4: $d"
    [ -n "$d" ] && [ "$d" != "$e" ] || fail "another seed, the same weights"
}

# plays_model EPISODES: eval (sampled and greedy) and record play the network of $tmp/w1.
plays_model() {
    local g out
    for g in "" --greedy; do
        out=$("$bin" eval "$tmp/w1" --episodes "$1" $g) || fail "eval $g"
        echo "$out" | grep -q 'mean score' || fail "eval $g: no score"
    done
    "$bin" record "$tmp/w1" --out "$tmp/g.gif" >/dev/null && [ -s "$tmp/g.gif" ] || fail "record"
}

# refused RC WHAT ARGS...: `pongrl train ARGS` (--run-dir $tmp/refused) ends with exit status RC
# ("any": not 0) and one line on stderr, which it prints.
refused() {
    local want=$1 what=$2 err rc
    shift 2
    err=$("$bin" train "$@" --run-dir "$tmp/refused" 2>&1 >/dev/null)
    rc=$?
    { [ "$want" = any ] && [ $rc != 0 ] || [ $rc = "$want" ]; } && [ "$(echo "$err" | wc -l)" = 1 ] ||
        fail "$what: rc=$rc '$err'"
    echo "$err"
}

# export_round_trip FILES: export of $tmp/run to $tmp/a writes exactly FILES (as ls lists them),
# import of the folder to $tmp/imp.bin and its export to $tmp/b write the same files, byte for byte.
export_round_trip() {
    local out f
    out=$("$bin" export "$tmp/run" --out "$tmp/a") || fail "export"
    echo "$out"
    [ "$(ls "$tmp/a" | tr '\n' ' ')" = "$1 " ] || fail "export wrote $(ls "$tmp/a" | tr '\n' ' ')"
    "$bin" import "$tmp/a" --out "$tmp/imp.bin" || fail "import"
    "$bin" export "$tmp/imp.bin" --out "$tmp/b" >/dev/null || fail "export of the imported model"
    for f in "$tmp"/a/*; do cmp "$f" "$tmp/b/$(basename "$f")" || fail "$(basename "$f") differs after export, import, export"; done
}

# plays_alike EPISODES WORKERS: eval (sampled and greedy) of the run, of the imported checkpoint
# (one worker) and of the exported folder give the same lines.
plays_alike() {
    local g r i e
    for g in "" --greedy; do
        r=$("$bin" eval "$tmp/run" --episodes "$1" --workers "$2" $g | tail -n +3) || fail "eval run $g"
        i=$("$bin" eval "$tmp/imp.bin" --episodes "$1" --workers 1 $g | tail -n +3) || fail "eval imported $g"
        e=$("$bin" eval "$tmp/a" --episodes "$1" --workers "$2" $g | tail -n +3) || fail "eval exported folder $g"
        [ "$r" = "$i" ] && [ "$r" = "$e" ] || fail "eval $g differs: run '$r', imported '$i', folder '$e'"
    done
    echo "eval (sampled, greedy): the run, the imported checkpoint and the exported folder play alike"
}

# bad NAME: $tmp/NAME, a copy of the exported folder $tmp/a to spoil.
bad() { rm -rf "${tmp:?}/$1"; cp -r "$tmp/a" "$tmp/$1"; }
# bad_arrays NAME: the same without model.txt's crc32 line (as an export written before there was
# one), so that arrays changed by hand meet the checks of their shape and values, not the crc32's.
bad_arrays() { bad "$1"; sed -i '/^crc32=/d' "$tmp/$1/model.txt"; }
# mixed NAME FILE: a copy whose FILE is another file (its last value changed): refused by the crc32
# line, naming FILE.
mixed() {
    bad "$1"
    /usr/bin/python3 -c 'import numpy as np, sys; a = np.load(sys.argv[1]); a.flat[-1] += 1; np.save(sys.argv[1], a)' \
        "$tmp/$1/$2"
    one_line "$1" "$2: not the file .*model.txt was written with (crc32 [0-9a-f]\{8\}, model.txt says [0-9a-f]\{8\})"
}

# one_line NAME PATTERN: import and eval of $tmp/NAME refuse it with one line matching PATTERN, exit 1.
one_line() {
    local cmd args err rc
    for cmd in import eval; do
        if [ $cmd = import ]; then args=(import "$tmp/$1" --out "$tmp/x.bin"); else args=(eval "$tmp/$1" --episodes 1); fi
        err=$("$bin" "${args[@]}" 2>&1 >/dev/null)
        rc=$?
        [ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q -- "$2" ||
            fail "$cmd of $1: rc=$rc '$err' (want '$2')"
    done
    echo "$1: $err"
}

# return_rises N: N iterations learn: the mean return of the last 40 finished episodes is at least
# 1.5 points above that of the first 40 (a random policy loses 21-0 or 21-1 nearly every game:
# the first 40 score about -20.5), with at least 80 episodes so that the two 40s do not overlap.
return_rises() {
    "$bin" train "${T[@]}" --iterations "$1" --checkpoint-every 0 --checkpoint-secs 0 --run-dir "$tmp/learn" |
        tail -1 || fail "training"
    /usr/bin/python3 - "$tmp/learn/metrics.csv" <<'PY' || fail "the return did not rise by 1.5"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ret, prev = [], 0
for r in rows:  # each row: the episodes finished in that iteration and their mean
    n = int(r["episodes"]) - prev
    prev += n
    if n:  # an iteration that ended none leaves its batch mean empty
        ret += [float(r["batch_mean_reward"])] * n
first, last = sum(ret[:40]) / 40, sum(ret[-40:]) / 40
print(f"{len(ret)} episodes: first 40 mean {first:+.2f}, last 40 mean {last:+.2f}")
sys.exit(0 if len(ret) >= 80 and last >= first + 1.5 else 1)
PY
}
