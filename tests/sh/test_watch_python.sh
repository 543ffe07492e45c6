#!/usr/bin/env bash
# Python: get_keys_to_action equals ale-py's own answer (tests/data/ale-py); render_mode="human"
# without pygame or without a display is one clear error; under Xvfb the window, captured by
# the X server's xwd after a step, is env.frame() scaled 3x; and with Gymnasium (on PYTHONPATH
# or in PONGRL_GYMNASIUM_DIRS) a person playing through gymnasium.utils.play.play, keys pressed
# by xdotool, moves the paddle with ale-py's keys. Skips (77) the window parts when pygame,
# Xvfb, xwd or ffmpeg is missing.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" PYGAME_HIDE_SUPPORT_PROMPT=1
PY=/usr/bin/python3
[ -e build/libpongrl.so ] || { echo "skip: build/libpongrl.so not built"; exit 77; }
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

$PY - <<'EOF' || fail "keys, errors"
import json, os
import pongrl
want = json.load(open("tests/data/ale-py/keys_to_action.json"))
for full, label in ((False, "minimal"), (True, "full")):
    env = pongrl.make("ALE/Pong-v5", full_action_space=full)
    got = env.unwrapped.get_keys_to_action()
    assert got == {tuple(k): a for k, a in want[label]}, (label, got)
    print("get_keys_to_action (%s, %d actions) = ale-py's" % (label, len(got)))
assert "human" in pongrl.Env.metadata["render_modes"]
# the vector env has no window (ale-py's AtariVectorEnv has none either)
try:
    pongrl.make_vec("ALE/Pong-v5", 2, render_mode="human")
    raise SystemExit("make_vec accepted render_mode='human'")
except ValueError as e:
    print("make_vec, human:", e)
# no display: one line on stderr at the first frame (the window opens there, as Gymnasium's
# do), then frames go nowhere, so that Gymnasium's check_env (an env in every mode) passes
import contextlib, importlib.util, io
if importlib.util.find_spec("pygame"):
    for k in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        os.environ.pop(k, None)
    env = pongrl.make("ALE/Pong-v5", render_mode="human")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        env.reset(seed=0)
        env.step(0)
        env.reset(seed=1)
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and "DISPLAY" in lines[0] and "rgb_array" in lines[0], lines
    print("no display:", lines[0])
    env.close()
else:
    print("note: pygame missing: the no-display error not tested")
EOF
# a display named that nobody answers (DISPLAY=:99, no X server): the first frame says so, a
# RuntimeError, rather than SDL falling back to an offscreen driver and drawing nowhere
if $PY -c "import pygame" 2>/dev/null; then
    DISPLAY=:99 env -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER $PY - <<'EOF' || fail "a display nobody answers"
import pongrl
env = pongrl.make("ALE/Pong-v5", render_mode="human")
try:
    env.reset(seed=0)
    raise SystemExit("render_mode='human' with DISPLAY=:99 and no X server played on")
except RuntimeError as e:
    assert "cannot open a window" in str(e), e
    print("DISPLAY=:99:", e)
EOF
fi
# without pygame: the error says what to install, and is an ImportError
$PY - <<'EOF' || fail "without pygame"
import sys
sys.modules["pygame"] = None                # import pygame now raises ImportError
import pongrl
try:
    pongrl.make("ALE/Pong-v5", render_mode="human")
    raise SystemExit("made a human env without pygame")
except ImportError as e:
    assert "python3-pygame" in str(e), e
    print("without pygame:", type(e).__name__, e)
EOF

$PY -c "import pygame" 2>/dev/null || { echo "skip: pygame missing (Debian: python3-pygame): the window not tested"; exit 77; }
source tests/sh/xvfb_common.sh
xvfb_start

# the window after a step shows that step's frame, 3x, pixel for pixel (read back by xwd and ffmpeg)
$PY - "$tmp" "${PONGRL_SHOT:-}" <<'EOF' || fail "human window"
import subprocess, sys
import numpy as np
import pongrl
tmp, keep = sys.argv[1], sys.argv[2]
env = pongrl.make("ALE/Pong-v5", render_mode="human", repeat_action_probability=0.0)
env.reset(seed=3)
assert env.render() is None                 # "human" draws and returns None, as ale-py's
for t in range(45):
    env.step(2 if (t // 15) % 2 else 3)
want = env.frame()
xwd = subprocess.run(["xwd", "-root", "-silent"], capture_output=True, check=True).stdout
open(tmp + "/shot.xwd", "wb").write(xwd)
ppm = subprocess.run(["ffmpeg", "-v", "error", "-i", tmp + "/shot.xwd", "-f", "image2pipe", "-vcodec", "ppm",
                      "-"], capture_output=True, check=True).stdout.split(b"\n", 3)
w, h = map(int, ppm[1].split())
root = np.frombuffer(ppm[3], np.uint8).reshape(h, w, 3)
big = np.repeat(np.repeat(want, 3, 0), 3, 1)
# where is the window? the one place the scaled frame fits
top = big[0].tobytes()
found = []
for y in range(h - 630 + 1):
    i = root[y].tobytes().find(top)
    while i >= 0 and not found:
        if i % 3 == 0 and i // 3 + 480 <= w and np.array_equal(root[y:y + 630, i // 3:i // 3 + 480], big):
            found.append((y, i // 3))
        i = root[y].tobytes().find(top, i + 1)
assert len(found) >= 1, "the window does not show env.frame() scaled 3x"
y, x = found[0]
print("human window at (%d, %d): 480x630, env.frame() scaled 3x pixel for pixel" % (x, y))
if keep:
    subprocess.run(["ffmpeg", "-v", "error", "-i", tmp + "/shot.xwd", "-vf", "crop=480:630:%d:%d" % (x, y), "-y",
                    keep], check=True)
    print("kept", keep)
env.close()
EOF

# gymnasium.utils.play: d held (ale-py's RIGHT, the paddle up) then Esc; needs Gymnasium and xdotool
gdirs=()
$PY -c "import gymnasium" 2>/dev/null && gdirs+=("")
IFS=: read -ra more <<< "${PONGRL_GYMNASIUM_DIRS:-}"
for d in "${more[@]}"; do [ -n "$d" ] && gdirs+=("$d"); done
if [ ${#gdirs[@]} = 0 ] || ! command -v xdotool >/dev/null; then
    echo "note: Gymnasium (PYTHONPATH or PONGRL_GYMNASIUM_DIRS) or xdotool missing: gymnasium.utils.play not tested"
    echo ok; exit 0
fi
for d in "${gdirs[@]}"; do
    PYTHONPATH="$PYTHONPATH${d:+:$d}" $PY -W ignore - "$tmp/play.log" <<'EOF' &
import sys
import gymnasium as gym
from gymnasium.utils.play import play
import pongrl  # noqa: F401  (registers pongrl/...)
log = open(sys.argv[1], "w")
def note(obs_t, obs_tp1, action, rew, terminated, truncated, info):
    log.write("%d %d\n" % (action, info["frame_number"]))
    log.flush()
print("gymnasium", gym.__version__, flush=True)
play(gym.make("pongrl/Pong-v5", render_mode="rgb_array"), zoom=3, callback=note)
EOF
    ppid=$!; pids+=($ppid)
    wid=""
    # play's window keeps pygame's default name (SDL may make and drop a probe window first)
    for _ in $(seq 100); do wid=$(xwininfo -root -children 2>/dev/null | awk '/"pygame window"/ {print $1; exit}'); [ -n "$wid" ] && break; sleep 0.1; done
    [ -n "$wid" ] || fail "play: no window"
    sleep 1
    xdotool windowfocus --sync "$wid" keydown d sleep 1 keyup d sleep 0.3 key Escape || fail "xdotool"
    for _ in $(seq 50); do kill -0 $ppid 2>/dev/null || break; sleep 0.1; done
    kill -0 $ppid 2>/dev/null && fail "play: Esc did not end it"
    wait $ppid || fail "play exited non-zero"
    n=$(wc -l < "$tmp/play.log"); right=$(awk '$1 == 2' "$tmp/play.log" | wc -l); noop=$(awk '$1 == 0' "$tmp/play.log" | wc -l)
    echo "play: $n steps, $right with 'd' held (RIGHT, 2), $noop with no key (NOOP)"
    [ "$right" -gt 0 ] && [ "$noop" -gt 0 ] || fail "play: the keys did not become actions"
    rm -f "$tmp/play.log"
    # the next play's window has the same name: wait until the server has dropped this one
    for _ in $(seq 50); do xwininfo -root -children | grep -q '"pygame window"' || break; sleep 0.1; done
done
echo ok
