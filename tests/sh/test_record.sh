#!/usr/bin/env bash
# record: a whole game by default (the same game as eval's episode 0), --max-steps only when
# asked; --env takes pongrl's and ALE's names; .gif or .mp4, any other name refused; an MP4
# read back by ffprobe and ffmpeg (not our code) has the game's length and the GIF's last
# picture; without ffmpeg, or when it fails, one line and no file left behind.
# The MP4 parts need ffmpeg (optional: Debian's ffmpeg); without it they are skipped (77).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${PONGRL_BIN:-build/pongrl}
model=models/pong-v5
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
one_line() {  # $1 want rc, $2 rc, $3 stderr, $4 what
    [ "$2" = "$1" ] && [ "$(printf '%s\n' "$3" | wc -l)" = 1 ] && [ -n "$3" ] || fail "$4: rc=$2 '$3'"
    echo "$4: rc=$2: $3"
}

# the whole game by default: eval's episode 0 with the same seed, to its end
want=$("$bin" eval "$model" --episodes 1 --seed 3 --verbose | sed -n 's/^episode 0: .*, \([0-9]*\) steps.*/\1/p')
r=$("$bin" record "$model" --seed 3 --out "$tmp/game.gif") || fail "record"
echo "$r"
steps=$(echo "$r" | sed -n 's/.*game over after \([0-9]*\) steps.*/\1/p')
[ -n "$want" ] && [ "$steps" = "$want" ] || fail "record played '$steps' steps, eval's episode 0 '$want'"
[ "$want" -gt 3000 ] || fail "the game ($want steps) is too short to show that no 3000-step cap is left"

# --env: ALE's ids and Gymnasium's pongrl/ names of the same presets
for pair in "ALE/Pong-v5 ALE/Pong-v5" "pongrl/Pong-v5 ALE/Pong-v5" "PongNoFrameskip-v4 PongNoFrameskip-v4" \
            "pongrl/PongNoFrameskip-v4 PongNoFrameskip-v4" "pongrl/Pong-v0 Pong-v0"; do
    set -- $pair
    r=$("$bin" record "$model" --env "$1" --max-steps 20 --out "$tmp/e.gif") || fail "--env $1"
    echo "$r" | grep -q "^  $2, seed 1, .*stopped at --max-steps after 20 steps" || fail "--env $1 played: $r"
done
for bad in pongrl/Pong-v9 Pong-v5 ALE/Pong-ram-v5x; do
    err=$("$bin" record "$model" --env "$bad" --out "$tmp/e.gif" 2>&1 >/dev/null); one_line 2 $? "$err" "--env $bad"
done

# names: .gif and .mp4 in any case; anything else is refused before any work
for name in game.avi game.webm game noext.gif.txt; do
    err=$("$bin" record "$model" --out "$tmp/$name" 2>&1 >/dev/null); one_line 2 $? "$err" "--out $name"
    echo "$err" | grep -q '\.gif.*\.mp4' || fail "the refusal does not name the formats: $err"
done

# without ffmpeg on PATH: one line, exit 1, nothing left behind
err=$(PATH=/nonexistent "$bin" record "$model" --max-steps 5 --out "$tmp/nf.mp4" 2>&1 >/dev/null); one_line 1 $? "$err" "no ffmpeg"
echo "$err" | grep -q ffmpeg || fail "the message does not say ffmpeg: $err"
ls "$tmp" | grep -q '^nf' && fail "a file was left behind: $(ls "$tmp")"
# an ffmpeg that fails: its own last words in our one line, nothing left behind
mkdir "$tmp/fake"
printf '#!/bin/sh\necho "[libx264 @ 0x55d0] the encoder broke" >&2\nexit 3\n' > "$tmp/fake/ffmpeg"; chmod +x "$tmp/fake/ffmpeg"
err=$(PATH="$tmp/fake:$PATH" "$bin" record "$model" --out "$tmp/ff.mp4" 2>&1 >/dev/null); one_line 1 $? "$err" "failing ffmpeg"
echo "$err" | grep -q 'ffmpeg failed (exit 3): the encoder broke' || fail "ffmpeg's words missing: $err"
ls "$tmp" | grep -q '^ff' && fail "a file was left behind: $(ls "$tmp")"

if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null; then
    echo "skip: ffmpeg not installed (optional; Debian: apt-get install ffmpeg): MP4 output not tested"; exit 77
fi
# the whole game as an MP4, read back by ffprobe: H.264, 4x the screen, the game's real length
r=$("$bin" record "$model" --seed 3 --out "$tmp/game.MP4") || fail "record mp4"
echo "$r"
echo "$r" | grep -q "game over after $want steps" || fail "mp4: not the same game"
[ "$(stat -c %a "$tmp/game.MP4")" = 644 ] || fail "mp4 mode $(stat -c %a "$tmp/game.MP4")"
probe=$(ffprobe -v error -select_streams v:0 -count_frames \
        -show_entries stream=codec_name,width,height,pix_fmt,r_frame_rate,nb_read_frames:format=duration \
        -of default=noprint_wrappers=1 "$tmp/game.MP4") || fail "ffprobe cannot read the MP4"
echo "$probe"
get() { echo "$probe" | sed -n "s/^$1=//p"; }
[ "$(get codec_name)" = h264 ] && [ "$(get width)" = 640 ] && [ "$(get height)" = 840 ] && [ "$(get pix_fmt)" = yuv420p ] \
    || fail "not a 640x840 yuv420p H.264 stream"
[ "$(get r_frame_rate)" = 15/1 ] || fail "ALE/Pong-v5 (4 frames a step) should give 15 pictures/s, got $(get r_frame_rate)"
frames=$(echo "$r" | sed -n 's/.*steps (\([0-9]*\) frames).*/\1/p')
# the game's frames plus the final 2 s hold, at 60 frames/s: one 15/s picture of rounding
/usr/bin/python3 -c "
d, want = float('$(get format_duration)' or '$(get duration)'), ($frames + 120) / 60
assert abs(d - want) <= 1 / 15 + 1e-6, (d, want)
print('duration %.3f s, the game and the hold %.3f s' % (d, want))" || fail "MP4 duration"
# its last picture, decoded by ffmpeg and scaled back (4x4 averages), against the GIF's last (decoded by ffmpeg too)
ffmpeg -v error -sseof -0.5 -i "$tmp/game.MP4" -vf scale=160:210:flags=area -update 1 -y "$tmp/mp4.ppm" &&
ffmpeg -v error -i "$tmp/game.gif" -update 1 -y "$tmp/gif.ppm" || fail "ffmpeg cannot decode"
/usr/bin/python3 - "$tmp/mp4.ppm" "$tmp/gif.ppm" <<'EOF' || fail "the MP4's last picture is not the GIF's"
import sys
import numpy as np
def ppm(path):                   # P6, 160 210, 255: the header is three lines
    data = open(path, "rb").read()
    head = data.split(b"\n", 3)
    assert head[0] == b"P6" and head[1] == b"160 210", head[:3]
    return np.frombuffer(head[3], np.uint8).astype(int)
a, b = ppm(sys.argv[1]), ppm(sys.argv[2])
assert a.size == b.size == 210 * 160 * 3, (a.size, b.size)
d = np.abs(a - b).reshape(-1, 3).max(1)
off = int((d > 24).sum())
print("last picture: MP4 against GIF, mean |difference| %.2f of 255, %d of %d pixels off by more than 24"
      % (d.mean(), off, d.size))
# H.264 is lossy (colour conversion, ringing at the ball's edges); another picture of the game
# differs in hundreds of pixels (a digit of the score alone is 6x10 of them)
assert d.mean() < 3 and off <= 40, "not the same picture"
EOF
# the MP4 path (child process, socket, memory file) under ASan+UBSan, when make test built it
dbg=build/debug/pongrl
if [ -x "$dbg" ]; then
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
    "$dbg" record "$model" --max-steps 300 --with-input --out "$tmp/san.mp4" >/dev/null 2>"$tmp/san.log" || fail "sanitized record: $(cat "$tmp/san.log")"
    PATH="$tmp/fake:$PATH" "$dbg" record "$model" --max-steps 300 --out "$tmp/san2.mp4" >/dev/null 2>>"$tmp/san.log" && fail "sanitized failing ffmpeg"
    grep -q Sanitizer "$tmp/san.log" && fail "sanitizer report: $(head -20 "$tmp/san.log")"
    echo "under ASan+UBSan: clean"
fi
echo ok
