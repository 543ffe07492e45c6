# xvfb_common.sh: sourced by the window tests (not a test itself). xvfb_start: the skip when a
# tool is missing, then a virtual X server on a free display (-displayfd: Xvfb picks the number
# and writes it), DISPLAY set to it. Needs $tmp, the pids array and fail() from the test.
xvfb_start() {
    for tool in Xvfb xwd xwininfo ffmpeg; do
        command -v $tool >/dev/null || { echo "skip: $tool not installed (Debian: xvfb, x11-apps, x11-utils, ffmpeg)"; exit 77; }
    done
    # -noreset: by default the server resets whenever its last client leaves, and a client
    # connecting meanwhile (a window, xwininfo, xdotool) fails or sees stale window ids
    Xvfb -displayfd 3 -screen 0 640x700x24 -nolisten tcp -noreset 3>"$tmp/dpy" 2>"$tmp/xvfb.log" &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$tmp/dpy" ] && break; sleep 0.1; done
    [ -s "$tmp/dpy" ] || fail "Xvfb did not start: $(cat "$tmp/xvfb.log")"
    export DISPLAY=:$(cat "$tmp/dpy")
    echo "Xvfb on $DISPLAY"
}
