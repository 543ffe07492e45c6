#!/usr/bin/env bash
# watch: without a display (or without SDL2 in the build), one line and exit 1. With SDL2 and
# Xvfb: the window opens under a virtual X server, a screenshot taken by the X server's own
# xwd shows, scaled 3x, a picture the same game's GIF holds exactly (decoded by ffmpeg, not by
# us), and Ctrl-C (SIGINT) and Esc close it with exit 0. PONGRL_SHOT=file.png keeps the
# window's screenshot. Skips (77) when SDL2, Xvfb, xwd, xwininfo or ffmpeg is missing.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PONGRL_BIN:-build/pongrl}
model=models/pong-v5
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/watch.err" ] && sed 's/^/  watch: /' "$tmp/watch.err"; exit 1; }

# no display: one line, exit 1, whether or not this build has SDL2
err=$(env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$bin" watch "$model" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "no display: rc=$rc '$err'"
echo "no display: rc=$rc: $err"
if echo "$err" | grep -q "built without SDL2"; then echo "skip: this pongrl was built without SDL2 (libsdl2-dev)"; exit 77; fi
err=$("$bin" watch "$model" --scale 0 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] || fail "--scale 0: rc=$rc '$err'"
source tests/sh/xvfb_common.sh
xvfb_start

# the reference: the same game (seed 1, eval's episode 0) as a lossless GIF, every picture
"$bin" record "$model" --max-steps 400 --out "$tmp/ref.gif" >/dev/null || fail "record"
ffmpeg -v error -i "$tmp/ref.gif" -fps_mode passthrough -f rawvideo -pix_fmt rgb24 -y "$tmp/ref.rgb" || fail "ffmpeg"

# "x y w h" of the watch window once window_open has returned (the first line on stdout: SDL
# may make and replace a window while it picks a renderer, so none is trusted before)
window_geometry() {  # $1: the watch's stdout
    for _ in $(seq 100); do grep -q '^pongrl watch:' "$1" && break; sleep 0.1; done
    for _ in $(seq 100); do
        line=$(xwininfo -root -tree 2>/dev/null | grep "\"pongrl watch" | head -1)
        if [ -n "$line" ]; then
            id=$(echo "$line" | awk '{print $1}')
            xwininfo -id "$id" | awk '/Absolute upper-left X/{x=$NF} /Absolute upper-left Y/{y=$NF}
                                      /Width:/{w=$NF} /Height:/{h=$NF} END{print x, y, w, h}'
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# (a job started with & ignores SIGINT; a terminal's foreground program does not)
env --default-signal=INT "$bin" watch "$model" --games 1 --max-steps 400 --scale 3 >"$tmp/watch.out" 2>"$tmp/watch.err" &
wpid=$!; pids+=($wpid)
geo=$(window_geometry "$tmp/watch.out") || fail "no window appeared"
echo "window at x y w h = $geo"
set -- $geo
[ "$3" = 480 ] && [ "$4" = 630 ] || fail "window is $3x$4, want 480x630 (3 x 160x210)"
# screenshots until one is whole (a picture may be taken mid-update): it must be one of the GIF's
ok=0
for i in $(seq 10); do
    xwd -root -silent > "$tmp/shot.xwd" || fail "xwd"
    ffmpeg -v error -i "$tmp/shot.xwd" -vf "crop=$3:$4:$1:$2" -pix_fmt rgb24 -y "$tmp/shot.ppm" || fail "ffmpeg cannot read xwd"
    if /usr/bin/python3 - "$tmp/shot.ppm" "$tmp/ref.rgb" <<'EOF'; then ok=1; break; fi
import sys
import numpy as np
data = open(sys.argv[1], "rb").read().split(b"\n", 3)
assert data[0] == b"P6" and data[1] == b"480 630", data[:3]
shot = np.frombuffer(data[3], np.uint8).reshape(630, 480, 3)
small = shot[1::3, 1::3]                               # the middle of each 3x3 block
blocks = np.repeat(np.repeat(small, 3, 0), 3, 1)
ref = np.fromfile(sys.argv[2], np.uint8).reshape(-1, 210, 160, 3)
diff = np.abs(ref.astype(int) - small.astype(int)).reshape(len(ref), -1).max(1)
k = int(diff.argmin())
print("screenshot: 3x3 blocks uniform: %s; closest of the game's %d pictures: #%d, max |difference| %d"
      % (bool((blocks == shot).all()), len(ref), k, diff[k]))
sys.exit(0 if (blocks == shot).all() and diff[k] == 0 else 1)
EOF
    sleep 0.3
done
[ $ok = 1 ] || fail "no screenshot showed a picture of the game"
if [ -n "${PONGRL_SHOT:-}" ]; then ffmpeg -v error -i "$tmp/shot.xwd" -vf "crop=$3:$4:$1:$2" -y "$PONGRL_SHOT" && echo "kept $PONGRL_SHOT"; fi

# Ctrl-C in the terminal: SIGINT closes the window, exit 0
kill -INT $wpid
wait $wpid; rc=$?
[ $rc = 0 ] || fail "after SIGINT: rc=$rc"
grep -q '^closed$' "$tmp/watch.out" || fail "after SIGINT: no 'closed' line: $(cat "$tmp/watch.out")"
echo "SIGINT: closed, rc=0"

# Esc in the window, when xdotool can press it
if command -v xdotool >/dev/null; then
    "$bin" watch "$model" --env pongrl/PongNoFrameskip-v4 >"$tmp/watch2.out" 2>"$tmp/watch.err" &
    wpid=$!; pids+=($wpid)
    window_geometry "$tmp/watch2.out" >/dev/null || fail "no window appeared (NoFrameskip)"
    # by a name of its own: the first window may still be listed while the server drops it
    # (SDL may still replace its window while it picks a renderer: a focus on an id that just
    # went is a BadWindow, so the newest window of that name is tried again, a few times)
    pressed=0
    for _ in $(seq 20); do
        id=$(xdotool search --name "on PongNoFrameskip-v4" 2>/dev/null | tail -1)
        [ -n "$id" ] && xdotool windowfocus --sync "$id" key Escape 2>/dev/null && { pressed=1; break; }
        sleep 0.2
    done
    [ $pressed = 1 ] || fail "xdotool could not press Esc in the window"
    for _ in $(seq 50); do kill -0 $wpid 2>/dev/null || break; sleep 0.1; done
    kill -0 $wpid 2>/dev/null && fail "Esc did not close the window"
    wait $wpid; rc=$?
    [ $rc = 0 ] && grep -q '^closed$' "$tmp/watch2.out" || fail "after Esc: rc=$rc $(cat "$tmp/watch2.out")"
    echo "Esc: closed, rc=0"
else
    echo "note: xdotool missing: Esc not tested"
fi

# two short games under ASan+UBSan, when make test built build/debug/pongrl. Leak checking is
# off: the X11 modules SDL loads and unloads keep allocations that LeakSanitizer reports from
# "<unknown module>" (none of them ours: window_close frees all it made).
dbg=build/debug/pongrl
if [ -x "$dbg" ]; then
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 "$dbg" watch "$model" --games 2 --max-steps 30 --speed 10 \
        >"$tmp/san.out" 2>"$tmp/san.log" || fail "sanitized watch: $(tail -5 "$tmp/san.log")"
    grep -qE 'Sanitizer|runtime error' "$tmp/san.log" && fail "sanitizer report: $(head -20 "$tmp/san.log")"
    [ "$(grep -c '^game [12]: ' "$tmp/san.out")" = 2 ] || fail "sanitized watch: $(cat "$tmp/san.out")"
    echo "under ASan+UBSan: 2 games, clean"
fi
echo ok
