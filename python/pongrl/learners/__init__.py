"""The learners' NumPy networks, one module each: pongrl/learners/NAME.py is the forward pass of
the learner whose --algo name (model.txt's algo=, the C library's model_algo) is NAME, and says
which class acts with it (its POLICY). Every such module of this folder is found when the
package is imported; a program adds a learner of its own with register(name, cls).

A class gives from_model(weights, arrays, settings, **kw) (from what the C library read: its
TrainState's pg network, its arrays by name, the settings that shape it) and from_export(path,
settings, **kw) (from what `pongrl export` wrote; settings are model.txt's lines); a learner whose
export may come without model.txt also gives bare_npy(path): what the folder holds when it is
its own, else None (as the C Learner's bare_npy). The keyword arguments are algo, source,
greedy and seed. This package imports nothing but its learners' modules (and they nothing of
pongrl but netbase.py): tools/play_npy.py reads it without pongrl's C library."""
import importlib
import pkgutil

# the class that acts with each learner's model, by the learner's --algo name, in the order found
POLICIES = {}


def register(name, cls):
    """Makes cls the network of the learner called name (replacing any); returns cls."""
    if not isinstance(name, str) or not name:
        raise ValueError("pongrl.learners.register: a learner's name is a non-empty string, got %r" % (name,))
    POLICIES[name] = cls
    return cls


def unregister(name):
    """Forgets the learner called name (nothing if there is none)."""
    POLICIES.pop(name, None)


def get(name):
    """The class of the learner called name, or None."""
    return POLICIES.get(name)


def names():
    """The learners' names, in the order they were found or registered."""
    return tuple(POLICIES)


def bare_npy(path):
    """(name, class, what the folder holds) of the first learner that calls path, a folder without
    model.txt, its own; None when none does."""
    for name, cls in POLICIES.items():
        own = getattr(cls, "bare_npy", None)
        files = own(path) if own is not None else None
        if files:
            return name, cls, files
    return None


def _discover():
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module("%s.%s" % (__name__, info.name))
            register(info.name, module.POLICY)


_discover()
