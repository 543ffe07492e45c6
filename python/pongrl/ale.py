"""pongrl.ALEInterface: the methods of ale-py's ALEInterface that make sense for one game, on
pongrl's Pong, for scripts written against ale-py's low level and for the wrappers that reach
into `env.unwrapped.ale` (Gymnasium's AtariPreprocessing, the common Atari wrappers).

    ale = pongrl.ALEInterface()
    ale.setInt("random_seed", 0)
    ale.loadROM("pong")                 # or the path of a real Pong ROM (its md5 is checked)
    reward = ale.act(pongrl.Action.RIGHT)
    screen = ale.getScreenRGB()         # uint8 (210, 160, 3)

`env.unwrapped.ale` is the same class, attached to the env: it acts on the env's game, so
what it reads is what the env's last step left, and ale.act() moves the env's game.

As ALE: settings (setInt, setFloat, ...) take effect at the next loadROM(); act() emulates
the frame_skip setting's frames (1 by default, as under ale-py, which repeats act() itself)
with sticky actions; act() after the end emulates nothing and returns 0; setMode and
setDifficulty take effect at the next reset_game(). Actions are ALE's 18 (`Action`), each
doing what a paddle obeys of it.
"""
import enum
import hashlib
import os
import struct

import numpy as np

from . import _lib
from ._lib import lib

# Video Olympics (CX2621), the ROM ALE plays as "pong": docs/pong-spec.md, ALE's
# src/ale/games/supported/Pong.cpp
PONG_ROM_MD5 = "60e0ea3cbe0913d39803477945e9e5ec"


class Action(enum.IntEnum):
    """ale_py.Action: ALE's 18 joystick actions, same names and values."""
    NOOP = 0
    FIRE = 1
    UP = 2
    RIGHT = 3
    LEFT = 4
    DOWN = 5
    UPRIGHT = 6
    UPLEFT = 7
    DOWNRIGHT = 8
    DOWNLEFT = 9
    UPFIRE = 10
    RIGHTFIRE = 11
    LEFTFIRE = 12
    DOWNFIRE = 13
    UPRIGHTFIRE = 14
    UPLEFTFIRE = 15
    DOWNRIGHTFIRE = 16
    DOWNLEFTFIRE = 17


class LoggerMode(enum.IntEnum):
    """ale_py.LoggerMode (pongrl logs nothing)."""
    Info = 0
    Warning = 1
    Error = 2


# Pong's minimal set in ALE's order (PongSettings::isMinimal), the env's Discrete(6)
MINIMAL_ACTIONS = (Action.NOOP, Action.FIRE, Action.RIGHT, Action.LEFT, Action.RIGHTFIRE,
                   Action.LEFTFIRE)

# ALE's settings for one game, their types and ALE's defaults (ale_interface.cpp)
SETTINGS = {"random_seed": (int, 0), "frame_skip": (int, 1),
            "repeat_action_probability": (float, 0.25), "max_num_frames_per_episode": (int, 0),
            "display_screen": (bool, False), "sound": (bool, False),
            "truncate_on_loss_of_life": (bool, False), "color_averaging": (bool, False)}


def rom_md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def is_pong(rom):
    """ALEInterface.isSupportedROM: 'pong' for the name or a file holding the Pong ROM."""
    rom = os.fspath(rom)
    if os.path.isfile(rom):
        return "pong" if rom_md5(rom) == PONG_ROM_MD5 else None
    return "pong" if rom == "pong" else None


class ALEState:
    """ale_py.ALEState: a cloned state. It holds the C library's state (src/env/env.h
    env_clone: the whole env, its random stream when include_rng) behind a small header with
    what ALEState's getters answer; equal to another with the same bytes; serialize() and
    ALEState(bytes) round-trip, and it pickles."""

    _MAGIC = b"PRLALE1\0"
    _HEADER = struct.Struct("<8sqqqq")     # magic, frames, frame_number, mode, difficulty

    def __init__(self, *args):
        if len(args) == 2:                     # ale-py's ALEState(state, serialized)
            args = args[1:]
        if not args:
            self._bytes = b""
        elif len(args) == 1 and isinstance(args[0], (bytes, bytearray)):
            data = bytes(args[0])
            if len(data) < self._HEADER.size or data[:8] != self._MAGIC:
                raise ValueError("pongrl: not a serialized pongrl ALEState")
            self._bytes = data
        else:
            raise TypeError("ALEState(), ALEState(serialized: bytes) or ALEState(state, serialized)")

    @classmethod
    def _make(cls, blob, frames, frame_number, mode, difficulty):
        return cls(cls._HEADER.pack(cls._MAGIC, frames, frame_number, mode, difficulty) + blob)

    def _fields(self):
        if not self._bytes:
            raise RuntimeError("pongrl: an empty ALEState")
        return self._HEADER.unpack_from(self._bytes)[1:]

    def _blob(self):
        self._fields()
        return self._bytes[self._HEADER.size:]

    def serialize(self):
        return self._bytes

    def equals(self, other):
        return isinstance(other, ALEState) and self._bytes == other._bytes

    def __eq__(self, other):
        return self.equals(other)

    __hash__ = None

    def __getstate__(self):
        return (self._bytes,)

    def __setstate__(self, state):
        self._bytes = state[0]

    def getEpisodeFrameNumber(self):
        return self._fields()[0]

    def getFrameNumber(self):
        return self._fields()[1]

    def getCurrentMode(self):
        return self._fields()[2]

    def getDifficulty(self):
        return self._fields()[3]

    def __repr__(self):
        return "<pongrl.ALEState %d bytes>" % len(self._bytes)


def _as_action(action):
    if isinstance(action, (bool, np.bool_)):
        raise TypeError("pongrl: act() takes an Action or an int, got %r" % (action,))
    try:
        a = int(action.__index__())
    except (AttributeError, TypeError, ValueError):
        raise TypeError("pongrl: act() takes an Action or an int, got %r" % (action,)) from None
    return a


class ALEInterface:
    """ale_py.ALEInterface for Pong. Standalone: ALEInterface(), settings, loadROM("pong").
    Attached: env.unwrapped.ale (made by the env)."""

    def __init__(self, _env=None):
        self._settings = {k: d for k, (_, d) in SETTINGS.items()}
        self._env = None
        self._own = False
        self._pending_mode = self._pending_difficulty = None
        if _env is not None:
            self._attach(_env)

    def _attach(self, env):
        self._env = env
        p = env._preset
        self._settings.update(repeat_action_probability=float(p.repeat_prob),
                              max_num_frames_per_episode=int(p.max_frames),
                              random_seed=int(env._seed))

    # -- settings

    def _check_key(self, key):
        if key not in SETTINGS:
            raise RuntimeError("pongrl: unknown ALE setting %r (pongrl has %s)"
                               % (key, ", ".join(SETTINGS)))
        return key

    def getInt(self, key):
        return int(self._settings[self._check_key(key)])

    def getFloat(self, key):
        return float(self._settings[self._check_key(key)])

    def getBool(self, key):
        return bool(self._settings[self._check_key(key)])

    def getString(self, key):
        return str(self._settings[self._check_key(key)])

    def _set(self, key, value):
        self._check_key(key)
        kind = SETTINGS[key][0]
        if kind is int and isinstance(value, float) and value != int(value):
            raise TypeError("pongrl: ALE setting %s is an int, got %r" % (key, value))
        value = kind(value)
        if key == "repeat_action_probability" and not 0.0 <= value <= 1.0:
            raise ValueError("pongrl: repeat_action_probability must be in [0, 1], got %r" % value)
        if key == "frame_skip" and value < 1:
            raise ValueError("pongrl: frame_skip must be >= 1, got %r" % value)
        if key == "max_num_frames_per_episode" and value < 0:
            raise ValueError("pongrl: max_num_frames_per_episode must be >= 0 (0: none)")
        if key == "display_screen" and value:
            raise ValueError("pongrl: display_screen is not supported; use render_mode="
                             "'rgb_array' and save frames")
        self._settings[key] = value

    setInt = setFloat = setBool = setString = _set

    @staticmethod
    def setLoggerMode(mode):
        pass

    # -- the game

    @staticmethod
    def isSupportedROM(rom):
        return is_pong(rom)

    def loadROM(self, rom):
        """"pong" or the path of a file whose md5 is Pong's; anything else is a RuntimeError."""
        if is_pong(rom) is None:
            raise RuntimeError("pongrl: %r is not Pong (pongrl plays only Pong: pass \"pong\" or "
                               "the path of the ROM with md5 %s)" % (os.fspath(rom), PONG_ROM_MD5))
        s = self._settings
        seed = int(s["random_seed"]) & ((1 << 64) - 1)
        if self._env is None:
            from .env import Env
            self._env = Env("ALE/Pong-v5", frameskip=1, seed=seed, max_episode_steps=0,
                            repeat_action_probability=s["repeat_action_probability"],
                            max_num_frames_per_episode=s["max_num_frames_per_episode"])
            self._own = True
        else:
            self._env._reload(seed=seed, repeat_action_probability=s["repeat_action_probability"],
                              max_num_frames_per_episode=s["max_num_frames_per_episode"])
        self._pending_mode = self._pending_difficulty = None

    def _game(self):
        if self._env is None:
            raise RuntimeError("pongrl: no ROM loaded; call loadROM(\"pong\") first")
        return self._env

    def act(self, action, paddle_strength=1.0):
        """The action for frame_skip frames; the reward. After the end: nothing, 0.
        Actions outside ALE's 18 are NOOP, as ALE's noopIllegalActions makes them."""
        from .env import FULL_TO_MINIMAL
        env = self._game()
        a = _as_action(action)
        minimal = FULL_TO_MINIMAL[a] if 0 <= a < len(FULL_TO_MINIMAL) else 0
        return env._act(minimal, self.getInt("frame_skip"))

    def reset_game(self):
        env = self._game()
        if self._pending_mode is not None or self._pending_difficulty is not None:
            env._set_flavour(self._pending_mode, self._pending_difficulty)
            self._pending_mode = self._pending_difficulty = None
        env._reset_episode()

    def game_over(self, with_truncation=True):
        s = self._game().state()
        return bool(s["terminated"] or (with_truncation and s["truncated"]))

    def game_truncated(self):
        return bool(self._game().state()["truncated"])

    def lives(self):
        self._game()
        return 0          # Pong has no lives (PongSettings::lives)

    def getEpisodeFrameNumber(self):
        return int(self._game().state()["frames"])

    def getFrameNumber(self):
        return int(self._game()._total_frames)

    def getMinimalActionSet(self):
        return list(MINIMAL_ACTIONS)

    def getLegalActionSet(self):
        return list(Action)

    def getAvailableModes(self):
        return list(range(lib.env_num_modes()))          # ALE's Pong: [0, 1]

    def getAvailableDifficulties(self):
        return list(range(lib.env_num_difficulties()))   # ALE's Pong: [0, 1, 2, 3]

    def setMode(self, mode):
        if mode not in self.getAvailableModes():
            raise RuntimeError("pongrl: invalid game mode %r (available: %s)"
                               % (mode, self.getAvailableModes()))
        self._pending_mode = int(mode)

    def setDifficulty(self, difficulty):
        if difficulty not in self.getAvailableDifficulties():
            raise RuntimeError("pongrl: invalid difficulty %r (available: %s)"
                               % (difficulty, self.getAvailableDifficulties()))
        self._pending_difficulty = int(difficulty)

    # -- observations

    def getScreenDims(self):
        return (210, 160)

    def getRAMSize(self):
        return 128

    def _into(self, out, shapes, code):
        env = self._game()
        if out is None:
            buf = np.empty(shapes[0], dtype=np.uint8)
        else:
            if not (isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape in shapes
                    and out.flags.c_contiguous and out.flags.writeable):
                raise TypeError("pongrl: the output buffer must be a writeable, C-contiguous "
                                "uint8 array of shape %s" % " or ".join(map(str, shapes)))
            buf = out
        if code == "indices":
            lib.env_render_indices(env._handle, buf.ctypes.data)
        else:
            lib.env_render_obs(env._handle, _lib.OBS_TYPES[code], buf.ctypes.data)
        return None if out is not None else buf

    def getScreen(self, out=None):
        return self._into(out, ((210, 160), (210, 160, 1)), "indices")

    def getScreenRGB(self, out=None):
        return self._into(out, ((210, 160, 3),), "rgb")

    def getScreenGrayscale(self, out=None):
        return self._into(out, ((210, 160), (210, 160, 1)), "grayscale")

    def getRAM(self, out=None):
        return self._into(out, ((128,),), "ram")

    def setRAM(self, index, value):
        env = self._game()
        if not isinstance(index, (int, np.integer)) or not 0 <= index < 128:
            raise RuntimeError("setRAM index out of bounds.")
        if not isinstance(value, (int, np.integer)) or not 0 <= value <= 255:
            raise TypeError("pongrl: setRAM value must be an int in [0, 255], got %r" % (value,))
        lib.env_set_ram(env._handle, int(index), int(value))

    # -- states

    def cloneState(self, include_rng=False):
        return self._game()._clone(bool(include_rng))

    def cloneSystemState(self):
        return self.cloneState(include_rng=True)

    def restoreState(self, state):
        if not isinstance(state, ALEState):
            raise TypeError("pongrl: restoreState takes an ALEState, got %r" % (state,))
        self._game()._restore(state)

    restoreSystemState = restoreState

    def __repr__(self):
        return "<pongrl.ALEInterface %s>" % ("pong" if self._env is not None else "no ROM")

