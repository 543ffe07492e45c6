"""The numbers that cross from Python into the C library, checked before ctypes sees them.

ctypes puts a Python int into a C int, int64_t or uint64_t by keeping its low bits, without a
word: 2**32 + 2 becomes 2, 2**31 becomes -2**31, 2**64 + 5 becomes 5. An argument that is not
checked here first plays another game than the one asked for. So every integer argument is
checked against the range its documentation gives (which lies within what the C side takes):

    n = as_int(n, "num_envs", 1, INT_MAX)          # TypeError / ValueError naming it and [1, 2**31 - 1]

A bool is not an int here, nor is a float (1.5, or 2.0); NumPy's integers and anything else
with __index__ (a 0-d integer array or tensor) are. The C types' ranges, as env.h, vecenv.h
and atari_prep.h declare the fields and arguments:
"""
import math
import operator

import numpy as np

INT_MAX = 2**31 - 1  # C's int: counts, sizes, frameskips, indices
INT_MIN = -(2**31)
INT64_MAX = 2**63 - 1  # int64_t: the caps (max_steps, max_frames), a vector env's seeds (-1: none)
U64_MAX = 2**64 - 1  # uint64_t: a seed

_SHOWN = {INT_MAX: "2**31 - 1", INT_MIN: "-2**31", INT64_MAX: "2**63 - 1", U64_MAX: "2**64 - 1"}


def span(lo, hi):
    """[lo, hi] as the messages write it, the C limits by name: [1, 2**31 - 1]."""
    return "[%s, %s]" % tuple(_SHOWN.get(v, str(v)) for v in (lo, hi))


def is_bool(x):
    return isinstance(x, (bool, np.bool_))


def is_int(x):
    """An integer and not a bool: int, NumPy's integers, a 0-d integer array (__index__)."""
    if is_bool(x) or isinstance(x, (float, np.floating)):
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return "bool" not in str(getattr(x, "dtype", ""))


def as_int(x, name, lo, hi, where="pongrl", note=""):
    """x as a Python int in [lo, hi]: a TypeError for what is not an integer, a ValueError
    outside the range, each naming the argument and the range (and `note`, what the range
    means: "0: none")."""
    what = "%s: %s must be an int in %s%s" % (where, name, span(lo, hi), " (%s)" % note if note else "")
    if not is_int(x):
        raise TypeError("%s, got %r" % (what, x))
    v = operator.index(x)
    if not lo <= v <= hi:
        raise ValueError("%s, got %d" % (what, v))
    return v


def as_float(x, name, lo=-math.inf, hi=math.inf, where="pongrl"):
    """x as a Python float in [lo, hi] (NaN never is): a TypeError for what is not a real
    number (a bool, a string), a ValueError outside the range, each naming the argument."""
    what = "%s: %s must be a float in %s" % (where, name, span(lo, hi))
    if is_bool(x) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError("%s, got %r" % (what, x))
    try:
        v = float(x)
    except OverflowError:
        raise ValueError("%s, got %r" % (what, x)) from None
    if not lo <= v <= hi:
        raise ValueError("%s, got %r" % (what, x))
    return v


def as_bool(x, name, where="pongrl"):
    """x as a Python bool: True, False, NumPy's bools, or the ints 0 and 1 (C's); a TypeError
    for anything else that is not an integer, a ValueError for another integer."""
    if is_bool(x):
        return bool(x)
    what = "%s: %s must be True or False (or 1 or 0)" % (where, name)
    if not is_int(x):
        raise TypeError("%s, got %r" % (what, x))
    if operator.index(x) not in (0, 1):
        raise ValueError("%s, got %r" % (what, x))
    return bool(operator.index(x))


def as_int_array(a, name, lo, hi, where="pongrl"):
    """An array of integers (any integer dtype, not bool) as int64, every entry in [lo, hi]
    (within int64's range): a TypeError for another dtype, a ValueError naming the first
    entry outside the range."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise TypeError("%s: %s must hold integers in %s, got dtype %s" % (where, name, span(lo, hi), a.dtype))
    bad = np.flatnonzero((a < lo) | (a > hi)) if a.size else ()
    if len(bad):
        raise ValueError(
            "%s: %s must hold integers in %s, got %r at %d" % (where, name, span(lo, hi), a.flat[bad[0]], bad[0])
        )
    return a.astype(np.int64)
