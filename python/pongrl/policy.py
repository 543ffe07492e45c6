"""pongrl.load(path): a trained model as a policy that plays the env's observations, in C.

    policy = pongrl.load("models/pong-v5")      # W1.npy/W2.npy, a checkpoint, a run dir, an export
    env = gymnasium.make("pongrl/Pong-v5")       # or pongrl.make(...); obs_type rgb or obs80
    obs, info = env.reset(seed=0)
    policy.reset()
    while True:
        obs, reward, terminated, truncated, info = env.step(policy.act(obs))
        ...
    policy.close()                               # or: with pongrl.load(...) as policy:

The C library reads the file (src/train/model.h: whatever `pongrl eval` accepts) and plays it
with the learner's own acting code (algo/actor.h: the Learner table's AgentPolicy, sparse, the
same as `pongrl eval`), one observation or a batch; whatever the learner, a Policy gives every
action's probability and samples from them as that learner does. The NumPy forward passes
(each learner's module of pongrl/learners/) stay the reference (Policy.reference() builds one
of the same network) and what tools/play_npy.py plays without the library. A folder that
`pongrl export` wrote for a learner this library does not play is read by NumPy through
nets.POLICIES (the one table by --algo name: a learner adds its module to pongrl/learners/, or
a program calls pongrl.learners.register(name, cls)).
"""
import ctypes
import os

import numpy as np

from . import _lib
from ._check import INT_MAX
from ._lib import lib
from .ale import ACTION_MEANINGS
from .nets import POLICIES, D, policy_class, prepro, read_export, read_model_txt  # noqa: F401

RIGHT, LEFT = 2, 3  # the minimal set's RIGHT (paddle up) and LEFT (down)
# the settings that shape a network (model_setting), for from_model
SHAPE_SETTINGS = ("hidden", "coarse")
ACTOR_OBS_80, ACTOR_OBS_RGB = (
    _lib.OBS_TYPES["obs80"],
    _lib.OBS_TYPES["rgb"],
)  # vecenv.h's numbers, as actor.h takes them
AGENT_ACTIONS_MAX = 6


def _fail(e):
    return ValueError("pongrl.load: %s" % str(e).replace("pongrl: ", ""))


def models():
    """The shipped models by name ("pong-v5", "pong-v5-ppo"): {name: folder}. An installed
    package holds them (package data); a checkout has them in its models/."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = {}
    for d in (os.path.join(here, "models"), os.path.join(here, "..", "..", "models")):
        if os.path.isdir(d):
            for name in sorted(os.listdir(d)):
                if name not in found and os.path.isdir(os.path.join(d, name)):
                    found[name] = os.path.normpath(os.path.join(d, name))
    return found


def load(path, greedy=False, seed=None):
    """A model from `path`: a folder with W1.npy and W2.npy (Karpathy's), a checkpoint file,
    a run directory (its newest usable checkpoint), its checkpoints/ folder, or a folder that
    `pongrl export` wrote (model.txt); or the name of a shipped model (pongrl.models():
    "pong-v5", "pong-v5-ppo") where no such path exists. greedy: act greedily by default; seed:
    the sampling stream. A Policy played by the C library; a folder with model.txt of a learner
    the library does not play, the NumPy class that nets.POLICIES has for it. A bad path is a
    ValueError saying why."""
    if isinstance(path, str) and not os.path.exists(path) and os.sep not in path:
        path = models().get(path, path)
    txt = os.path.join(str(path), "model.txt")
    if os.path.exists(txt):
        try:
            algo = read_model_txt(txt).get("algo")
        except (OSError, UnicodeDecodeError) as e:
            raise _fail(e)
        if not lib.actor_plays((algo or "").encode()):
            try:
                return read_export(path, greedy=greedy, seed=seed)
            except (OSError, ValueError) as e:
                raise _fail(e)
    err = ctypes.create_string_buffer(1024)
    ptr = lib.actor_open(str(path).encode(), err, len(err))
    if not ptr:
        raise ValueError("pongrl.load: %s" % err.value.decode(errors="replace"))
    return Policy(ptr, str(path), greedy, seed)


def _numpy_policy(state, source, greedy, seed):
    """The nets.POLICIES class of the model the C library read (model.h's TrainState)."""
    algo = lib.model_algo(state).decode()
    settings = {}
    for k in SHAPE_SETTINGS:
        v = lib.model_setting(state, k.encode())
        if v is not None:
            settings[k] = v.decode()
    w = lib.model_weights(state)
    h = lib.model_hidden(state)
    weights = np.ctypeslib.as_array(w, shape=(D * h + h,)).copy() if w else None
    arrays, i = {}, 0
    name, n = ctypes.c_char_p(), ctypes.c_size_t()
    while True:
        p = lib.model_array(state, i, ctypes.byref(name), ctypes.byref(n))
        if not p:
            break
        arrays[name.value.decode()] = np.ctypeslib.as_array(p, shape=(n.value,)).copy()
        i += 1
    try:
        cls = policy_class(algo, source)
    except ValueError as e:
        raise _fail(e)
    return cls.from_model(weights, arrays, settings, algo=algo, source=source, greedy=greedy, seed=seed)


class Policy:
    """A model played by the C library (algo/actor.h), whatever its learner. act(obs) takes one
    observation or a batch (a vector env's), RGB (210, 160, 3) or obs80 (80, 80), and gives the
    env's action(s); it remembers the last frame of each row, so call reset() when an episode
    starts (reset(rows) for some rows of a batch). The action is the learner's own choice (as
    its C acting code and its NumPy class in pongrl/learners/ make it: e.g. the first action
    whose cumulative probability exceeds u, or the most likely) for u from this policy's NumPy
    stream (seed=), drawn as the NumPy reference draws it, so the same seed gives the same actions.

    Holds a C object: close() it (or use `with`); every method after close() is a
    RuntimeError, and one thread at a time may use it (another is refused with a
    RuntimeError, never a crash)."""

    def __init__(self, ptr, source, greedy=False, seed=None):
        self._h = _lib.Handle(ptr, lib.actor_close, "policy")
        ids = (ctypes.c_int * AGENT_ACTIONS_MAX)()
        n = lib.actor_actions(ptr, ids)
        self._ids = tuple(ids[:n])  # the minimal set's actions, C's order
        self.action_names = tuple(ACTION_MEANINGS[a] for a in self._ids)
        self.action_ids = self._ids
        self.algo, self.H = lib.actor_algo(ptr).decode(), lib.actor_hidden(ptr)
        self.source, self.greedy = source, greedy
        self.rng = np.random.default_rng(seed)
        self._ids_array = np.asarray(self.action_ids)

    # -- the handle

    def close(self):
        """Frees the C object (waiting for a call another thread is in); idempotent."""
        h = getattr(self, "_h", None)
        if h is not None:
            h.close()

    def __del__(self):
        self.close()

    def __enter__(self):
        with self._h:
            return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self):
        return not self._h.is_open

    # -- acting

    def use_action_meanings(self, meanings):
        """Acts with the env's own indices: meanings is env.unwrapped.get_action_meanings()."""
        with self._h:
            ids = tuple(list(meanings).index(n) for n in self.action_names)
            self.action_ids, self._ids_array = ids, np.asarray(ids)

    def reset(self, rows=None):
        """The next step starts an episode: every row, or the rows of the last batch named (an
        index, a list of them, or a boolean mask)."""
        with self._h as ptr:
            n = lib.actor_rows(ptr)
            if rows is None or n == 0:
                lib.actor_reset(ptr, None)
                return
            fresh = np.zeros(n, np.uint8)
            fresh[np.asarray(rows)] = 1
            lib.actor_reset(ptr, fresh.ctypes.data)

    def _step(self, obs, greedy, choose):
        """(single, probabilities (B, A), choice (B,) or None) of one step; the frames become the
        rows' last."""
        with self._h as ptr:
            o = np.asarray(obs)
            if o.dtype != np.uint8:
                o = prepro(o)  # the reference's reading of other dtypes
            if o.shape[-2:] == (80, 80):
                kind, lead = ACTOR_OBS_80, o.shape[:-2]
            elif o.shape[-3:] == (210, 160, 3):
                kind, lead = ACTOR_OBS_RGB, o.shape[:-3]
            else:
                prepro(o)  # its ValueError names the shapes it plays
                raise AssertionError("prepro accepted shape %s" % (o.shape,))
            rows = 1
            for n in lead:  # np.prod(lead) costs a third of a step
                rows *= n
            if rows > INT_MAX:  # actor_step takes the rows as a C int
                raise ValueError("pongrl: a policy step takes at most 2**31 - 1 rows, got %d" % rows)
            o = np.ascontiguousarray(o)
            probs = np.empty((rows, len(self._ids)))
            choice = np.empty(rows, np.intc) if choose else None
            if rows == 0:  # a batch of another size: all rows afresh
                lib.actor_reset(ptr, None)
                return not lead, probs, choice
            u = self.rng.random(rows) if choose and not greedy else None
            if lib.actor_step(
                ptr,
                rows,
                kind,
                o.ctypes.data,
                None if u is None else u.ctypes.data,
                bool(greedy),
                probs.ctypes.data,
                None if choice is None else choice.ctypes.data,
            ):
                raise MemoryError("pongrl: the policy's step of %d rows failed (out of memory)" % rows)
        return not lead, probs, choice

    def probabilities(self, obs):
        """Every action's probability, (A,) or (B, A), in the order of action_names; remembers
        the observation(s) as the last frames."""
        single, p, _ = self._step(obs, True, False)
        return p[0] if single else p

    def probability(self, obs):
        """p(RIGHT), the paddle up, for the observation(s) (as a two-action network gives it); remembers
        them as the last frames."""
        single, p, _ = self._step(obs, True, False)
        p = p[:, self._ids.index(RIGHT)]
        return p[0] if single else p

    def act(self, obs, greedy=None):
        """The action(s): the env's index of the learner's choice; greedy: the most likely (a
        two-action network: RIGHT iff p > 0.5), as `pongrl eval --greedy`."""
        greedy = self.greedy if greedy is None else greedy
        single, _, k = self._step(obs, greedy, True)
        if single:
            return self.action_ids[k[0]]
        return self._ids_array[k]

    def reference(self, greedy=None, seed=None):
        """The same network as its learner's NumPy class (nets.POLICIES[algo], a module of
        pongrl/learners/): the reference this policy is tested against, with its arrays."""
        with self._h as ptr:
            return _numpy_policy(lib.actor_model(ptr), self.source, self.greedy if greedy is None else greedy, seed)

    def __repr__(self):
        state = "closed" if self.closed else "H=%d" % self.H
        return "<pongrl policy %s, %s, from %s, in C>" % (self.algo, state, self.source)
