"""test_ale_screen_png.py: ale-py's saveScreenPNG and getString("rom_file") on pongrl's ALEInterface.

The PNG is decoded by another program (Debian's ffmpeg, its own PNG decoder) and must hold the
screen getScreenRGB gives, pixel for pixel, mid-game; the file is written whole (no temporary
is left beside it) and a path that cannot be written is an OSError, nothing left behind.
getString("rom_file") is what loadROM was given, "" before, as ALE keeps it.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from pongrl_under_test import pongrl, run  # noqa: E402
from pongrl.roms import get_rom_path  # noqa: E402


def decode(path):
    out = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        capture_output=True,
        check=True,
    ).stdout
    return np.frombuffer(out, np.uint8).reshape(210, 160, 3)


def test_save_screen_png_is_the_screen():
    if not shutil.which("ffmpeg"):
        print("skip: no ffmpeg to decode the PNG (make test installs it)")
        return
    ale = pongrl.ALEInterface()
    ale.loadROM("pong")
    with tempfile.TemporaryDirectory() as d:
        for step, path in ((0, os.path.join(d, "first.png")), (300, pathlib.Path(d) / "later.png")):
            for _ in range(step):
                ale.act(pongrl.Action.LEFT)
            ale.saveScreenPNG(path)
            got, want = decode(path), ale.getScreenRGB()
            assert np.array_equal(got, want), "%s: %d pixels differ" % (path, int((got != want).any(-1).sum()))
        assert len(np.unique(want.reshape(-1, 3), axis=0)) >= 4  # a real picture: field, walls, bats, score
        assert sorted(os.listdir(d)) == ["first.png", "later.png"], os.listdir(d)
        try:
            ale.saveScreenPNG(os.path.join(d, "no-such-dir", "x.png"))
            raise AssertionError("a path that cannot be written was accepted")
        except OSError:
            pass
        assert sorted(os.listdir(d)) == ["first.png", "later.png"], os.listdir(d)


def test_get_string_rom_file():
    ale = pongrl.ALEInterface()
    assert ale.getString("rom_file") == ""
    ale.loadROM("pong")
    assert ale.getString("rom_file") == "pong"
    path = get_rom_path("pong")
    ale.loadROM(path)
    assert ale.getString("rom_file") == os.fspath(path)
    assert ale.getString("frame_skip") == "1"
    # a setting pongrl cannot honour is refused, not ignored
    try:
        ale.setBool("color_averaging", True)
        raise AssertionError("color_averaging=True was accepted")
    except ValueError:
        pass
    try:
        ale.getString("no_such_setting")
        raise AssertionError("an unknown setting was answered")
    except (KeyError, RuntimeError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(run([test_save_screen_png_is_the_screen, test_get_string_rom_file]))
