"""pongrl.load(path): a trained model as a policy that plays the env's observations.

    policy = pongrl.load("models/pong-v5")      # W1.npy/W2.npy, a checkpoint or a run dir
    env = gymnasium.make("pongrl/Pong-v5")       # or pongrl.make(...); obs_type rgb or obs80
    obs, info = env.reset(seed=0)
    policy.reset()
    while True:
        obs, reward, terminated, truncated, info = env.step(policy.act(obs))
        ...

The C library reads the file (src/train/model.h: whatever `pongrl eval` accepts) and gives its
acting network and its learner's arrays (a PPO model's actor-critic, say); the learner that
trained it (its --algo) picks the Python class that acts with them (POLICIES): a learner whose
acting network differs adds a class with from_model(weights, arrays, **kw) there.
"""
import ctypes

import numpy as np

from ._lib import lib

D = 6400                    # policy.h POLICY_D: the 80x80 grid
RIGHT, LEFT = 2, 3          # the minimal set's RIGHT (paddle up) and LEFT (down)


def prepro(frame):
    """The seed's preprocessing (tests/reference/seed_model.py preprocess) of RGB frames
    (..., 210, 160, 3) -> uint8 (..., 80, 80) in {0, 1}; obs80 observations pass unchanged."""
    frame = np.asarray(frame)
    if frame.shape[-2:] == (80, 80):
        return frame.astype(np.uint8, copy=False)
    if frame.shape[-3:] != (210, 160, 3):
        raise ValueError("pongrl: the policy plays obs_type 'rgb' (210, 160, 3) or 'obs80' "
                         "(80, 80) observations (one or a batch), got shape %s" % (frame.shape,))
    img = frame[..., 35:195, :, :][..., ::2, ::2, 0]
    return ((img != 144) & (img != 109) & (img != 0)).astype(np.uint8)


class SeedPolicy:
    """The seeds' network (policy.h: 6400 -> H ReLU -> 1 sigmoid, no biases) on the difference
    of two preprocessed frames, as `pongrl train` plays: RIGHT with probability p, else LEFT.
    act(obs) takes one observation or a batch (a vector env's); it remembers the last frame of
    each row, so call reset() when an episode starts (reset(rows) for some rows of a batch)."""

    @classmethod
    def from_model(cls, weights, arrays, **kw):
        """From the model's acting network (policy.h layout) and its learner's arrays."""
        h = (weights.shape[0]) // (D + 1)
        return cls(weights[:D * h].reshape(D, h), weights[D * h:], **kw)

    def __init__(self, w1t, w2, algo="pg", source="", greedy=False, seed=None):
        self.w1t, self.w2 = w1t, w2           # (D, H) and (H,) float64
        self.H = w2.shape[0]
        self.algo, self.source, self.greedy = algo, source, greedy
        self.rng = np.random.default_rng(seed)
        self._prev = None

    def reset(self, rows=None):
        """Forget the last frames (of the given rows of a batch): the next step's input is
        zeros there, as on the seed's first step."""
        if rows is None or self._prev is None:
            self._prev = None
        else:
            self._fresh[np.asarray(rows)] = True

    def probability(self, obs):
        """p(RIGHT) for the observation(s), and remembers them as the last frames."""
        cur = prepro(obs)
        single = cur.ndim == 2
        cur = cur.reshape((-1, D)).astype(np.int8)
        if self._prev is None or self._prev.shape != cur.shape:
            self._prev = cur
            self._fresh = np.ones(cur.shape[0], bool)
        x = (cur - self._prev).astype(np.float64)
        x[self._fresh] = 0.0                          # the seed: zeros on the first step
        self._prev, self._fresh[:] = cur, False
        h = np.maximum(x @ self.w1t, 0.0)
        p = 1.0 / (1.0 + np.exp(-(h @ self.w2)))
        return p[0] if single else p

    def act(self, obs, greedy=None):
        """The action(s): RIGHT (2) with probability p, else LEFT (3); greedy: RIGHT iff
        p > 0.5, as `pongrl eval --greedy`."""
        p = self.probability(obs)
        greedy = self.greedy if greedy is None else greedy
        up = p > 0.5 if greedy else self.rng.random(np.shape(p)) < p
        return np.where(up, RIGHT, LEFT) if np.ndim(up) else (RIGHT if up else LEFT)

    def __repr__(self):
        return "<pongrl policy %s, H=%d, from %s>" % (self.algo, self.H, self.source)


# the class that acts with each learner's model, by the learner's --algo name
POLICIES = {"pg": SeedPolicy}


def load(path, greedy=False, seed=None):
    """A model from `path`: a folder with W1.npy and W2.npy (the seed's), a checkpoint file,
    a run directory (its newest usable checkpoint) or its checkpoints/ folder. greedy: act
    greedily by default; seed: the sampling stream. A bad path is a ValueError saying why."""
    err = ctypes.create_string_buffer(1024)
    handle = lib.model_open(str(path).encode(), err, len(err))
    if not handle:
        raise ValueError("pongrl.load: %s" % err.value.decode(errors="replace"))
    try:
        h = lib.model_hidden(handle)
        weights = np.ctypeslib.as_array(lib.model_weights(handle), shape=(D * h + h,)).copy()
        algo = lib.model_algo(handle).decode()
        arrays, i = {}, 0
        name, n = ctypes.c_char_p(), ctypes.c_size_t()
        while True:
            p = lib.model_array(handle, i, ctypes.byref(name), ctypes.byref(n))
            if not p:
                break
            arrays[name.value.decode()] = np.ctypeslib.as_array(p, shape=(n.value,)).copy()
            i += 1
    finally:
        lib.model_close(handle)
    cls = POLICIES.get(algo)
    if cls is None:
        raise ValueError("pongrl.load: %s was trained by --algo %s, which pongrl.load cannot "
                         "play yet (it plays: %s)" % (path, algo, ", ".join(POLICIES)))
    return cls.from_model(weights, arrays, algo=algo, source=str(path), greedy=greedy, seed=seed)
