"""tools/play_npy.py as a user meets it: by default it plays pongrl/Pong-v5 when pongrl can be
imported (from this checkout too), `--env pongrl/Pong-v5` works without a module: prefix, and
what is missing (gymnasium; pongrl or ale-py) is one line, not a traceback. The parts that
need Gymnasium run when it is importable (a Gymnasium checkout on PYTHONPATH will do)."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, run  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "play_npy.py")
# runs the tool with some modules made unimportable: python3 -c BLOCK "gymnasium,ale_py" args...
BLOCK = (
    "import runpy, sys\n"
    "for m in sys.argv[1].split(','):\n"
    "    if m: sys.modules[m] = None\n"
    "sys.argv = [sys.argv[2]] + sys.argv[3:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def play(model, *args, block=""):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p
        for p in env.get("PYTHONPATH", "").split(os.pathsep)
        if p and os.path.abspath(p) != os.path.join(ROOT, "python")
    )
    return subprocess.run(
        [sys.executable, "-c", BLOCK, block, TOOL, model] + list(args),
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
        env=env,
    )


def seeds_export(d):
    rng = np.random.default_rng(0)
    np.save(os.path.join(d, "W1.npy"), rng.standard_normal((8, 6400)) / 80)
    np.save(os.path.join(d, "W2.npy"), rng.standard_normal(8))
    return d


def one_line_error(out, *words):
    assert out.returncode != 0 and "Traceback" not in out.stderr, out.stderr
    line = out.stderr.strip()
    assert "\n" not in line and line.startswith("play_npy: "), line
    for w in words:
        assert w in line, (w, line)


def test_what_is_missing():
    d = seeds_export(tempfile.mkdtemp(prefix="pongrl-play-npy-"))
    try:
        one_line_error(play(d, "--max-steps", "5", block="gymnasium"), "needs gymnasium")
        try:
            import gymnasium  # noqa: F401
        except ImportError:
            print("gymnasium not importable: the envs themselves not played")
            return
        one_line_error(play(d, "--max-steps", "5", block="pongrl,ale_py"), "pongrl", "ale_py", "no Pong env")
        one_line_error(play(d, "--env", "pongrl/Pong-v5", block="pongrl"), "needs the module pongrl")
    finally:
        shutil.rmtree(d)


def test_plays_pongrl_by_default():
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        print("gymnasium not importable: not played")
        return
    d = seeds_export(tempfile.mkdtemp(prefix="pongrl-play-npy-"))
    try:
        for args in ((), ("--env", "pongrl/Pong-v5"), ("--env", "pongrl:pongrl/Pong-v5")):
            out = play(d, "--max-steps", "30", *args)
            assert out.returncode == 0, (args, out.stderr[-1500:])
            assert "on pongrl/Pong-v5" in out.stdout and "30 steps (cut)" in out.stdout, out.stdout
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    sys.exit(run([test_what_is_missing, test_plays_pongrl_by_default]))
