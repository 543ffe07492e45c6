"""pongrl.VecEnv: N environments stepped in C by a pool of threads (src/env/vecenv.h), shaped
like gymnasium.vector.VectorEnv (and one, when gymnasium is importable).

autoreset_mode= picks Gymnasium's AutoresetMode (a member or its value "NextStep",
"SameStep", "Disabled"); pongrl.make_vec's default is SAME_STEP, as before the modes came:
- SAME_STEP: an env whose episode ends is reset inside the same step(); `obs` holds the new
  episode's first observation and info["final_obs"] (an object array, None for the others,
  with the mask info["_final_obs"]) the last one. The ended episodes' return, length and
  frames are in info["final_info"]["episode"] = {"r", "l", "f"} with the mask
  info["final_info"]["_episode"].
- NEXT_STEP (Gymnasium's default): the step that ends an episode returns its last
  observation; the env's next step resets it, ignores its action and returns the new first
  observation with reward 0.
- DISABLED: an ended env must be reset with reset(options={"reset_mask": mask}); stepping it
  raises.
Gymnasium's RecordEpisodeStatistics (which adds info["episode"] itself) works in every mode.
reset(seed=) takes an int (env i's episodes come from (seed, i)), a list or array of one seed
per env (reset) or None; reset(options={"reset_mask": bool array}) resets only those envs.

Env i's episode j is seeded from (seed, i, j) alone: results do not depend on num_threads.
"""
import ctypes
import functools
import operator

import numpy as np

from . import _lib
from ._check import INT64_MAX, INT_MAX, as_bool, as_int, is_int
from ._lib import lib
from .ale import mix64 as _mix64
from .env import (
    ACTION_MEANINGS,
    FULL_ACTION_MEANINGS,
    FULL_TO_MINIMAL,
    OBS_SHAPES,
    SCREEN_SHAPE,
    ale_options,
    ale_signature,
    as_seed,
    entropy_seed,
    make_spec,
    observation_space,
    resolve,
)
from .spaces import Box, Closing, Discrete, MultiDiscrete, StandInRandom, gymnasium

from .ale import ALEState
from .spaces import AutoresetMode  # Gymnasium's, or a stand-in before 1.1 / without it

if gymnasium is not None:
    from gymnasium.vector import VectorEnv as _VecBase
else:
    _VecBase = StandInRandom


def autoreset_mode(mode):
    """An AutoresetMode from a member or its value ("NextStep", "SameStep", "Disabled")."""
    if isinstance(mode, AutoresetMode):
        return mode
    value = getattr(mode, "value", mode)  # another enum with the same values
    for m in AutoresetMode:
        if m.value == value:
            return m
    raise ValueError(
        "pongrl: autoreset_mode must be one of %s, got %r" % (", ".join(m.value for m in AutoresetMode), mode)
    )


def reset_seeds(seed, n, fn="reset"):
    """A list/array of n ints (None entries allowed: -1) -> int64 (n,). The C side takes them
    as int64_t, -1 meaning none (vecenv_reset_mask): each in [0, 2**63 - 1]."""
    if isinstance(seed, np.ndarray) or isinstance(seed, (list, tuple)):
        seeds = [(-1 if s is None else as_int(s, "seed", 0, INT64_MAX, note="each env's")) for s in list(seed)]
        if len(seeds) != n:
            raise ValueError(
                "pongrl: %s: seed must have one entry per env being reset (%d), got %d" % (fn, n, len(seeds))
            )
        return np.array(seeds, dtype=np.int64)
    raise TypeError("pongrl: %s: seed must be an int, a sequence of ints or None, got %r" % (fn, seed))


def reset_mask(options, n):
    """options["reset_mask"] (a bool array of shape (n,)) or None."""
    if not options or "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
        raise TypeError("pongrl: reset_mask must be a boolean numpy array, got %r" % (type(mask),))
    if mask.shape != (n,):
        raise ValueError("pongrl: reset_mask must have shape (%d,), got %s" % (n, mask.shape))
    return np.ascontiguousarray(mask)


def locked(method):
    """A method of a vector env that runs holding its C handle (passed as the argument after
    self): closed, or in use by another thread, is a RuntimeError before anything is done."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._use() as ptr:
            return method(self, ptr, *args, **kwargs)

    return run


class NativeVec(Closing):
    """What pongrl's vector envs share: the C handle (vecenv.h) behind its lock
    (_lib.Handle: no use after close, one thread at a time), its closing, np_random, env
    indices, and the refusal to be pickled."""

    def _open(self, ptr):
        self._h = _lib.Handle(ptr, lib.vecenv_free, "vector environment")

    def close(self, **kwargs):
        """Frees the envs (waiting for a step another thread is in); every later call is a
        RuntimeError saying the vector environment is closed."""
        h = getattr(self, "_h", None)
        if h is not None and lib is not None:
            h.close()
        self.closed = True

    def __del__(self):
        self.close()

    def _use(self):
        """The C vector env, locked for this thread (with self._use() as ptr: ...)."""
        h = getattr(self, "_h", None)
        if h is None:
            raise RuntimeError("pongrl: the vector environment is closed")
        return h

    def _check_open(self):
        h = getattr(self, "_h", None)
        if h is None or not h.is_open:
            raise RuntimeError("pongrl: the vector environment is closed")

    def _index(self, i):
        """An env index as a Python int in [0, num_envs): TypeError for what is not an integer
        (1.5, True, "0"), IndexError outside the range (the C side takes an int: 2**32 must not
        wrap round to env 0)."""
        if isinstance(i, (bool, np.bool_)):
            raise TypeError("pongrl: an env index must be an integer, got %r" % (i,))
        try:
            k = operator.index(i)
        except TypeError:
            raise TypeError("pongrl: an env index must be an integer, got %r" % (i,)) from None
        if not 0 <= k < self.num_envs:
            raise IndexError("pongrl: env index %d out of range [0, %d)" % (k, self.num_envs))
        return k

    def __reduce_ex__(self, protocol):
        # pickle, copy.copy and copy.deepcopy all come here: a copy needs each env's place in
        # its stream of episode seeds and its episode counters, which the C vector env keeps
        # (vecenv.c EnvSlot) and does not export, so a copy would replay other episodes
        raise TypeError(
            "pongrl: a %s cannot be pickled or copied (its envs' episode streams live "
            "in C and are not exported); make another with the same arguments and "
            "seed, or use pongrl.make envs, which pickle" % type(self).__name__
        )

    def _alloc_out(self, rows, shape):
        """The arrays the C side writes into (caller-owned), rows of a step, and their VecOut."""
        # (attribute, per-row dtype or None for an observation), in VecOut's field order;
        # _done is Python's alone
        fields = (
            ("_obs", None),
            ("_rewards", np.float64),
            ("_terminated", np.bool_),
            ("_truncated", np.bool_),
            ("_final_obs", None),
            ("_ep_return", np.float64),
            ("_ep_length", np.int64),
            ("_ep_frames", np.int64),
            ("_env_ids", np.int32),
            ("_frame_number", np.int64),
            ("_episode_frame_number", np.int64),
        )
        for name, dtype in fields:
            setattr(self, name, np.zeros(shape, np.uint8) if dtype is None else np.zeros(rows, dtype))
        self._done = np.zeros(rows, dtype=np.bool_)
        self._out = _lib.VecOut(*(getattr(self, name).ctypes.data for name, _ in fields))
        self._out_ref = ctypes.byref(self._out)

    def _set_np_random(self, seed):
        if gymnasium is None:
            return StandInRandom._set_np_random(self, seed)
        from gymnasium.utils import seeding

        self._np_random, self._np_random_seed = seeding.np_random(seed)


class VecEnv(_VecBase, NativeVec):
    """num_envs Pong environments stepped together; use pongrl.make_vec().

    copy=True (Gymnasium's default) returns fresh arrays from every step; copy=False returns
    the same arrays each time, overwritten by the next step (EnvPool/PufferLib-style, fastest).
    """

    # Gymnasium's VectorEnv.close comes first in the MRO and frees nothing (0.29's also reads a
    # viewer this class lacks): NativeVec's frees the C handle.
    close = NativeVec.close

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"]}

    @ale_signature(without=("caps",))
    def __init__(
        self,
        preset="ALE/Pong-v5",
        num_envs=8,
        num_threads=None,
        seed=None,
        copy=True,
        autoreset_mode=AutoresetMode.SAME_STEP,
        **options,
    ):
        self._h = None
        self.autoreset_mode = autoreset_mode = globals()["autoreset_mode"](autoreset_mode)
        self.metadata = dict(type(self).metadata, autoreset_mode=autoreset_mode)
        kwargs = ale_options(VecEnv, options, without=("caps",))
        id, obs_type, preset = resolve(preset, flavours=True, **kwargs)
        render_mode, full_action_space = kwargs["render_mode"], kwargs["full_action_space"]
        mode, difficulty = kwargs["mode"], kwargs["difficulty"]
        self._flavour = (int(mode or 0), int(difficulty or 0))
        self.num_envs = as_int(num_envs, "num_envs", 1, INT_MAX)
        num_threads = (
            0 if num_threads is None else as_int(num_threads, "num_threads", 0, INT_MAX, note="0: one per core")
        )
        self.spec_id = id
        self.obs_type = obs_type
        self.render_mode = render_mode
        self.copy = as_bool(copy, "copy")
        self.spec = make_spec(id, kwargs, vector=True)
        cfg = _lib.VecConfig(
            num_envs=self.num_envs,
            num_threads=num_threads,
            obs_type=_lib.OBS_TYPES[obs_type],
            autoreset=_lib.AUTORESET_MODES[autoreset_mode.value],
            batch_size=0,
            thread_affinity_offset=-1,
            mode=self._flavour[0],
            difficulty=self._flavour[1],
        )
        why = ctypes.c_char_p()
        ptr = lib.vecenv_create(ctypes.byref(preset), ctypes.byref(cfg), ctypes.byref(why))
        if not ptr:
            if why.value:
                raise ValueError("pongrl: %s" % why.value.decode())
            raise MemoryError("pongrl: vecenv_create(%r, %d) failed" % (id, self.num_envs))
        self._open(ptr)
        self.num_threads = lib.vecenv_num_threads(ptr)
        self.single_observation_space = observation_space(obs_type)
        self.full_action_space = bool(full_action_space)
        self._meanings = FULL_ACTION_MEANINGS if full_action_space else ACTION_MEANINGS
        self._full_to_minimal = np.array(FULL_TO_MINIMAL, dtype=np.int32)
        self.single_action_space = Discrete(len(self._meanings))
        shape = (self.num_envs,) + OBS_SHAPES[obs_type]
        self.observation_space = Box(0, 1 if obs_type == "obs80" else 255, shape, np.uint8)
        self.action_space = MultiDiscrete(np.full(self.num_envs, len(self._meanings)))
        self.closed = False
        self._np_random = None
        self._np_random_seed = None
        self._alloc_out(self.num_envs, shape)
        self._bad = ctypes.c_int(-1)
        self._bad_ref = ctypes.byref(self._bad)
        self._seed = as_seed(seed) if seed is not None else None
        self._resets = 0
        self._needs_reset = True

    # -- Gymnasium's VectorEnv API

    @locked
    def reset(self, ptr, *, seed=None, options=None):
        """Every env (or those of options["reset_mask"]) starts a new episode -> (obs (N, ...),
        info {}). seed: an int (env i's episodes then come from (seed, i)); a list or array of
        one seed per env reset (None entries: that env goes on with its stream); without one,
        the next in a stream from the last."""
        mask = reset_mask(options, self.num_envs)
        if mask is not None or isinstance(seed, (list, tuple, np.ndarray)):
            return self._reset_some(seed, mask)
        if seed is not None:
            seed = as_seed(seed)
            self._seed, self._resets = seed, 0
            self._set_np_random(seed)
        if self._seed is None:
            self._seed = entropy_seed()
        s = self._seed if self._resets == 0 else _mix64(self._seed ^ _mix64(self._resets))
        self._resets += 1
        lib.vecenv_reset(ptr, s, self._out_ref)
        self._needs_reset = False
        return self._ret(self._obs), self._step_info()

    @locked
    def _reset_some(self, ptr, seed, mask):
        if mask is not None and not mask.all() and self._needs_reset:
            raise RuntimeError("pongrl: the first reset() must reset every env")
        k = self.num_envs if mask is None else int(mask.sum())
        seeds = np.full(self.num_envs, -1, dtype=np.int64)
        if seed is not None:
            if is_int(seed):  # as ale-py: seed, seed + 1, ..., each an int64_t
                given = np.arange(k, dtype=np.int64) + as_int(
                    seed, "seed", 0, INT64_MAX - max(k - 1, 0), note="the envs reset take seed, seed + 1, ..."
                )
            else:
                given = reset_seeds(seed, k)
            if mask is None:
                seeds[:] = given
            else:
                seeds[mask] = given
        elif self._needs_reset:  # a first reset without seeds: a fresh stream
            self._seed = self._seed if self._seed is not None else entropy_seed()
            seeds[:] = [_mix64(self._seed ^ _mix64(i + 1)) & 0x7FFFFFFFFFFFFFFF for i in range(self.num_envs)]
        rc = lib.vecenv_reset_mask(ptr, None if mask is None else mask.ctypes.data, seeds.ctypes.data, self._out_ref)
        if rc != _lib.ENV_OK:
            raise RuntimeError("pongrl: reset(options={'reset_mask': ...}) failed")
        self._needs_reset = False
        return self._ret(self._obs), self._step_info()

    @locked
    def step(self, ptr, actions):
        """One step of every env -> (obs, rewards, terminated, truncated, info)."""
        if self._needs_reset:
            raise RuntimeError("pongrl: call reset() before step()")
        a = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        n_act = len(self._meanings)
        if a.dtype != np.int32 or not a.flags.c_contiguous:
            if a.dtype.kind not in "iu" or a.dtype == np.bool_:
                raise ValueError("pongrl: actions must be integers in [0, %d), got dtype %s" % (n_act, a.dtype))
            b = np.ascontiguousarray(a, dtype=np.int32)
            if not np.array_equal(b, a):
                raise ValueError("pongrl: actions must be integers in [0, %d)" % n_act)
            a = b
        if a.shape != (self.num_envs,):
            raise ValueError("pongrl: actions must have shape (%d,), got %s" % (self.num_envs, a.shape))
        if self.full_action_space:
            bad = np.flatnonzero((a < 0) | (a >= n_act))
            if bad.size:
                raise ValueError(
                    "pongrl: actions must be integers in [0, %d); env %d got %r" % (n_act, bad[0], a[bad[0]])
                )
            a = self._full_to_minimal[a]
        rc = lib.vecenv_step(ptr, a.ctypes.data, self._out_ref, self._bad_ref)
        if rc == _lib.ENV_ERR_DONE:
            raise RuntimeError(
                "pongrl: env %d's episode has ended and autoreset_mode is DISABLED: "
                "reset it with reset(options={'reset_mask': mask})" % self._bad.value
            )
        if rc != _lib.ENV_OK:
            i = self._bad.value
            raise ValueError(
                "pongrl: actions must be integers in [0, %d) (%s); env %d got %r"
                % (n_act, ", ".join(self._meanings), i, a[i])
            )
        np.logical_or(self._terminated, self._truncated, out=self._done)
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        info = self._step_info()
        if same_step and self._done.any():
            info.update(self._end_info())
        return (
            self._ret(self._obs),
            self._ret(self._rewards),
            self._ret(self._terminated),
            self._ret(self._truncated),
            info,
        )

    def render(self):
        """Every env's current RGB frame (a tuple of (210, 160, 3) arrays), with render_mode
        "rgb_array"; None otherwise."""
        self._check_open()
        if self.render_mode is None:
            return None
        return tuple(self.frame(i) for i in range(self.num_envs))

    @locked
    def frame(self, ptr, i):
        """Env i's current RGB frame, uint8 (210, 160, 3)."""
        e = lib.vecenv_env(ptr, self._index(i))
        rgb = np.empty(SCREEN_SHAPE, dtype=np.uint8)
        lib.env_render_rgb(e, rgb.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)))
        return rgb

    @locked
    def clone_state(self, ptr, i, include_rng=False):
        """Env i's whole state as an ALEState (pongrl.Env.clone_state's): with include_rng its
        random stream too, so that restoring it replays exactly what followed."""
        i = self._index(i)
        buf = ctypes.create_string_buffer(int(lib.env_state_size()))
        if lib.vecenv_clone(ptr, i, bool(include_rng), buf) != _lib.ENV_OK:
            raise IndexError("pongrl: env index %r out of range" % (i,))
        s = _lib.EnvState()
        lib.env_state(lib.vecenv_env(ptr, i), ctypes.byref(s))
        return ALEState._make(buf.raw, s.frames, s.frames, *self._flavour)

    @locked
    def restore_state(self, ptr, i, state):
        """Env i back to a state of clone_state (of an env of the same id, mode and
        difficulty; from this vector env or a pongrl.Env); its episode statistics go on from
        the restored episode."""
        i = self._index(i)
        if not isinstance(state, ALEState):
            raise TypeError(
                "pongrl: restore_state(i, state) takes an ALEState (from " "clone_state), got %s" % type(state).__name__
            )
        blob = state._blob()
        rc = lib.vecenv_restore(ptr, i, blob) if len(blob) == lib.env_state_size() else _lib.ENV_ERR_STATE
        if rc == _lib.CONSTANTS["VECENV_ERR_ARG"]:
            raise IndexError("pongrl: env index %r out of range" % (i,))
        if rc != _lib.ENV_OK:
            raise RuntimeError("pongrl: restore_state: %s (%s)" % (lib.env_strerror(rc).decode(), self.spec_id))

    def __repr__(self):
        return "pongrl.VecEnv(%s, num_envs=%d, num_threads=%d, obs_type=%s, autoreset_mode=%s)" % (
            self.spec_id,
            self.num_envs,
            getattr(self, "num_threads", 0),
            self.obs_type,
            getattr(self, "autoreset_mode", None),
        )

    # -- internals

    def _ret(self, a):
        return a.copy() if self.copy else a

    def _step_info(self):
        """ale-py's per-step keys, every step (int32 (N,) arrays, as its vector env's): lives
        (Pong has none: 0), frame_number (frames since the env's last seeded reset) and
        episode_frame_number."""
        return {
            "lives": np.zeros(self.num_envs, dtype=np.int32),
            "frame_number": self._frame_number.astype(np.int32),
            "episode_frame_number": self._episode_frame_number.astype(np.int32),
        }

    def _end_info(self):
        done = self._done.copy()
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done):
            final_obs[i] = self._final_obs[i].copy()
        episode = {
            "r": np.where(done, self._ep_return, 0.0),
            "l": np.where(done, self._ep_length, 0),
            "f": np.where(done, self._ep_frames, 0),
            "_r": done,
            "_l": done,
            "_f": done,
        }
        return {
            "final_obs": final_obs,
            "_final_obs": done,
            "final_info": {"episode": episode, "_episode": done},
            "_final_info": done,
        }
