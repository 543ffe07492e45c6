"""pongrl.Env: one environment with Gymnasium's API (a gymnasium.Env when gymnasium is
importable) and ale-py's keyword arguments, built as ale-py's AtariEnv is: on an ALEInterface
(env.ale, pongrl.ale), which holds the C library's game."""
import inspect
import operator

import numpy as np

from . import _lib, render
from ._check import INT64_MAX, INT_MAX, U64_MAX, as_bool, as_float, as_int, is_int
from ._lib import lib
from .ale import (
    ACTION_MEANINGS,
    FULL_ACTION_MEANINGS,
    FULL_TO_MINIMAL,  # noqa: F401
    MINIMAL_ACTIONS,
    Action,
    ALEInterface,
    ALEState,
)
from .spaces import Box, Discrete, StandInRandom, gymnasium

SCREEN_SHAPE = (210, 160, 3)
OBS80_SHAPE = (80, 80)
OBS_SHAPES = {"rgb": (210, 160, 3), "grayscale": (210, 160), "ram": (128,), "obs80": (80, 80)}


def _preset_ids():
    ids, i = [], 0
    while True:
        p = lib.env_preset_id(i)
        if p is None:
            return tuple(ids)
        ids.append(p.decode())
        i += 1


PRESETS = _preset_ids()  # the C presets (pixel observations by default)
# Gym's RAM ids: the same dynamics with obs_type "ram"
RAM_IDS = {
    "Pong-ram-v0": "Pong-v0",
    "Pong-ram-v4": "Pong-v4",
    "Pong-ramDeterministic-v0": "PongDeterministic-v0",
    "Pong-ramDeterministic-v4": "PongDeterministic-v4",
    "Pong-ramNoFrameskip-v0": "PongNoFrameskip-v0",
    "Pong-ramNoFrameskip-v4": "PongNoFrameskip-v4",
    "ALE/Pong-ram-v5": "ALE/Pong-v5",
}
ENV_IDS = PRESETS + tuple(RAM_IDS)
# gym 0.21's step caps (its gym/envs/__init__.py: max_episode_steps of each Atari id; no frame
# cap but v5's), for caps="gym-0.21". Today's ale-py caps every id at 108,000 frames instead.
GYM021_MAX_EPISODE_STEPS = {
    "Pong-v0": 10000,
    "Pong-v4": 100000,
    "PongDeterministic-v0": 100000,
    "PongDeterministic-v4": 100000,
    "PongNoFrameskip-v0": 400000,
    "PongNoFrameskip-v4": 400000,
}
CAPS = ("ale-py", "gym-0.21")


def gymnasium_id(id):
    """The id under the pongrl/ namespace: ALE/Pong-v5 -> pongrl/Pong-v5."""
    return "pongrl/" + id.split("/")[-1]


_FROM_GYMNASIUM_ID = {gymnasium_id(i): i for i in ENV_IDS}


def as_seed(seed, name="seed"):
    """A seed as the C library takes it (a uint64_t): an int in [0, 2**64 - 1]."""
    return as_int(seed, name, 0, U64_MAX)


def entropy_seed():
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


def resolve(
    id,
    obs_type=None,
    frameskip=None,
    repeat_action_probability=None,
    max_num_frames_per_episode=None,
    max_episode_steps=None,
    full_action_space=False,
    mode=None,
    difficulty=None,
    render_mode=None,
    caps=None,
    render_modes=("rgb_array",),
    flavours=False,
):
    """ale-py's keyword arguments -> (canonical id, obs_type, EnvPreset) or a clear error.
    caps: "ale-py" (the preset's, the default) or "gym-0.21" (gym 0.21's step caps and no
    frame cap for the v0/v4 ids; v5 keeps its 108,000 frames). render_modes: those the caller
    can draw ("human" only for Env). flavours: the caller plays ALE's modes and difficulties
    (pongrl.Env does); otherwise only the defaults are accepted."""
    if not isinstance(id, str):
        raise TypeError("pongrl: the environment id must be a string, got %r" % (id,))
    id = _FROM_GYMNASIUM_ID.get(id, id)
    if id not in ENV_IDS:
        raise ValueError(
            "pongrl: unknown environment id %r; valid ids: %s (or pongrl/<name>)" % (id, ", ".join(ENV_IDS))
        )
    base = RAM_IDS.get(id, id)
    if obs_type is None:
        obs_type = "ram" if id in RAM_IDS else "rgb"
    if obs_type not in OBS_SHAPES:
        raise ValueError("pongrl: obs_type must be one of %s, got %r" % (", ".join(OBS_SHAPES), obs_type))
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(
            "pongrl: render_mode must be None or %s, got %r" % (" or ".join(map(repr, render_modes)), render_mode)
        )
    as_bool(full_action_space, "full_action_space")
    for name, v, n in (("mode", mode, lib.env_num_modes()), ("difficulty", difficulty, lib.env_num_difficulties())):
        if v is None or (is_int(v) and v == 0):
            continue
        if not flavours:
            raise ValueError("pongrl: %s=%r is not supported here (only the default, 0)" % (name, v))
        as_int(v, name, 0, n - 1, note="ALE's for Pong")
    found = lib.env_preset_find(base.encode())
    preset = _lib.EnvPreset.from_buffer_copy(found.contents)
    if caps not in (None,) + CAPS:
        raise ValueError("pongrl: caps must be one of %s, got %r" % (", ".join(CAPS), caps))
    if caps == "gym-0.21" and base in GYM021_MAX_EPISODE_STEPS:
        preset.max_steps, preset.max_frames = GYM021_MAX_EPISODE_STEPS[base], 0
    # each number below lands in an EnvPreset field (env.h: int frameskips, int64_t caps)
    if frameskip is not None:
        if isinstance(frameskip, tuple) and len(frameskip) == 2:
            # ale-py: np_random.integers(lo, hi), hi excluded; the C preset holds lo and hi - 1
            lo = as_int(frameskip[0], "frameskip's lo", 1, INT_MAX, note="frameskip=(lo, hi), lo < hi")
            hi = as_int(frameskip[1], "frameskip's hi", lo + 1, INT_MAX + 1, note="frameskip=(lo, hi), lo < hi")
            preset.frameskip_min, preset.frameskip_max = lo, hi - 1
        elif is_int(frameskip):
            preset.frameskip_min = preset.frameskip_max = as_int(frameskip, "frameskip", 1, INT_MAX)
        else:
            raise TypeError("pongrl: frameskip must be an int or a (lo, hi) tuple, got %r" % (frameskip,))
    if repeat_action_probability is not None:
        preset.repeat_prob = as_float(repeat_action_probability, "repeat_action_probability", 0.0, 1.0)
    if max_num_frames_per_episode is not None:
        preset.max_frames = as_int(
            max_num_frames_per_episode, "max_num_frames_per_episode", 0, INT64_MAX, note="0: none"
        )
    if max_episode_steps is not None:
        preset.max_steps = as_int(max_episode_steps, "max_episode_steps", 0, INT64_MAX, note="0 or None: none")
    return id, obs_type, preset


# resolve()'s ale-py keyword arguments and their defaults, in its order (which a spec's and a
# pickle's kwargs keep): the one list that Env, VecEnv, make and make_vec accept
ALE_DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(resolve).parameters.items()
    if name not in ("id", "render_modes", "flavours")
}


def ale_options(owner, options, without=()):
    """options (the **options of owner's constructor) with every ale-py keyword argument of
    ALE_DEFAULTS but those `without`, the missing ones at their defaults. Any other keyword is
    a TypeError that names it, as Python's for a parameter spelled out, and lists what the
    constructor of owner (a class) accepts."""
    names = [k for k in ALE_DEFAULTS if k not in without]
    bad = sorted(set(options) - set(names))
    if bad:
        params = inspect.signature(owner.__init__).parameters.values()
        own = [p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD][2:]  # after self, preset
        raise TypeError(
            "pongrl.%s: unsupported arguments %s (supported: %s)"
            % (owner.__name__, ", ".join(bad), ", ".join(own + names))
        )
    return {k: options.get(k, ALE_DEFAULTS[k]) for k in names}


def ale_signature(without=()):
    """For a constructor that takes (self, preset, ..., **options): its signature with the
    **options spelled out as ALE_DEFAULTS's keywords, so that help() and inspect.signature
    show what it accepts."""

    def sign(init):
        params = list(inspect.signature(init).parameters.values())[:-1]
        params += [
            inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v)
            for k, v in ALE_DEFAULTS.items()
            if k not in without
        ]
        init.__signature__ = inspect.Signature(params)
        return init

    return sign


def observation_space(obs_type):
    shape = OBS_SHAPES[obs_type]
    return Box(0, 1 if obs_type == "obs80" else 255, shape, np.uint8)


def make_spec(id, kwargs, vector=False):
    """An EnvSpec (gymnasium's class when available) for pongrl.make / make_vec; kwargs: the
    ale-py arguments, of which those left at None or False are not named."""
    gid = gymnasium_id(id)
    kwargs = {k: v for k, v in kwargs.items() if v is not None and v is not False}
    if gymnasium is not None:
        from gymnasium.envs.registration import EnvSpec

        return EnvSpec(
            id=gid,
            entry_point="pongrl:Env",
            kwargs=dict(kwargs, preset=id),
            vector_entry_point="pongrl:VecEnv",
            nondeterministic=False,
            max_episode_steps=None,
            order_enforce=False,
            disable_env_checker=True,
        )
    return _Spec(gid, "pongrl:Env", dict(kwargs, preset=id))


class _Spec:
    """gymnasium.envs.registration.EnvSpec's fields that pongrl sets (without gymnasium)."""

    def __init__(self, id, entry_point, kwargs):
        self.id, self.entry_point, self.kwargs = id, entry_point, kwargs
        self.vector_entry_point = "pongrl:VecEnv"
        self.max_episode_steps = None
        self.reward_threshold = None
        self.nondeterministic = False
        self.namespace, rest = id.split("/")
        self.name, self.version = rest.rsplit("-v", 1)[0], int(rest.rsplit("-v", 1)[1])

    def __repr__(self):
        return "EnvSpec(id=%r, entry_point=%r, kwargs=%r)" % (self.id, self.entry_point, self.kwargs)


_EnvBase = gymnasium.Env if gymnasium is not None else StandInRandom


def as_action(action, meanings=ACTION_MEANINGS):
    """An int in [0, n) from an int, a NumPy integer, a 0-d integer array or a 0-d integer
    PyTorch tensor (anything with __index__ and no dimension); else ValueError."""
    n = len(meanings)
    a = None
    if isinstance(action, (bool, np.bool_)) or "bool" in str(getattr(action, "dtype", "")):
        a = None
    elif isinstance(action, (int, np.integer)):
        a = int(action)
    elif tuple(getattr(action, "shape", (None,))) == ():
        try:
            a = operator.index(action)
        except TypeError:
            a = None
    if a is None or not 0 <= a < n:
        raise ValueError("pongrl: action must be an integer in [0, %d) (%s), got %r" % (n, ", ".join(meanings), action))
    return a


class Env(_EnvBase):
    """One Pong environment. Use pongrl.make() (or gymnasium.make("pongrl/Pong-v5")).

    preset: an id of pongrl.ENV_IDS ("ALE/Pong-v5", ...) or its pongrl/ name.
    Keyword arguments as ale-py's AtariEnv: obs_type ("rgb", "grayscale", "ram", or "obs80",
    Karpathy's 80x80 grid), frameskip (int or (lo, hi)), repeat_action_probability,
    max_num_frames_per_episode, render_mode (None, "rgb_array", or "human": a window, see
    pongrl.render), full_action_space (ALE's 18
    actions, mapped onto what a paddle obeys); and seed, and max_episode_steps (a cap in agent
    steps, 0 for none).
    """

    # render_fps: ale-py's AtariEnv says 30 whatever the frameskip
    metadata = {"render_modes": ["human", "rgb_array"], "obs_types": list(OBS_SHAPES), "render_fps": 30}

    @ale_signature()
    def __init__(self, preset="ALE/Pong-v5", seed=None, **options):
        kwargs = ale_options(Env, options)
        id, obs_type, preset = resolve(preset, render_modes=self.metadata["render_modes"], flavours=True, **kwargs)
        render_mode, full_action_space = kwargs["render_mode"], kwargs["full_action_space"]
        mode, difficulty = kwargs["mode"], kwargs["difficulty"]
        self.ale = None
        self._window = None
        self._kwargs = dict(kwargs, preset=id)  # for pickle and copy
        self.spec_id = id
        self.obs_type = obs_type
        self.render_mode = render_mode
        self.spec = make_spec(id, kwargs)
        if render_mode == "human":
            self._window = render.HumanWindow(self.metadata["render_fps"], "pongrl: " + id)
        self._np_random = None
        self._np_random_seed = None
        self._seeded = seed is not None
        seed = as_seed(seed) if seed is not None else entropy_seed()
        self._preset = preset
        # the game and its counters live in the interface, as in ale-py's AtariEnv
        self.ale = ALEInterface._open(preset, seed)
        self._obs_size = int(lib.env_obs_size(_lib.OBS_TYPES[obs_type]))
        self._obs_code, self._obs_shape = _lib.OBS_TYPES[obs_type], OBS_SHAPES[obs_type]
        self.full_action_space = bool(full_action_space)
        self._meanings = FULL_ACTION_MEANINGS if full_action_space else ACTION_MEANINGS
        self.action_space = Discrete(len(self._meanings), seed=seed)
        self.observation_space = observation_space(obs_type)
        # ale-py's AtariEnv attributes, with its meanings: Gymnasium's AtariPreprocessing reads
        # _frameskip ("frameskip in the original env" must be 1 for its own), the common Atari
        # wrappers ale.lives(); _action_set maps the env's actions to ALE's.
        lo, hi = preset.frameskip_min, preset.frameskip_max
        self._frameskip = lo if lo == hi else (lo, hi + 1)
        self._obs_type = obs_type
        self._game = "pong"
        self._game_mode, self._game_difficulty = mode, difficulty
        if mode or difficulty:  # ale-py: setMode/setDifficulty after loadROM, then reset
            self.ale._set_flavour(mode, difficulty)
            with self.ale._use() as ptr:
                lib.env_reset(ptr, seed)
        self._action_set = list(Action) if full_action_space else list(MINIMAL_ACTIONS)
        self.continuous = False
        self.sound_obs = False

    # -- Gymnasium API

    def reset(self, *, seed=None, options=None):
        """Start an episode -> (obs, info). With a seed the episode is a function of
        (id, seed, actions); without one, the next seed in a stream derived from the last.
        After a seeded reset info["seeds"] holds (np_random's seed, the game's stream's seed),
        as ale-py's holds its two (its values are its own RNG's)."""
        self._check_open()
        if seed is not None:
            seed = as_seed(seed)
        if gymnasium is not None:
            super().reset(seed=seed)
        elif seed is not None:
            self._set_np_random(seed)
        if seed is not None:
            self.ale._seed_game(seed)
        with self._use() as ptr:
            self.ale.reset_game()
            self._draw()
            info = self._info(ptr)
            if seed is not None:
                info["seeds"] = (seed, seed)
            return self._obs(ptr), info

    def step(self, action):
        """One agent step -> (obs, reward, terminated, truncated, info). After the end, as
        ale-py: nothing is emulated, reward 0, the same observation and flags."""
        a = as_action(action, self._meanings)
        if self.full_action_space:
            a = FULL_TO_MINIMAL[a]
        with self._use() as ptr:  # one thread at a time from the step to its observation
            st = self.ale._agent_step(ptr, a)
            if st is None:
                info = self._info(ptr)
                s = self.ale._state
                return self._obs(ptr), 0.0, bool(s.terminated), bool(s.truncated), info
            reward, terminated, truncated = float(st.reward), bool(st.terminated), bool(st.truncated)
            self._draw()
            return self._obs(ptr), reward, terminated, truncated, self._info(ptr)

    # -- state cloning (ale-py's clone_state / restore_state), pickle and copy

    def clone_state(self, include_rng=False):
        """The whole env's state as an ALEState: the game, the paddle, the counters and caps'
        progress, and with include_rng the random stream of sticky actions and random
        frameskip too, so that a restore replays exactly what followed the clone."""
        self._check_open()
        return self.ale.cloneState(include_rng=include_rng)

    def restore_state(self, state):
        """Back to a state of clone_state (of an env of the same id and settings); without its
        random stream, the env's own stream goes on from where it is, as ALE's."""
        self._check_open()
        try:
            self.ale.restoreState(state)
        except RuntimeError as e:
            raise RuntimeError("%s (%s)" % (e, self.spec_id)) from None

    def __getstate__(self):
        """pickle and copy.deepcopy: the settings, the seeds, the generators and the whole
        game with its random stream; the copy is identical and independent."""
        self._check_open()
        ale = self.ale
        return {
            "kwargs": self._kwargs,
            "seed": ale._seed,
            "episode": ale._episode,
            "np_random": self._np_random,
            "np_random_seed": self._np_random_seed,
            "action_space": self.action_space,
            "spec": self.spec,
            "ale_settings": dict(ale._settings),
            "flavour": (ale._mode, ale._difficulty),
            "state": ale.cloneState(True).serialize(),
        }

    def __setstate__(self, d):
        self.__init__(seed=d["seed"], **d["kwargs"])
        self.ale._episode = d["episode"]
        self._np_random, self._np_random_seed = d["np_random"], d["np_random_seed"]
        self.action_space, self.spec = d["action_space"], d["spec"]
        for k, v in d["ale_settings"].items():  # checked as setInt checks them
            self.ale._set(k, v)
        if d["flavour"] != (self.ale._mode, self.ale._difficulty):
            self.ale._set_flavour(*d["flavour"])
        self.ale.restoreState(ALEState(d["state"]))

    def render(self):
        """The current frame, uint8 (210, 160, 3), as ALE's getScreenRGB (render_mode
        "rgb_array"); None with render_mode None, as Gymnasium's envs do; with "human", draws
        it in the window (reset and step do too) and returns None."""
        self._check_open()
        if self.render_mode == "human":
            self._draw()
            return None
        if self.render_mode is None:
            if gymnasium is not None:
                gymnasium.logger.warn(
                    "pongrl: render() with render_mode=None returns None; " "make the env with render_mode='rgb_array'"
                )
            return None
        return self.frame()

    def frame(self):
        """The current RGB frame, uint8 (210, 160, 3), whatever the render mode."""
        self._check_open()
        return self.ale.getScreenRGB()

    def obs80(self):
        """Karpathy's preprocessing of the current frame, uint8 (80, 80) in {0, 1}."""
        self._check_open()
        with self._use() as ptr:
            return self.ale._observe(ptr, _lib.OBS_TYPES["obs80"], OBS80_SHAPE)

    def ram(self):
        """The console's 128 bytes of RAM, uint8 (128,), as ALE's getRAM() returns them."""
        self._check_open()
        return self.ale.getRAM()

    def state(self):
        """The game state as a dict (positions in screen pixels, scores, counters)."""
        self._check_open()
        return self.ale._game_state()

    def get_action_meanings(self):
        return list(self._meanings)

    def get_keys_to_action(self):
        """{keys: action} for gymnasium.utils.play.play(env), as ale-py returns it: w/s/a/d
        UP/DOWN/LEFT/RIGHT, space FIRE, e NOOP (on Pong, d moves the paddle up, a down)."""
        return render.keys_to_action(self._meanings)

    def close(self):
        """Frees the game (waiting for a step another thread is in); every later call, of the
        env or of its env.ale, is a RuntimeError saying it is closed."""
        if getattr(self, "_window", None) is not None:
            self._window.close()
        if getattr(self, "ale", None) is not None and lib is not None:
            self.ale._close()

    def __del__(self):
        # the game is the interface's, freed with it: a script may keep env.ale alone
        if getattr(self, "_window", None) is not None:
            self._window.close()

    def __repr__(self):
        return "<pongrl.Env %s obs_type=%s>" % (self.spec_id, self.obs_type)

    def __str__(self):
        return self.__repr__()

    # -- internals

    def _draw(self):
        if self._window is not None:
            self._window.show(self.frame())

    def _use(self):
        """The game's C env, locked for this thread (pongrl._lib.Handle)."""
        if getattr(self, "ale", None) is None:
            raise RuntimeError("pongrl: the environment is closed")
        return self.ale._use()

    def _check_open(self):
        if getattr(self, "ale", None) is None or not self.ale._h.is_open:
            raise RuntimeError("pongrl: the environment is closed")

    def _obs(self, ptr):
        return self.ale._observe(ptr, self._obs_code, self._obs_shape)

    def _info(self, ptr):
        s = self.ale._read_state(ptr)
        return {
            "lives": 0,
            "episode_frame_number": s["frames"],
            "frame_number": self.ale._total_frames,
            "steps": s["steps"],
            "score_agent": s["score_agent"],
            "score_cpu": s["score_cpu"],
        }
