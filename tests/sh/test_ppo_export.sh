#!/usr/bin/env bash
# A PPO model out to .npy and back (export, import): the round trip gives the same bits
# (export -> import -> export writes the same files) and eval plays the run, the imported
# checkpoint and the exported folder alike (sampled and greedy); the checkpoint of a PPO run
# holds no pg network (format version 4: PPO's arrays alone, its weights first). Files that do not fit are
# refused in one line, exit 1: a missing or misshapen array, NaN, an array that is not the one
# model.txt's crc32 line names (of another export), a model.txt whose settings,
# actions or format are not the arrays' or this build's, one that says value_hidden of arrays
# that are not a separate value network. tools/play_npy.py plays the exported
# PPO folder and Karpathy's models/pong-v5 through Gymnasium's make with pongrl's ids (with
# Gymnasium when importable: PYTHONPATH or PONGRL_GYMNASIUM_DIRS; else with a stand-in make
# that calls pongrl.make), mapping the outputs by action name (full_action_space too).
set -uo pipefail
source "$(dirname "$0")/run_common.sh"
source "$(dirname "$0")/lib_learner.sh"
py=/usr/bin/python3

"$bin" train --algo ppo --envs 4 --steps 64 --hidden 16 --minibatches 2 --epochs 2 --lr 0.01 --iterations 4 \
    --seed 3 --workers 2 --quiet --run-dir "$tmp/run" >/dev/null || fail "train"
ck="$tmp/run/checkpoints/ckpt-00000004.bin"
read -r ver first names <<<"$($py -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
ver, hb, st = struct.unpack_from("<III", b, 8)
at = 20 + st + 6 * 8 + 4
count, = struct.unpack_from("<I", b, at)
names = [b[at + 4 + 48 * i:at + 4 + 48 * i + 24].rstrip(b"\0").decode() for i in range(count)]
print(ver, names[0].replace(" ", "_"), ",".join(n.replace(" ", "_") for n in names))' "$ck")"
echo "PPO checkpoint: format version $ver, arrays $names"
[ "$ver" = 4 ] && [ "$first" = PPO_weights ] && ! echo ",$names," | grep -q ',weights,' ||
    fail "a PPO checkpoint carries Karpathy's network or is not version 4"

export_round_trip "model.txt ppo_W1.npy ppo_Wpi.npy ppo_b1.npy ppo_bpi.npy ppo_bv.npy ppo_wv.npy"
# the arrays are the checkpoint's weights, in acnet.h's order, bit for bit
$py - "$ck" "$tmp/a" <<'EOF' || fail "the exported arrays are not the checkpoint's weights"
import struct, sys, zlib, numpy as np
b = open(sys.argv[1], "rb").read()
ver, hb, st = struct.unpack_from("<III", b, 8)
# the first array is "PPO weights"; the header keeps the CRC of its float64s as the run held them
L = lambda k: np.load("%s/ppo_%s.npy" % (sys.argv[2], k))
parts = [L(k).ravel() for k in ("W1", "b1", "Wpi", "bpi", "wv", "bv")]
n = sum(p.size for p in parts)
at = 20 + st + 6 * 8 + 4 + 4
name, nonneg, length, stored, crc = struct.unpack_from("<24sIQQI", b, at)
assert name.rstrip(b"\0") == b"PPO weights" and length == n, (name, length, n)
assert zlib.crc32(np.concatenate(parts).astype("<f8").tobytes()) == crc
print("exported arrays = the checkpoint's %d weights, bit for bit" % n)
EOF
plays_alike 2 2

# bad folders: one line, exit 1, from import and from eval
bad nob1; rm "$tmp/nob1/ppo_b1.npy"; one_line nob1 "ppo_b1.npy: .*No such file"
mixed mixed ppo_bpi.npy
bad_arrays wpi; cp "$tmp/a/ppo_b1.npy" "$tmp/wpi/ppo_Wpi.npy"; one_line wpi "ppo_Wpi.npy: shape must be (3, 16)"
bad_arrays nan; $py -c 'import numpy as np, sys; np.save(sys.argv[1], np.array([np.nan]))' "$tmp/nan/ppo_bv.npy"
one_line nan "NaN or infinity"
bad coarse; sed -i 's/^coarse=1$/coarse=0/' "$tmp/coarse/model.txt"; one_line coarse "input_size=14880, but .* has input_size=12800"
bad hidden; sed -i 's/^hidden=16$/hidden=17/' "$tmp/hidden/model.txt"; one_line hidden "ppo_W1.npy: shape must be (14880, 17)"
bad actions; sed -i 's/^actions=.*/actions=NOOP,LEFT,RIGHT/' "$tmp/actions/model.txt"; one_line actions "actions=NOOP,LEFT,RIGHT, but"
bad format; sed -i 's/^format=1$/format=2/' "$tmp/format/model.txt"; one_line format "format 2, this build reads format 1"
bad unknown; echo "colour=blue" >>"$tmp/unknown/model.txt"; one_line unknown "unknown line 'colour'"
bad setting; echo "decay=0.9" >>"$tmp/setting/model.txt"; one_line setting "decay is not one of the ppo learner's"
bad split; sed -i 's/^value_hidden=.*/value_hidden=4/' "$tmp/split/model.txt"
one_line split "value_hidden gives the value 4 units of its own, but ppo_Wpi.npy's last 4 columns or ppo_wv.npy's first 12 entries are not all zero"

# tools/play_npy.py through Gymnasium's make (or a stand-in) on pongrl's envs
IFS=: read -ra dirs <<<"${PONGRL_GYMNASIUM_DIRS:-}"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
if $py -c 'import gymnasium' 2>/dev/null; then gym="importable"
elif [ ${#dirs[@]} -gt 0 ] && [ -d "${dirs[0]}/gymnasium" ]; then PYTHONPATH="${dirs[0]}:$PYTHONPATH"; gym="${dirs[0]}"
else
    mkdir -p "$tmp/shim/gymnasium"
    cat >"$tmp/shim/gymnasium/__init__.py" <<'EOF'
"""A stand-in for gymnasium.make (the test, without Gymnasium): pongrl's make, "module:id" too."""
import importlib
__version__ = "stand-in"
def make(id, **kw):
    mod, _, name = id.rpartition(":")
    return importlib.import_module(mod or "pongrl").make(name, **kw)
EOF
    export PONGRL_NO_GYMNASIUM=1 PYTHONPATH="$tmp/shim:$PYTHONPATH"; gym="a stand-in (pongrl.make)"
fi
echo "play_npy.py with Gymnasium: $gym"
o=$($py tools/play_npy.py "$tmp/a" --env pongrl:pongrl/Pong-v5 --max-steps 300 --seed 1) || fail "play_npy.py PPO: $o"
echo "$o"
grep -q "actions NOOP,RIGHT,LEFT -> 0,2,3" <<<"$o" && grep -qE "^episode 1: score [-+][0-9]+, 300 steps" <<<"$o" || fail "play_npy.py PPO output"
o=$($py tools/play_npy.py "$tmp/a" --env pongrl:pongrl/Pong-v5 --max-steps 50 --full-action-space --greedy) || fail "play_npy.py full: $o"
grep -q "actions NOOP,RIGHT,LEFT -> 0,3,4" <<<"$o" || fail "play_npy.py full_action_space: $o"
o=$($py tools/play_npy.py models/pong-v5 --env pongrl:pongrl/Pong-v5 --max-steps 300) || fail "play_npy.py pg: $o"
echo "$o"
grep -q "actions RIGHT,LEFT -> 2,3" <<<"$o" || fail "play_npy.py pg output"
err=$($py tools/play_npy.py "$tmp/coarse" --env pongrl:pongrl/Pong-v5 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "play_npy.py of a bad folder: rc=$rc '$err'"
echo "$err"
echo ok
