"""pongrl.ALEInterface: the methods of ale-py's ALEInterface that make sense for one game, on
pongrl's Pong, for scripts written against ale-py's low level and for the wrappers that reach
into `env.unwrapped.ale` (Gymnasium's AtariPreprocessing, the common Atari wrappers).

    ale = pongrl.ALEInterface()
    ale.setInt("random_seed", 0)
    ale.loadROM(roms.get_rom_path("pong"))   # "pong", or a real Pong ROM's path (md5 checked)
    reward = ale.act(pongrl.Action.RIGHT)
    screen = ale.getScreenRGB()         # uint8 (210, 160, 3)

Built as ale-py's: the interface holds the C library's game (src/env/env.h) and pongrl.Env
stands on one, `env.unwrapped.ale`, whose game is the env's: what it reads is what the env's
last step left, and ale.act() moves the env's game. This module imports nothing of the env.
The game sits behind a lock (_lib.Handle): after close() every method is a RuntimeError, and
so is a call from a second thread while one runs.

As ALE: settings (setInt, setFloat, ...) take effect at the next loadROM(); act() emulates
the frame_skip setting's frames (1 by default, as under ale-py, which repeats act() itself)
with sticky actions; act() after the end emulates nothing and returns 0; setMode and
setDifficulty take effect at the next reset_game(). Actions are ALE's 18 (`Action`), each
doing what a paddle obeys of it.
"""
import ctypes
import enum
import os
import struct
import zlib

import numpy as np

from . import _lib
from ._check import INT64_MAX, INT_MAX, INT_MIN, U64_MAX, as_bool, as_float, as_int, is_int
from ._lib import lib
from .roms import PONG_ROM_MD5, ROM_IDS, rom_md5

_U64 = U64_MAX
# ALE's minimal action set for Pong (PongSettings::isMinimal), Gym indices 0..5
ACTION_MEANINGS = ("NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE")
# ALE's full action set (its Action enum order) and what each does to a paddle (ale_state.cpp
# ALEState::applyActionPaddles: the RIGHT/LEFT part moves it, any FIRE presses the button, UP
# and DOWN do nothing): full_action_space=True maps these onto the minimal set.
FULL_ACTION_MEANINGS = (
    "NOOP",
    "FIRE",
    "UP",
    "RIGHT",
    "LEFT",
    "DOWN",
    "UPRIGHT",
    "UPLEFT",
    "DOWNRIGHT",
    "DOWNLEFT",
    "UPFIRE",
    "RIGHTFIRE",
    "LEFTFIRE",
    "DOWNFIRE",
    "UPRIGHTFIRE",
    "UPLEFTFIRE",
    "DOWNRIGHTFIRE",
    "DOWNLEFTFIRE",
)
FULL_TO_MINIMAL = tuple(
    (4 if "RIGHT" in m else 5 if "LEFT" in m else 1)
    if "FIRE" in m
    else (2 if "RIGHT" in m else 3 if "LEFT" in m else 0)
    for m in FULL_ACTION_MEANINGS
)


def mix64(x):
    """splitmix64's finaliser: episode seeds that share no stream with each other."""
    x = (x + 0x9E3779B97F4A7C15) & _U64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _U64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _U64
    return x ^ (x >> 31)


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
MINIMAL_ACTIONS = (Action.NOOP, Action.FIRE, Action.RIGHT, Action.LEFT, Action.RIGHTFIRE, Action.LEFTFIRE)

# ALE's settings for one game, their types and ALE's defaults (ale_interface.cpp)
SETTINGS = {
    "random_seed": (int, 0),
    "frame_skip": (int, 1),
    "repeat_action_probability": (float, 0.25),
    "max_num_frames_per_episode": (int, 0),
    "display_screen": (bool, False),
    "sound": (bool, False),
    "truncate_on_loss_of_life": (bool, False),
    "color_averaging": (bool, False),
}
# the range of each number setting, and what it means; checked by setInt/setFloat/setBool, so
# that what loadROM and act() hand the C library (env.h: int frames, int64_t max_frames, a
# uint64_t seed) is the value set. random_seed: pongrl's seeds are uint64; ALE's is a C int,
# and ale-py's AtariEnv sets an np.int32, which may be negative: that one is taken modulo 2**64.
SETTING_RANGES = {
    "random_seed": (INT_MIN, U64_MAX, "a negative one, ALE's C int, taken modulo 2**64"),
    "frame_skip": (1, INT_MAX, "the frames an act() emulates"),
    "repeat_action_probability": (0.0, 1.0, None),
    "max_num_frames_per_episode": (0, INT64_MAX, "0: none"),
}


def png_bytes(rgb):
    """An (H, W, 3) uint8 picture as the bytes of a PNG file: 8-bit RGB, no interlace, each row
    with filter 0, one zlib stream (the PNG specification's minimum, which every reader takes)."""
    h, w, _ = rgb.shape

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows, 6))
        + chunk(b"IEND", b"")
    )


def write_png(path, rgb):
    """png_bytes(rgb) to path through a temporary beside it (created exclusively), renamed."""
    data = png_bytes(rgb)
    tmp = "%s.p%d.%08x.tmp" % (path, os.getpid(), int.from_bytes(os.urandom(4), "little"))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class _IndexOutOfRange(RuntimeError, ValueError):
    """setRAM's index out of range: ALE's RuntimeError, and a ValueError as pongrl's ranges are."""


class _ByteOutOfRange(TypeError, ValueError):
    """setRAM's value out of a byte's range: ale-py's TypeError (pybind's uint8), and a ValueError."""


def is_pong(rom):
    """ALEInterface.isSupportedROM: 'pong' for the name (pongrl.roms.get_rom_path("pong")) or a
    file holding the Pong ROM; None for anything else."""
    rom = os.fspath(rom)
    if rom in ROM_IDS:
        return "pong"
    if os.path.isfile(rom):
        return "pong" if rom_md5(rom) == PONG_ROM_MD5 else None
    return None


class ALEState:
    """ale_py.ALEState: a cloned state. It holds the C library's state (src/env/env.h
    env_clone: the whole env, its random stream when include_rng) behind a small header with
    what ALEState's getters answer; equal to another with the same bytes; serialize() and
    ALEState(bytes) round-trip, and it pickles."""

    _MAGIC = b"PRLALE1\0"
    _HEADER = struct.Struct("<8sqqqq")  # magic, frames, frame_number, mode, difficulty

    def __init__(self, *args):
        if len(args) == 2:  # ale-py's ALEState(state, serialized)
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
        return self._bytes[self._HEADER.size :]

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
    """ale_py.ALEInterface for Pong, on the C library's env (src/env/env.h). Standalone:
    ALEInterface(), settings, loadROM("pong"). pongrl.Env is built on one (env.ale), made by
    the env with the env's preset: the env's step is this game's agent step."""

    def __init__(self):
        self._settings = {k: d for k, (_, d) in SETTINGS.items()}
        self._h = None  # _lib.Handle of the C env, once a ROM is loaded
        self._rom_file = ""  # what loadROM was given: getString("rom_file")
        self._closed = False  # closed for good (pongrl.Env.close): no loadROM brings it back
        self._preset = None  # the EnvPreset the C env was made with
        self._seed = 0  # the stream of episode seeds (reset_game)
        self._episode = 0  # episodes since the last seeding
        self._total_frames = 0  # ALE's frame_number: frames since loadROM / seeding
        self._mode = self._difficulty = None  # the game's flavour (None: default)
        self._pending_mode = self._pending_difficulty = None
        self._step = _lib.EnvStep()
        self._state = _lib.EnvState()
        self._step_ref, self._state_ref = ctypes.byref(self._step), ctypes.byref(self._state)

    @classmethod
    def _open(cls, preset, seed, what="environment"):
        """An interface with its game loaded from `preset` (an EnvPreset the caller has
        checked), seeded: what pongrl.Env stands on."""
        ale = cls()
        ale._settings.update(
            repeat_action_probability=float(preset.repeat_prob),
            max_num_frames_per_episode=int(preset.max_frames),
            random_seed=int(seed),
        )
        ale._preset = preset
        ale._new_game(seed, what)
        return ale

    def _new_game(self, seed, what="environment"):
        """ALE's loadROM: the game anew from self._preset, seeded; frame_number restarts."""
        self._check_open()
        why = lib.env_preset_problem(ctypes.byref(self._preset))
        if why:  # what is wrong, not "out of memory"
            raise ValueError("pongrl: %s" % why.decode())
        ptr = lib.env_new_preset(ctypes.byref(self._preset), seed)
        if not ptr:
            raise MemoryError("pongrl: env_new_preset failed (out of memory)")
        # env_new_preset has played the seeded reset already: a game made anew lets the next
        # reset_game() replay that first episode, a game reloaded goes on to the next seed
        if self._h is None:
            self._h, episode = _lib.Handle(ptr, lib.env_free, what), 0
        else:
            self._h.replace(ptr)
            episode = 1
        self._seed, self._episode, self._total_frames = seed, episode, 0
        self._mode = self._difficulty = None  # ALE's loadROM: the default flavour
        self._pending_mode = self._pending_difficulty = None

    def _use(self):
        """The C env, locked for this thread (with ...: ptr); a clear error without a ROM, once
        closed, or while another thread uses it."""
        self._check_open()
        if self._h is None:
            raise RuntimeError('pongrl: no ROM loaded; call loadROM("pong") first')
        return self._h

    def _check_open(self):
        if self._closed:
            raise RuntimeError("pongrl: the environment is closed")

    def _close(self):
        """Frees the game for good: every later call, loadROM included, is a RuntimeError."""
        self._closed = True
        if self._h is not None:
            self._h.close()

    def __del__(self):
        self._close()

    # -- settings

    def _check_key(self, key):
        self._check_open()
        if key not in SETTINGS:
            raise RuntimeError("pongrl: unknown ALE setting %r (pongrl has %s)" % (key, ", ".join(SETTINGS)))
        return key

    def getInt(self, key):
        return int(self._settings[self._check_key(key)])

    def getFloat(self, key):
        return float(self._settings[self._check_key(key)])

    def getBool(self, key):
        return bool(self._settings[self._check_key(key)])

    def getString(self, key):
        """A setting as text; "rom_file": what loadROM was given ("" before), as ALE keeps it."""
        if key == "rom_file":
            return self._rom_file
        return str(self._settings[self._check_key(key)])

    def _set(self, key, value):
        """setInt, setFloat, setBool: the value checked against the setting's type and range
        (SETTING_RANGES), whichever of the three is called; a TypeError or ValueError names
        the setting and the range."""
        self._check_key(key)
        kind, name = SETTINGS[key][0], "ALE setting " + key
        if kind is bool:
            value = as_bool(value, name)
            if key == "display_screen" and value:
                raise ValueError("pongrl: display_screen is not supported; use render_mode='rgb_array' and save frames")
            if key == "color_averaging" and value:  # ALE's phosphor blend of two frames: not drawn here
                raise ValueError("pongrl: color_averaging is not supported (the screens are ALE's without it)")
        elif kind is float:
            lo, hi, _ = SETTING_RANGES[key]
            value = as_float(value, name, lo, hi)
        else:
            lo, hi, note = SETTING_RANGES[key]
            value = as_int(value, name, lo, hi, note=note)
        self._settings[key] = value

    setInt = setFloat = setBool = _set

    def setString(self, key, value):
        """ALE's setString: the value's text ("4", "0.25", "true") read as the setting's type,
        then set as setInt/setFloat/setBool would."""
        self._check_key(key)
        if isinstance(value, str):
            kind, text = SETTINGS[key][0], value.strip()
            try:
                if kind is bool:
                    value = {"true": True, "false": False, "1": True, "0": False}[text.lower()]
                else:
                    value = kind(text)
            except (KeyError, ValueError):
                raise ValueError("pongrl: ALE setting %s: %r is not a %s" % (key, value, kind.__name__)) from None
        self._set(key, value)

    @staticmethod
    def setLoggerMode(mode):
        pass

    # -- the game

    @staticmethod
    def isSupportedROM(rom):
        return is_pong(rom)

    def loadROM(self, rom):
        """ "pong" (pongrl.roms.get_rom_path("pong")) or the path of a file whose md5 is
        Pong's; a path that is not there, or anything else, is a RuntimeError saying so."""
        self._check_open()
        name = os.fspath(rom)
        if name not in ROM_IDS and not os.path.exists(name):
            raise RuntimeError(
                "pongrl: loadROM: no such file: %r (pongrl needs no ROM file: pass "
                '"pong", or pongrl.roms.get_rom_path("pong"))' % (name,)
            )
        if is_pong(rom) is None:
            why = "not a file" if not os.path.isfile(name) else "md5 %s" % rom_md5(name)
            raise RuntimeError(
                'pongrl: %r is not Pong (%s; pongrl plays only Pong: pass "pong" '
                "or the path of the ROM with md5 %s)" % (name, why, PONG_ROM_MD5)
            )
        self._rom_file = name
        s = self._settings
        if self._preset is None:  # standalone: ALE/Pong-v5's game, ALE's one frame a call
            self._preset = _lib.EnvPreset.from_buffer_copy(lib.env_preset_find(b"ALE/Pong-v5").contents)
            self._preset.frameskip_min = self._preset.frameskip_max = 1
            self._preset.max_steps = 0
        self._preset.repeat_prob = float(s["repeat_action_probability"])
        self._preset.max_frames = int(s["max_num_frames_per_episode"])
        self._new_game(int(s["random_seed"]) & _U64)

    def act(self, action, paddle_strength=1.0):
        """The action for frame_skip frames; the reward. After the end: nothing, 0.
        Actions outside ALE's 18 are NOOP, as ALE's noopIllegalActions makes them."""
        a = _as_action(action)
        minimal = FULL_TO_MINIMAL[a] if 0 <= a < len(FULL_TO_MINIMAL) else 0
        frames = self.getInt("frame_skip")
        with self._use() as ptr:
            if lib.env_act(ptr, minimal, frames, ctypes.byref(self._step)) != _lib.ENV_OK:
                return 0
            self._total_frames += self._step.frames
            return int(self._step.reward)

    def reset_game(self):
        """A new episode (the mode and difficulty set since take effect): the first after
        loadROM or a seeding is seeded with the seed itself, each next one with the next seed
        of a stream derived from it."""
        with self._use() as ptr:
            if self._pending_mode is not None or self._pending_difficulty is not None:
                self._set_flavour(self._pending_mode, self._pending_difficulty)
                self._pending_mode = self._pending_difficulty = None
            episode_seed = self._seed if self._episode == 0 else mix64(self._seed ^ mix64(self._episode))
            self._episode += 1
            lib.env_reset(ptr, episode_seed)
            # a reset in mode 1 presses SELECT once, a frame ALE counts (env.h env_init_flavour)
            self._total_frames += self._read_state(ptr)["frames"]

    def _seed_game(self, seed):
        """The next reset_game() starts the stream of episode seeds from `seed` (ale-py reloads
        the ROM when an env is seeded, which restarts frame_number too)."""
        self._seed, self._episode, self._total_frames = seed, 0, 0
        self._settings["random_seed"] = seed

    # The methods below that take `ptr` are the env's (pongrl.Env), called holding
    # `with ale._use() as ptr:` once for a whole step rather than a lock per C call.

    def _agent_step(self, ptr, minimal_action):
        """One agent step of the preset (its frameskip, sticky actions, caps) -> EnvStep, or
        None when the episode has ended (nothing emulated)."""
        rc = lib.env_step(ptr, minimal_action, self._step_ref)
        if rc == _lib.ENV_ERR_DONE:
            return None
        if rc != _lib.ENV_OK:
            raise ValueError("pongrl: env_step failed (code %d)" % rc)
        self._total_frames += self._step.frames
        return self._step

    def _read_state(self, ptr):
        """The game state as a dict (env.h EnvState: positions in screen pixels, scores,
        counters)."""
        lib.env_state(ptr, self._state_ref)
        st = self._state
        return {name: getattr(st, name) for name in _lib.STATE_FIELDS}

    def _observe(self, ptr, obs_code, shape):
        """The observation of an obs type's code (_lib.OBS_TYPES), a new array."""
        buf = np.empty(shape, dtype=np.uint8)
        lib.env_render_obs(ptr, obs_code, buf.ctypes.data)
        return buf

    def _set_flavour(self, mode, difficulty):
        """ALE's mode and difficulty (None: keep the current one) for the next reset."""
        mode = self._mode if mode is None else mode
        difficulty = self._difficulty if difficulty is None else difficulty
        for name, v, avail in (
            ("mode", mode, self.getAvailableModes()),
            ("difficulty", difficulty, self.getAvailableDifficulties()),
        ):
            if v is not None and (isinstance(v, (bool, np.bool_)) or v not in avail):
                raise ValueError("pongrl: %s must be one of %s (ALE's for Pong), got %r" % (name, avail, v))
        with self._use() as ptr:
            if lib.env_set_flavour(ptr, int(mode or 0), int(difficulty or 0)) != _lib.ENV_OK:
                raise ValueError("pongrl: mode %r, difficulty %r refused" % (mode, difficulty))
        self._mode, self._difficulty = mode, difficulty

    def _game_state(self):
        with self._use() as ptr:
            return self._read_state(ptr)

    def game_over(self, with_truncation=True):
        s = self._game_state()
        return bool(s["terminated"] or (with_truncation and s["truncated"]))

    def game_truncated(self):
        return bool(self._game_state()["truncated"])

    def lives(self):
        with self._use():
            return 0  # Pong has no lives (PongSettings::lives)

    def getEpisodeFrameNumber(self):
        return int(self._game_state()["frames"])

    def getFrameNumber(self):
        with self._use():
            return int(self._total_frames)

    def getMinimalActionSet(self):
        return list(MINIMAL_ACTIONS)

    def getLegalActionSet(self):
        return list(Action)

    def getAvailableModes(self):
        return list(range(lib.env_num_modes()))  # ALE's Pong: [0, 1]

    def getAvailableDifficulties(self):
        return list(range(lib.env_num_difficulties()))  # ALE's Pong: [0, 1, 2, 3]

    def setMode(self, mode):
        self._check_open()
        if not is_int(mode):
            raise TypeError("pongrl: setMode takes an int (available: %s), got %r" % (self.getAvailableModes(), mode))
        if mode not in self.getAvailableModes():
            raise RuntimeError("pongrl: invalid game mode %r (available: %s)" % (mode, self.getAvailableModes()))
        self._pending_mode = int(mode)

    def setDifficulty(self, difficulty):
        self._check_open()
        if not is_int(difficulty):
            raise TypeError(
                "pongrl: setDifficulty takes an int (available: %s), got %r"
                % (self.getAvailableDifficulties(), difficulty)
            )
        if difficulty not in self.getAvailableDifficulties():
            raise RuntimeError(
                "pongrl: invalid difficulty %r (available: %s)" % (difficulty, self.getAvailableDifficulties())
            )
        self._pending_difficulty = int(difficulty)

    # -- observations

    def getScreenDims(self):
        return (210, 160)

    def getRAMSize(self):
        return 128

    def _into(self, out, shapes, code):
        if out is None:
            buf = np.empty(shapes[0], dtype=np.uint8)
        else:
            if not (
                isinstance(out, np.ndarray)
                and out.dtype == np.uint8
                and out.shape in shapes
                and out.flags.c_contiguous
                and out.flags.writeable
            ):
                raise TypeError(
                    "pongrl: the output buffer must be a writeable, C-contiguous "
                    "uint8 array of shape %s" % " or ".join(map(str, shapes))
                )
            buf = out
        with self._use() as ptr:
            if code == "indices":
                lib.env_render_indices(ptr, buf.ctypes.data)
            else:
                lib.env_render_obs(ptr, _lib.OBS_TYPES[code], buf.ctypes.data)
        return None if out is not None else buf

    def getScreen(self, out=None):
        return self._into(out, ((210, 160), (210, 160, 1)), "indices")

    def getScreenRGB(self, out=None):
        return self._into(out, ((210, 160, 3),), "rgb")

    def saveScreenPNG(self, filename):
        """ALE's saveScreenPNG: the screen (210, 160) as an RGB PNG at `filename` (a str or a
        path), written whole beside it and renamed into place, so that a reader never sees half
        a picture."""
        write_png(os.fspath(filename), self.getScreenRGB())

    def getScreenGrayscale(self, out=None):
        return self._into(out, ((210, 160), (210, 160, 1)), "grayscale")

    def getRAM(self, out=None):
        return self._into(out, ((128,),), "ram")

    def setRAM(self, index, value):
        """RAM byte `index` (an int in [0, 127]) set to `value` (an int in [0, 255]); out of
        range, ALE's RuntimeError for the index, ale-py's TypeError for the value (each also a
        ValueError), a TypeError for what is not an int."""
        try:
            index = as_int(index, "setRAM index", 0, 127)
        except ValueError as e:
            raise _IndexOutOfRange("setRAM index out of bounds. (%s)" % e) from None
        try:
            value = as_int(value, "setRAM value", 0, 255)
        except ValueError as e:
            raise _ByteOutOfRange(str(e)) from None
        with self._use() as ptr:
            lib.env_set_ram(ptr, index, value)

    # -- states

    def cloneState(self, include_rng=False):
        """The whole game's state as an ALEState: the game, the paddle, the counters and caps'
        progress, and with include_rng the random stream of sticky actions and random
        frameskip too, so that a restore replays exactly what followed the clone."""
        buf = ctypes.create_string_buffer(int(lib.env_state_size()))
        with self._use() as ptr:
            lib.env_clone(ptr, bool(include_rng), buf)
            s = self._game_state()
            return ALEState._make(buf.raw, s["frames"], self._total_frames, self._mode or 0, self._difficulty or 0)

    def cloneSystemState(self):
        return self.cloneState(include_rng=True)

    def restoreState(self, state):
        """Back to a state of cloneState (of a game of the same settings); without its random
        stream, the game's own stream goes on from where it is, as ALE's. A state may come from
        anywhere (a file, a pickle): it is checked whole before anything changes, the C state
        by env_state_check (src/env/env.h: its crc, its settings, every counter and position one
        a real game reaches) and the header's numbers against it, and a refusal says which
        field and what range in one line."""
        if not isinstance(state, ALEState):
            raise TypeError(
                "pongrl: restoreState takes an ALEState (from cloneState), got %r" % (type(state).__name__,)
            )
        blob = state._blob()
        frames, frame_number, mode, difficulty = state._fields()
        with self._use() as ptr:
            why = self._state_refusal(ptr, blob, frames, frame_number, mode, difficulty)
            if why is not None:
                raise RuntimeError("pongrl: restore_state: %s" % why)
            rc = lib.env_restore(ptr, blob)
            if rc != _lib.ENV_OK:  # what env_state_check passed, env_restore takes
                raise RuntimeError("pongrl: restore_state: %s" % lib.env_strerror(rc).decode())
            self._total_frames = frame_number

    def _state_refusal(self, ptr, blob, frames, frame_number, mode, difficulty):
        """What is wrong with an ALEState for this game, in one line; None when nothing is.
        The header is outside the C state's crc, so its numbers are held to the state's: the
        episode's frames equal, ALE's frame number from them to 2^53 - 1 (env.h ENV_COUNT_MAX),
        the flavour this game's."""
        if len(blob) != lib.env_state_size():
            return "an ALEState holding %d bytes of state, this library's states have %d" % (
                len(blob),
                lib.env_state_size(),
            )
        err = ctypes.create_string_buffer(256)
        if lib.env_state_check(ptr, blob, err, len(err)) != _lib.ENV_OK:
            return err.value.decode(errors="replace")
        held = struct.unpack_from("<q", blob, _lib.ENV_STATE_FRAMES_AT)[0]
        if frames != held:
            return "the ALEState's episode frame number is %d, must be %d (its state's)" % (frames, held)
        if not held <= frame_number <= _lib.ENV_COUNT_MAX:
            return "the ALEState's frame number is %d, must be %d..%d (its episode frames..2^53 - 1)" % (
                frame_number,
                held,
                _lib.ENV_COUNT_MAX,
            )
        flavour = (self._mode or 0, self._difficulty or 0)
        if (mode, difficulty) != flavour:
            return "the ALEState's mode and difficulty are %d, %d, must be %d, %d (this game's)" % (
                (mode, difficulty) + flavour
            )
        return None

    restoreSystemState = restoreState

    # -- pickle and copy: the settings and the whole game with its random stream

    _PRESET_FIELDS = ("frameskip_min", "frameskip_max", "repeat_prob", "max_steps", "max_frames")

    def __getstate__(self):
        d = {"settings": dict(self._settings), "pending": (self._pending_mode, self._pending_difficulty)}
        if self._h is not None:
            with self._use():
                d.update(
                    preset_id=ctypes.cast(self._preset.id, ctypes.c_char_p).value,
                    preset=tuple(getattr(self._preset, f) for f in self._PRESET_FIELDS),
                    seed=self._seed,
                    episode=self._episode,
                    flavour=(self._mode, self._difficulty),
                    state=self.cloneState(True).serialize(),
                )
        return d

    def __setstate__(self, d):
        self.__init__()
        for k, v in d["settings"].items():  # checked as setInt checks them
            self._set(k, v)
        if "state" in d:
            found = lib.env_preset_find(d["preset_id"])
            if not found:
                raise ValueError("pongrl: a pickled ALEInterface of an unknown preset %r" % d["preset_id"])
            self._preset = _lib.EnvPreset.from_buffer_copy(found.contents)
            for f, v in zip(self._PRESET_FIELDS, d["preset"]):
                setattr(self._preset, f, v)
            self._new_game(d["seed"])
            if d["flavour"] != (None, None):
                self._set_flavour(*d["flavour"])
            self.restoreState(ALEState(d["state"]))
            self._episode = d["episode"]
        self._pending_mode, self._pending_difficulty = d["pending"]

    def __repr__(self):
        return "<pongrl.ALEInterface %s>" % ("pong" if self._h is not None else "no ROM")
