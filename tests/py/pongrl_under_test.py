"""pongrl_under_test.py: the package the Python tests import, from this checkout.

Puts python/ on sys.path and exits 77 (skip) when build/libpongrl.so (or $PONGRL_LIB) is
not built. The tests `from pongrl_under_test import ROOT, pongrl`.
"""
import os
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIB = os.environ.get("PONGRL_LIB") or os.path.join(ROOT, "build", "libpongrl.so")
if not os.path.exists(LIB):
    print("skip: %s not built (run make)" % LIB)
    sys.exit(77)
sys.path.insert(0, os.path.join(ROOT, "python"))
import pongrl  # noqa: E402,F401


def raises(exc, fn, *args, **kwargs):
    """The message of the exc that fn(*args, **kwargs) raises; AssertionError if none."""
    try:
        fn(*args, **kwargs)
    except exc as e:
        return str(e)
    raise AssertionError("%s not raised by %s%r %r" % (exc.__name__, fn.__name__, args, kwargs))


def run(tests):
    """Runs the test functions in order, one "ok NAME" line each; 0 when all pass."""
    for t in tests:
        t()
        print("ok", t.__name__)
    return 0


def race_close(open_, act, rounds, calls):
    """close() racing use: `rounds` times, obj = open_(round), and two threads call act(obj, k)
    for k < calls (on past "in use by another thread", stopping at "closed") while this one
    closes obj after 0 to 6 ms. The RuntimeErrors' messages (up to any ";"), sorted. Run it in
    a child (run_race): a crash must not end the test with it."""
    errors = set()

    def user(obj):
        for k in range(calls):
            try:
                act(obj, k)
            except RuntimeError as e:
                errors.add(str(e).split(";")[0])
                if "closed" in str(e):
                    break

    for round in range(rounds):
        obj = open_(round)
        ts = [threading.Thread(target=user, args=(obj,)) for _ in range(2)]
        for t in ts:
            t.start()
        threading.Event().wait(0.002 * (round % 4))
        obj.close()
        for t in ts:
            t.join()
    return sorted(errors)


def run_race(script, *args, timeout):
    """Runs script in a fresh interpreter (sys.argv[1]: this folder, then args); it prints
    "survived" and race_close's messages. Those messages; AssertionError if it crashed or hung."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", script, HERE] + list(args), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("use and close() in threads hung (a few seconds when they work)")
    assert out.returncode == 0 and "survived" in out.stdout, (out.returncode, out.stderr[-2000:])
    return eval(out.stdout.split("survived", 1)[1])
