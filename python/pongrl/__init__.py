"""pongrl: the native Pong environment with Gym's step/reset shape.

A thin ctypes + NumPy binding over build/libpongrl.so (src/env/env.h):

    import pongrl
    env = pongrl.make("ALE/Pong-v5", seed=0)
    obs, info = env.reset()
    obs, reward, terminated, truncated, info = env.step(2)   # RIGHT: paddle up
    grid = env.obs80()                                       # the seed's preprocessing, (80, 80)

The library is found at ../../build/libpongrl.so relative to this package, or at $PONGRL_LIB.
"""
import ctypes
import os

import numpy as np

__all__ = ["make", "Env", "Discrete", "PRESETS", "ACTION_MEANINGS"]

# ALE's minimal action set for Pong (PongSettings::isMinimal), Gym indices 0..5
ACTION_MEANINGS = ("NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE")
SCREEN_SHAPE = (210, 160, 3)
OBS80_SHAPE = (80, 80)

_ENV_OK, _ENV_ERR_PRESET, _ENV_ERR_ACTION, _ENV_ERR_DONE = 0, -1, -2, -3
_U64 = (1 << 64) - 1


# ----------------------------------------------------------------------------
# the library

class _EnvStep(ctypes.Structure):  # env.h EnvStep
    _fields_ = [("reward", ctypes.c_int), ("terminated", ctypes.c_bool),
                ("truncated", ctypes.c_bool), ("frames", ctypes.c_int)]


_STATE_FIELDS = ("ball_x", "ball_y", "ball_vx", "ball_vy", "ball_visible", "cpu_y", "agent_y",
                 "score_cpu", "score_agent", "game_frame", "resistance", "last_action",
                 "steps", "frames", "terminated", "truncated")


class _EnvState(ctypes.Structure):  # env.h EnvState: every field int64_t
    _fields_ = [(name, ctypes.c_int64) for name in _STATE_FIELDS]


def _load_library():
    path = os.environ.get("PONGRL_LIB") or os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "libpongrl.so"))
    if not os.path.exists(path):
        raise ImportError("pongrl: %s not found; run `make` in the pongrl repository "
                          "(or point PONGRL_LIB at libpongrl.so)" % path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("pongrl: cannot load %s (%s); rebuild it with `make`" % (path, e))
    vp, u8p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8)
    sigs = {
        "env_preset_id": (ctypes.c_char_p, [ctypes.c_int]),
        "env_new": (vp, [ctypes.c_char_p, ctypes.c_uint64]),
        "env_free": (None, [vp]),
        "env_reset": (None, [vp, ctypes.c_uint64]),
        "env_step": (ctypes.c_int, [vp, ctypes.c_int, ctypes.POINTER(_EnvStep)]),
        "env_render_rgb": (None, [vp, u8p]),
        "env_render_obs80": (None, [vp, u8p]),
        "env_state": (None, [vp, ctypes.POINTER(_EnvState)]),
    }
    for name, (res, args) in sigs.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError("pongrl: %s lacks %s; rebuild it with `make`" % (path, name))
        fn.restype, fn.argtypes = res, args
    return lib


_lib = _load_library()


def _preset_ids():
    ids, i = [], 0
    while True:
        p = _lib.env_preset_id(i)
        if p is None:
            return tuple(ids)
        ids.append(p.decode())
        i += 1


PRESETS = _preset_ids()


def _mix64(x):
    """splitmix64's finaliser: episode seeds that share no stream with each other."""
    x = (x + 0x9E3779B97F4A7C15) & _U64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _U64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _U64
    return x ^ (x >> 31)


def _as_seed(seed):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError("seed must be a non-negative integer, got %r" % (seed,))
    seed = int(seed)
    if seed < 0 or seed > _U64:
        raise ValueError("seed must be in [0, 2**64), got %d" % seed)
    return seed


# ----------------------------------------------------------------------------
# Gym-shaped wrapper

class Discrete:
    """Gym's Discrete(n): actions 0..n-1."""

    def __init__(self, n, seed=None):
        self.n = n
        self.shape = ()
        self.dtype = np.int64
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def sample(self):
        return int(self._rng.integers(self.n))

    def contains(self, x):
        return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) \
            and 0 <= int(x) < self.n

    def __repr__(self):
        return "Discrete(%d)" % self.n


class Box:
    """Gym's Box, only as a description of the observation (uint8 in [0, 255])."""

    def __init__(self, shape):
        self.shape, self.dtype, self.low, self.high = shape, np.uint8, 0, 255

    def __repr__(self):
        return "Box(0, 255, %s, uint8)" % (self.shape,)


class Env:
    """One environment. Use make(); close() (or the with-statement) frees it early."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, id, seed=None):
        if id not in PRESETS:
            raise ValueError("pongrl: unknown environment id %r; valid ids: %s"
                             % (id, ", ".join(PRESETS)))
        if seed is None:  # Gym: no seed means fresh entropy
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.spec_id = id
        self._seed = _as_seed(seed)
        self._episode = 0             # episodes since the last explicit seed
        self._total_frames = 0        # ALE's frame_number: frames since creation
        self._handle = _lib.env_new(id.encode(), self._seed)
        if not self._handle:
            raise MemoryError("pongrl: env_new(%r) failed" % id)
        self._done = False
        self._step = _EnvStep()
        self._state = _EnvState()
        self.action_space = Discrete(len(ACTION_MEANINGS), seed=self._seed)
        self.observation_space = Box(SCREEN_SHAPE)
        self.render_mode = "rgb_array"

    # -- Gym API

    def reset(self, seed=None, options=None):
        """Start an episode -> (obs, info). With a seed the episode is a function of
        (id, seed, actions); without one, the next seed in a stream derived from the last."""
        self._check_open()
        if seed is not None:
            self._seed, self._episode = _as_seed(seed), 0
        # the first episode after make(seed=s) or reset(seed=s) uses s itself, as env_new does
        episode_seed = self._seed if self._episode == 0 else _mix64(self._seed ^ _mix64(self._episode))
        self._episode += 1
        _lib.env_reset(self._handle, episode_seed)
        self._done = False
        return self.render(), self._info()

    def step(self, action):
        """One agent step -> (obs, reward, terminated, truncated, info)."""
        self._check_open()
        if not self.action_space.contains(action):
            raise ValueError("pongrl: action must be an integer in [0, %d) (%s), got %r"
                             % (self.action_space.n, ", ".join(ACTION_MEANINGS), action))
        rc = _lib.env_step(self._handle, int(action), ctypes.byref(self._step))
        if rc == _ENV_ERR_DONE:
            raise RuntimeError("pongrl: step() after the episode ended; call reset()")
        if rc != _ENV_OK:
            raise ValueError("pongrl: env_step failed (code %d)" % rc)
        st = self._step
        self._total_frames += st.frames
        self._done = bool(st.terminated or st.truncated)
        return self.render(), float(st.reward), bool(st.terminated), bool(st.truncated), \
            self._info()

    def render(self):
        """The current frame, uint8 (210, 160, 3), as ALE's getScreenRGB."""
        self._check_open()
        rgb = np.empty(SCREEN_SHAPE, dtype=np.uint8)
        _lib.env_render_rgb(self._handle, rgb.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)))
        return rgb

    def obs80(self):
        """The seed's preprocessing of the current frame, uint8 (80, 80) in {0, 1}."""
        self._check_open()
        obs = np.empty(OBS80_SHAPE, dtype=np.uint8)
        _lib.env_render_obs80(self._handle, obs.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)))
        return obs

    def state(self):
        """The game state as a dict (positions in screen pixels, scores, counters)."""
        self._check_open()
        _lib.env_state(self._handle, ctypes.byref(self._state))
        return {name: int(getattr(self._state, name)) for name in _STATE_FIELDS}

    def get_action_meanings(self):
        return list(ACTION_MEANINGS)

    @property
    def unwrapped(self):
        return self

    def close(self):
        if getattr(self, "_handle", None) and _lib is not None:
            _lib.env_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        self.close()

    def __repr__(self):
        return "<pongrl.Env %s>" % self.spec_id

    # -- internals

    def _check_open(self):
        if not getattr(self, "_handle", None):
            raise RuntimeError("pongrl: the environment is closed")

    def _info(self):
        s = self.state()
        return {"lives": 0, "episode_frame_number": s["frames"],
                "frame_number": self._total_frames, "steps": s["steps"],
                "score_agent": s["score_agent"], "score_cpu": s["score_cpu"]}


def make(id, seed=None, **kwargs):
    """pongrl.make("ALE/Pong-v5", seed=0): any id in pongrl.PRESETS."""
    if kwargs:
        raise TypeError("pongrl.make: unsupported arguments %s" % ", ".join(sorted(kwargs)))
    return Env(id, seed=seed)
