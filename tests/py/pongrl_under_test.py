"""pongrl_under_test.py: the package the Python tests import, from this checkout.

Puts python/ on sys.path and exits 77 (skip) when build/libpongrl.so (or $PONGRL_LIB) is
not built. The tests `from pongrl_under_test import ROOT, pongrl`.
"""
import os
import sys

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
