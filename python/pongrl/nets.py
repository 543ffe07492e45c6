"""pongrl's trained networks in NumPy alone: each learner's forward pass is its own module of
pongrl/learners/ (NAME.py for --algo NAME), what they share is netbase.py, and this module finds
a model's network by its learner's name. Nothing that needs pongrl's C library is imported:
tools/play_npy.py loads this file, netbase.py and learners/ as a package of their own and plays
an exported model on any Gymnasium Pong env (ale-py's own too). pongrl.load (policy.py) plays a
model in C (algo/actor.h); its Policy.reference() builds these classes from the model the C
library read: the reference that path is tested against (tests/py/test_policy_c.py).
docs/runs.md describes the same forward passes in words.

POLICIES (pongrl.learners.POLICIES) maps each learner's --algo name (model.txt's algo=, the C
library's model_algo) to its class: the one table through which Policy.reference() and
read_export find a model's network (and pongrl.load an export of a learner the library does not
play). A learner adds its module to pongrl/learners/, or a program calls
pongrl.learners.register(name, cls).

read_export(dir) reads what `pongrl export` wrote (model.txt beside the learner's arrays, or a
folder of bare .npy files that a learner's bare_npy calls its own) and returns the policy. The
learners' classes are also reachable here by their names (nets.<ClassName>), as before they had
modules of their own.
"""
import os

from . import learners
from .learners import POLICIES
from .netbase import (  # noqa: F401 (this module's names before the learners had their own modules)
    ACTION_IDS,
    ACTIONS,
    BAND,
    COARSE,
    D,
    POOL,
    check_crc32,
    coarse_views,
    frame_input,
    log_softmax,
    prepro,
    read_model_txt,
)


def policy_class(algo, source):
    """POLICIES[algo], or a ValueError naming the learners there are."""
    cls = learners.get(algo)
    if cls is None:
        raise ValueError(
            "pongrl: %s was trained by --algo %s, which pongrl cannot play yet (it "
            "plays: %s)" % (source, algo, ", ".join(learners.names()))
        )
    return cls


def read_export(path, greedy=False, seed=None):
    """The policy in a folder that `pongrl export` wrote: model.txt (format 1) names the learner
    (algo=) whose class reads the arrays beside it, once its crc32 line says they are the ones
    it was written with (check_crc32); without model.txt, the learner whose bare_npy calls the
    folder its own (Karpathy's W1.npy (H, 6400) and W2.npy (H,)). A ValueError says what is wrong."""
    kw = dict(source=str(path), greedy=greedy, seed=seed)
    txt = os.path.join(path, "model.txt")
    if not os.path.exists(txt):
        found = learners.bare_npy(path)
        if found is None:
            raise ValueError(
                "pongrl: %s: no model.txt, and no learner's files (%s)" % (path, ", ".join(learners.names()))
            )
        name, cls, _ = found
        return cls.from_export(path, {}, algo=name, **kw)
    s = read_model_txt(txt)
    if s.get("format") != "1":
        raise ValueError("pongrl: %s: format %s: this reads format 1" % (txt, s.get("format")))
    cls = policy_class(s.get("algo"), txt)
    check_crc32(path, s)
    policy = cls.from_export(path, s, algo=s["algo"], **kw)
    # again once the arrays are read: a folder that `export --force` swapped meanwhile may have
    # given model.txt of the old model and arrays of the new, and any file read after the swap is new
    check_crc32(path, s)
    return policy


def __getattr__(name):
    """A learner's class by its class name (nets.<ClassName>), as this module once held them."""
    for cls in POLICIES.values():
        if getattr(cls, "__name__", None) == name:
            return cls
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
