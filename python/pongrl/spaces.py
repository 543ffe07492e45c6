"""Gymnasium's spaces when gymnasium is importable; otherwise small stand-ins with the same
names, attributes and behaviour for what pongrl uses: Discrete, Box, MultiDiscrete, each with
sample(), contains() (and `in`), seed(), np_random, shape, dtype and equality.

Set PONGRL_NO_GYMNASIUM=1 to use the stand-ins even when gymnasium is installed.
"""
import os

import numpy as np

gymnasium = None
if not os.environ.get("PONGRL_NO_GYMNASIUM"):
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        gymnasium = None

try:
    # Gymnasium >= 1.1; 0.29 and 1.0 have no such enum (their vector envs autoreset NEXT_STEP)
    if gymnasium is None:
        raise ImportError
    from gymnasium.vector import AutoresetMode  # noqa: F401
except ImportError:
    import enum

    class AutoresetMode(enum.Enum):
        """gymnasium.vector.AutoresetMode (Gymnasium 1.1), same names and values."""

        NEXT_STEP = "NextStep"
        SAME_STEP = "SameStep"
        DISABLED = "Disabled"


if gymnasium is not None:
    from gymnasium.spaces import Box, Discrete, MultiDiscrete, Space  # noqa: F401
else:

    def _np_random(seed=None):
        """gymnasium.utils.seeding.np_random: (Generator, seed)."""
        if seed is not None and not (isinstance(seed, (int, np.integer)) and seed >= 0):
            raise ValueError("seed must be a non-negative integer or None, got %r" % (seed,))
        seed_seq = np.random.SeedSequence(None if seed is None else int(seed))
        return np.random.Generator(np.random.PCG64(seed_seq)), seed_seq.entropy

    class Space:
        def __init__(self, shape, dtype, seed=None):
            self._shape, self.dtype = shape, np.dtype(dtype)
            self._np_random = None
            if seed is not None:
                self.seed(seed)

        @property
        def shape(self):
            return self._shape

        @property
        def np_random(self):
            if self._np_random is None:
                self.seed()
            return self._np_random

        def seed(self, seed=None):
            self._np_random, used = _np_random(seed)
            return used

        def __contains__(self, x):
            return self.contains(x)

    class Discrete(Space):
        """{start, ..., start + n - 1}; samples are np.int64."""

        def __init__(self, n, seed=None, start=0):
            super().__init__((), np.int64, seed)
            self.n, self.start = np.int64(n), np.int64(start)

        def sample(self, mask=None):
            return self.start + self.np_random.integers(self.n).astype(self.dtype)

        def contains(self, x):
            if isinstance(x, int):
                x = np.int64(x)
            elif isinstance(x, (np.generic, np.ndarray)) and x.dtype.kind in "iu" and x.shape == ():
                x = np.int64(x)
            else:
                return False
            return bool(self.start <= x < self.start + self.n)

        def __eq__(self, other):
            return isinstance(other, Discrete) and self.n == other.n and self.start == other.start

        def __repr__(self):
            return "Discrete(%d)" % self.n if self.start == 0 else "Discrete(%d, start=%d)" % (self.n, self.start)

    class Box(Space):
        """Integer or float arrays between low and high (inclusive)."""

        def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
            shape = tuple(shape) if shape is not None else np.shape(low)
            super().__init__(shape, dtype, seed)
            self.low = np.full(shape, low, dtype=self.dtype)
            self.high = np.full(shape, high, dtype=self.dtype)

        def sample(self, mask=None):
            if self.dtype.kind in "iu":
                return self.np_random.integers(
                    self.low.astype(np.int64), self.high.astype(np.int64), size=self.shape, endpoint=True
                ).astype(self.dtype)
            return self.np_random.uniform(self.low, self.high, size=self.shape).astype(self.dtype)

        def contains(self, x):
            if not isinstance(x, np.ndarray):
                try:
                    x = np.asarray(x, dtype=self.dtype)
                except (ValueError, TypeError):
                    return False
            return bool(
                np.can_cast(x.dtype, self.dtype)
                and x.shape == self.shape
                and np.all(x >= self.low)
                and np.all(x <= self.high)
            )

        def __eq__(self, other):
            return (
                isinstance(other, Box)
                and self.shape == other.shape
                and self.dtype == other.dtype
                and np.array_equal(self.low, other.low)
                and np.array_equal(self.high, other.high)
            )

        def __repr__(self):
            lo, hi = self.low.flat[0], self.high.flat[0]
            return "Box(%s, %s, %s, %s)" % (lo, hi, self.shape, self.dtype)

    class MultiDiscrete(Space):
        """One Discrete per entry of nvec (a vector env's action space)."""

        def __init__(self, nvec, dtype=np.int64, seed=None, start=None):
            self.nvec = np.asarray(nvec, dtype=dtype)
            super().__init__(self.nvec.shape, dtype, seed)
            self.start = np.zeros_like(self.nvec) if start is None else np.asarray(start, dtype=dtype)

        def sample(self, mask=None):
            return (self.np_random.random(self.nvec.shape) * self.nvec).astype(self.dtype) + self.start

        def contains(self, x):
            if isinstance(x, (list, tuple)):
                x = np.array(x)
            return bool(
                isinstance(x, np.ndarray)
                and x.shape == self.shape
                and x.dtype.kind in "iu"
                and np.all(self.start <= x)
                and np.all(x - self.start < self.nvec)
            )

        def __eq__(self, other):
            return isinstance(other, MultiDiscrete) and np.array_equal(self.nvec, other.nvec)

        def __repr__(self):
            return "MultiDiscrete(%s)" % self.nvec


class Closing:
    """`with env:` closes the env at the end (gymnasium.Env has this; its VectorEnv does not)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class StandInRandom(Closing):
    """What gymnasium.Env gives an env without Gymnasium: unwrapped, np_random and np_random_seed
    (a NumPy Generator seeded like a space's, drawn fresh on first use), `with`."""

    def _set_np_random(self, seed):
        s = Space((), np.int64)
        self._np_random_seed = s.seed(seed)
        self._np_random = s.np_random

    @property
    def unwrapped(self):
        return self

    @property
    def np_random(self):
        if self._np_random is None:
            self._set_np_random(None)
        return self._np_random

    @property
    def np_random_seed(self):
        self.np_random
        return self._np_random_seed
