"""pongrl.AtariVectorEnv: ale-py's ale_py.vector_env.AtariVectorEnv for Pong, in C.

The constructor, the observations, rewards, flags and infos are ale-py's (v0.12): EnvPool's
preprocessing (frameskip with max-pooling of the last two frames, 84x84 grayscale by
OpenCV's INTER_AREA, a stack of 4, no-op starts, FIRE on reset, reward clipping, a frame cap)
done in C on the vector env's threads (src/env/atari_prep.c, src/env/vecenv.c):

    envs = pongrl.AtariVectorEnv("pong", num_envs=16)        # or gym.make_vec("pongrl/Pong-v5", 16)
    obs, info = envs.reset(seed=0)                           # obs: uint8 (16, 4, 84, 84)
    obs, rewards, terminations, truncations, info = envs.step(envs.action_space.sample())

info holds "env_id", "lives", "frame_number", "episode_frame_number" (int32 arrays); with
autoreset_mode SAME_STEP also "final_obs" (a (batch, ...) array whose rows of ended envs are
their last observations) in a step where an episode ended. batch_size < num_envs: each step
returns the next batch_size envs in the order their work was queued (info["env_id"]), the
actions of a step going to the envs of the last returned batch, as ale-py's async mode does
with one thread. Besides ale-py's two modes, autoreset_mode DISABLED is accepted.

Same actions, same results as ale-py's: tests/data/ale-vector/ holds ALE's own output.
Differences: Pong only (game="pong"); continuous=True is refused; sticky actions use
pongrl's random stream (ALE's differs), so with repeat_action_probability > 0 the games are
not ALE's, only alike; episodic_life and life_loss_info change nothing, as in ALE (Pong has
no lives); the steps run inside step()/recv() (a send() returns at once without stepping).
"""
import ctypes

import numpy as np

from . import _lib
from ._check import INT64_MAX, INT_MAX, INT_MIN, as_bool, as_float, as_int, as_int_array, is_int
from ._lib import lib
from .env import ACTION_MEANINGS, FULL_ACTION_MEANINGS, FULL_TO_MINIMAL, resolve
from .spaces import Box, Discrete, MultiDiscrete, StandInRandom, gymnasium
from .vector import AutoresetMode, NativeVec, autoreset_mode as _autoreset_mode, locked, reset_mask

if gymnasium is not None:
    from gymnasium.vector import VectorEnv as _VecBase
else:
    _VecBase = StandInRandom

GAMES = ("pong",)
WHERE = "pongrl.AtariVectorEnv"
# atari_prep.c atari_config_check's limits: the resize only shrinks the screen, and a stack
STACK_MAX = 64
IMG_MAX = (210, 160)  # the screen's height and width
# vecenv.c: a pool thread k < 255 pins itself to core (offset + k) % cores, summed as an int
VECENV_MAX_THREADS = 256
# ALE's seeds are C ints, and vecenv.c keeps their low 31 bits (seed & 0x7fffffff): beyond
# that, seed 2**31 would be seed 0
SEED_MAX = INT_MAX


def _int(name, x, lo, hi=INT_MAX, note=""):
    return as_int(x, name, lo, hi, where=WHERE, note=note)


def _bool(name, x):
    return as_bool(x, name, where=WHERE)


class AtariVectorEnv(_VecBase, NativeVec):
    """ale_py.vector_env.AtariVectorEnv's constructor and behaviour; game="pong" only."""

    # Gymnasium's VectorEnv.close comes first in the MRO and frees nothing (0.29's also reads a
    # viewer this class lacks): NativeVec's frees the C handle.
    close = NativeVec.close

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game="pong",
        num_envs=1,
        *,
        batch_size=0,
        num_threads=0,
        thread_affinity_offset=-1,
        max_num_frames_per_episode=108000,
        repeat_action_probability=0.0,
        full_action_space=False,
        continuous=False,
        continuous_action_threshold=0.5,
        autoreset_mode=AutoresetMode.NEXT_STEP,
        img_height=84,
        img_width=84,
        grayscale=True,
        stack_num=4,
        frameskip=4,
        maxpool=True,
        noop_max=30,
        episodic_life=False,
        life_loss_info=False,
        reward_clipping=True,
        use_fire_reset=True,
    ):
        self._h = None
        if not isinstance(game, str) or game.lower() not in GAMES:
            raise ValueError("pongrl.AtariVectorEnv: game must be 'pong' (pongrl has Pong only), " "got %r" % (game,))
        # every number is checked against its range before ctypes keeps its low bits
        num_envs = _int("num_envs", num_envs, 1)
        batch_size = _int("batch_size", batch_size, 0, num_envs, note="0: num_envs")
        if _bool("continuous", continuous):
            raise NotImplementedError(
                "pongrl.AtariVectorEnv: continuous=True is not supported "
                "(pongrl's paddle takes the 6 discrete actions)"
            )
        continuous_action_threshold = as_float(continuous_action_threshold, "continuous_action_threshold", where=WHERE)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = dict(type(self).metadata, autoreset_mode=self.autoreset_mode)
        grayscale, full_action_space = _bool("grayscale", grayscale), _bool("full_action_space", full_action_space)
        img_height = _int("img_height", img_height, 1, IMG_MAX[0])
        img_width = _int("img_width", img_width, 1, IMG_MAX[1])
        stack_num = _int("stack_num", stack_num, 1, STACK_MAX)
        self._cfg = _lib.AtariConfig(
            img_height=img_height,
            img_width=img_width,
            grayscale=grayscale,
            stack_num=stack_num,
            frameskip=_int("frameskip", frameskip, 1),
            maxpool=_bool("maxpool", maxpool),
            noop_max=_int("noop_max", noop_max, 0, note="no-ops after a reset: up to noop_max - 1"),
            use_fire_reset=_bool("use_fire_reset", use_fire_reset),
            episodic_life=_bool("episodic_life", episodic_life),
            life_loss_info=_bool("life_loss_info", life_loss_info),
            reward_clipping=_bool("reward_clipping", reward_clipping),
            max_frames=_int("max_num_frames_per_episode", max_num_frames_per_episode, 1, INT64_MAX),
            repeat_action_probability=as_float(
                repeat_action_probability, "repeat_action_probability", 0.0, 1.0, where=WHERE
            ),
        )
        vcfg = _lib.VecConfig(
            num_envs=num_envs,
            num_threads=_int("num_threads", num_threads, INT_MIN, note="0 or less: one per core, as ALE's"),
            obs_type=0,
            autoreset=_lib.AUTORESET_MODES[self.autoreset_mode.value],
            batch_size=batch_size,
            thread_affinity_offset=_int(
                "thread_affinity_offset", thread_affinity_offset, -1, INT_MAX - VECENV_MAX_THREADS, note="-1: none"
            ),
            atari=ctypes.pointer(self._cfg),
        )
        _, _, preset = resolve("ALE/Pong-v5")
        why = ctypes.c_char_p()
        ptr = lib.vecenv_create(ctypes.byref(preset), ctypes.byref(vcfg), ctypes.byref(why))
        if not ptr:
            if why.value:
                raise ValueError("pongrl.AtariVectorEnv: %s" % why.value.decode())
            raise MemoryError("pongrl.AtariVectorEnv: out of memory")
        self.game = "pong"
        self.num_envs = num_envs
        self._open(ptr)
        self.batch_size = lib.vecenv_batch_size(ptr)
        self.num_threads = lib.vecenv_num_threads(ptr)
        self.grayscale = grayscale
        self.continuous = False
        self.continuous_action_threshold = continuous_action_threshold
        self.full_action_space = full_action_space
        self._meanings = FULL_ACTION_MEANINGS if full_action_space else ACTION_MEANINGS
        self._full_to_minimal = np.array(FULL_TO_MINIMAL, dtype=np.int32)
        shape = (stack_num, img_height, img_width) + (() if grayscale else (3,))
        self.single_observation_space = Box(0, 255, shape, np.uint8)
        self.single_action_space = Discrete(len(self._meanings))
        self.observation_space = Box(0, 255, (self.batch_size,) + shape, np.uint8)
        self.action_space = MultiDiscrete(np.full(self.batch_size, len(self._meanings)))
        self.render_mode = None
        self.closed = False
        self._np_random = None
        self._np_random_seed = None
        self._alloc_out(self.batch_size, (self.batch_size,) + shape)
        self._bad = ctypes.c_int(-1)
        self._started = False
        self._sent = None

    # -- ale-py's VectorEnv API

    @locked
    def reset(self, ptr, *, seed=None, options=None):
        """Resets every env (or those of options["reset_mask"]) -> (obs, info). seed: an int
        seeds the envs reset with seed, seed + 1, ...; an array gives one seed per env reset;
        None goes on with each env's stream (ale-py's meanings)."""
        mask = reset_mask(options, self.num_envs)
        k = self.num_envs if mask is None else int(mask.sum())
        if mask is not None and k != self.num_envs:
            if not self._started:
                raise RuntimeError("pongrl.AtariVectorEnv: the first reset() must reset every env")
            if self.batch_size != self.num_envs:
                raise ValueError("pongrl.AtariVectorEnv: a partial reset needs batch_size == num_envs")
        if seed is None and not self._started:
            # ALE seeds an env's first stream from std::random_device
            given = np.random.default_rng().integers(0, 2**31, k, dtype=np.int64)
        elif seed is None:
            given = np.full(k, -1, dtype=np.int64)
        elif is_int(seed):
            note = "the envs reset take seed, seed + 1, ..., each an ALE seed (a C int)"
            seed = _int("seed", seed, 0, SEED_MAX - max(k - 1, 0), note=note)
            given = np.arange(seed, seed + k, dtype=np.int64)
        elif isinstance(seed, np.ndarray):
            if seed.shape != (k,):
                raise ValueError(
                    "pongrl.AtariVectorEnv: seed must have one entry per env being "
                    "reset, expected shape %s, got %s" % ((k,), seed.shape)
                )
            given = as_int_array(seed, "seed (-1: the env goes on with its stream)", -1, SEED_MAX, where=WHERE)
        else:
            raise TypeError("pongrl.AtariVectorEnv: unsupported seed type %r" % (type(seed),))
        if seed is not None:
            seeded = given[given >= 0]  # (-1: an env that goes on with its stream)
            self._set_np_random(int(seeded[0]) if len(seeded) else None)
        # (a reset of never-seeded envs seeds them: frame_number starts from 0 either way)
        seeds = np.full(self.num_envs, -1, dtype=np.int64)
        if mask is None:
            seeds[:] = given
        else:
            seeds[mask] = given
        self._out.obs = self._obs.ctypes.data
        rc = lib.vecenv_reset_mask(ptr, None if mask is None else mask.ctypes.data, seeds.ctypes.data, self._out_ref)
        if rc != _lib.ENV_OK:
            raise RuntimeError("pongrl.AtariVectorEnv: reset failed")
        self._started = True
        self._sent = None
        return self._obs.copy(), self._info()

    @locked
    def step(self, ptr, actions):
        """send(actions) then recv(): (obs, rewards int32, terminations, truncations, info)."""
        self.send(actions)
        return self.recv()

    @locked
    def send(self, ptr, actions):
        """Actions for the envs of the last returned batch (row i: info["env_id"][i])."""
        if not self._started:
            raise RuntimeError("pongrl.AtariVectorEnv: call reset() before step()/send()")
        a = np.asarray(actions)
        if a.dtype.kind not in "iu" or a.dtype == np.bool_:
            raise ValueError("pongrl.AtariVectorEnv: actions must be integers, got dtype %s" % a.dtype)
        if a.shape != (self.batch_size,):
            raise ValueError(
                "pongrl.AtariVectorEnv: actions must have shape (%d,), got %s" % (self.batch_size, a.shape)
            )
        n_act = len(self._meanings)
        bad = np.flatnonzero((a < 0) | (a >= n_act))
        if bad.size:
            raise ValueError(
                "pongrl.AtariVectorEnv: invalid action %r (row %d); available actions: %d" % (a[bad[0]], bad[0], n_act)
            )
        a = a.astype(np.int32)
        if self.full_action_space:
            a = self._full_to_minimal[a]
        self._sent = np.ascontiguousarray(a, dtype=np.int32)

    @locked
    def recv(self, ptr):
        """Steps the sent envs -> (obs, rewards, terminations, truncations, info)."""
        if self._sent is None:
            raise RuntimeError("pongrl.AtariVectorEnv: recv() without send()")
        a, self._sent = self._sent, None
        obs = np.empty_like(self._obs)  # a fresh array, written in place by C: no copy
        self._out.obs = obs.ctypes.data
        rc = lib.vecenv_step(ptr, a.ctypes.data, self._out_ref, ctypes.byref(self._bad))
        if rc == _lib.ENV_ERR_DONE:
            raise RuntimeError(
                "pongrl.AtariVectorEnv: env %d's episode has ended and autoreset_mode "
                "is DISABLED: reset it with reset(options={'reset_mask': mask})" % self._env_ids[self._bad.value]
            )
        if rc != _lib.ENV_OK:
            raise RuntimeError("pongrl.AtariVectorEnv: step failed (%d)" % rc)
        info = self._info()
        terminations, truncations = self._terminated.copy(), self._truncated.copy()
        if self.autoreset_mode == AutoresetMode.SAME_STEP and (terminations | truncations).any():
            info["final_obs"] = self._final_obs.copy()
        return obs, self._rewards.astype(np.int32), terminations, truncations, info

    def get_action_meanings(self):
        return list(self._meanings)

    def xla(self):
        raise NotImplementedError("pongrl.AtariVectorEnv: no XLA interface")

    def __repr__(self):
        return "pongrl.AtariVectorEnv(pong, num_envs=%d, batch_size=%d, autoreset_mode=%s)" % (
            getattr(self, "num_envs", 0),
            getattr(self, "batch_size", 0),
            getattr(self, "autoreset_mode", None),
        )

    # -- internals

    def _info(self):
        return {
            "env_id": self._env_ids.copy(),
            "lives": np.zeros(self.batch_size, dtype=np.int32),  # Pong: ALE's lives() is 0
            "frame_number": self._frame_number.astype(np.int32),
            "episode_frame_number": self._episode_frame_number.astype(np.int32),
        }


# the ids make_vector is the vector entry point of (pongrl/__init__.py registers it)
PRESETS = ("ALE/Pong-v5", "pongrl/Pong-v5")
# ale-py registers ALE/{Game}-v5 with these; gym.make_vec passes them (and the user's) here
_V5_KWARGS = dict(
    repeat_action_probability=0.25, full_action_space=False, frameskip=4, max_num_frames_per_episode=108_000
)


def make_vector(num_envs=1, preset="ALE/Pong-v5", game="pong", max_episode_steps=None, **kwargs):
    """The vector_entry_point of pongrl/Pong-v5: AtariVectorEnv with ALE/Pong-v5's settings
    (sticky actions 0.25, frameskip 4, 108,000 frames), as gym.make_vec("ALE/Pong-v5") gives.
    preset: the id it is registered under (gymnasium passes it), ALE/Pong-v5 or pongrl/Pong-v5."""
    if preset not in PRESETS:
        raise ValueError("pongrl.make_vector: preset must be one of %s, got %r" % (", ".join(PRESETS), preset))
    if max_episode_steps is not None:
        raise ValueError(
            "pongrl.AtariVectorEnv: max_episode_steps is not an argument of ale-py's "
            "vector env; use max_num_frames_per_episode"
        )
    return AtariVectorEnv(game, num_envs, **dict(_V5_KWARGS, **kwargs))
