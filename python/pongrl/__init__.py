"""pongrl: the native Pong environment with Gymnasium's API, and a vectorised env in C.

    import pongrl
    env = pongrl.make("ALE/Pong-v5", render_mode="rgb_array", obs_type="rgb")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(2)      # RIGHT: paddle up

    envs = pongrl.make_vec("ALE/Pong-v5", num_envs=64, num_threads=2, obs_type="obs80")
    obs, info = envs.reset(seed=0)                              # obs: uint8 (64, 80, 80)
    obs, rewards, terminated, truncated, info = envs.step(envs.action_space.sample())

When gymnasium is importable, Env is a gymnasium.Env, VecEnv a gymnasium.vector.VectorEnv,
the spaces are gymnasium's, and the ids are registered as pongrl/Pong-v5, pongrl/Pong-v4,
pongrl/Pong-ram-v5, ... (gymnasium.make("pongrl/Pong-v5"), gymnasium.make_vec(...,
vectorization_mode="vector_entry_point")). Without it, stand-ins with the same behaviour.

The C library is found in this package (pip install), at ../../build/libpongrl.so (the
source tree after `make`), or at $PONGRL_LIB.
"""
from . import roms, spaces
from .ale import Action, ALEInterface, ALEState, LoggerMode
from .env import (
    ACTION_MEANINGS,
    CAPS,
    ENV_IDS,
    GYM021_MAX_EPISODE_STEPS,
    OBS80_SHAPE,
    OBS_SHAPES,
    PRESETS,
    RAM_IDS,
    SCREEN_SHAPE,
    Env,
    gymnasium_id,
)
from .policy import load, models
from .spaces import Box, Discrete, MultiDiscrete, gymnasium
from .vector import VecEnv
from .atari_vector import AtariVectorEnv

__all__ = [
    "make",
    "make_vec",
    "Env",
    "VecEnv",
    "AtariVectorEnv",
    "Discrete",
    "Box",
    "MultiDiscrete",
    "PRESETS",
    "ENV_IDS",
    "RAM_IDS",
    "ACTION_MEANINGS",
    "OBS_SHAPES",
    "spaces",
    "gymnasium_ids",
    "ALEInterface",
    "ALEState",
    "Action",
    "LoggerMode",
    "register_ale_ids",
    "CAPS",
    "GYM021_MAX_EPISODE_STEPS",
    "load",
    "models",
    "roms",
]
__version__ = "0.2.0"


def make(id, **kwargs):
    """pongrl.make("ALE/Pong-v5", seed=0, obs_type="rgb", render_mode="rgb_array", ...): one
    env, for any id in pongrl.ENV_IDS (or its pongrl/ name); ale-py's keyword arguments, and
    caps="gym-0.21" for gym 0.21's step caps instead of ale-py's 108,000 frames."""
    return Env(id, **kwargs)


def make_vec(id, num_envs, num_threads=None, **kwargs):
    """pongrl.make_vec("ALE/Pong-v5", 64, num_threads=2, obs_type="obs80", copy=False):
    num_envs envs stepped in C by num_threads threads (default: one per core)."""
    return VecEnv(id, num_envs, num_threads=num_threads, **kwargs)


def gymnasium_ids():
    """The ids registered with gymnasium: pongrl/Pong-v5, pongrl/Pong-ram-v5, ..."""
    return tuple(gymnasium_id(i) for i in ENV_IDS)


_ENTRY_POINT, _VECTOR_ENTRY_POINT = "pongrl:Env", "pongrl:VecEnv"


def _vector_entry_point(id):
    """Pong-v5 as ale-py registers ALE/Pong-v5: gymnasium.make_vec gives the AtariVectorEnv."""
    return "pongrl.atari_vector:make_vector" if id == "ALE/Pong-v5" else _VECTOR_ENTRY_POINT


def _register():
    """pongrl's ids in Gymnasium's registry: on `import pongrl`, and as Gymnasium 0.29's plugin
    hook (pyproject.toml), which runs while `import gymnasium` is still under way: the registry
    is taken from its own module, which is whole by then."""
    from gymnasium.envs.registration import register, registry

    for id in ENV_IDS:
        gid = gymnasium_id(id)
        if gid not in registry:
            register(
                id=gid, entry_point=_ENTRY_POINT, kwargs={"preset": id}, vector_entry_point=_vector_entry_point(id)
            )


def register_ale_ids(override=False):
    """Registers pongrl under ALE's own ids (ALE/Pong-v5, ALE/Pong-ram-v5, Pong-v0, Pong-v4,
    PongNoFrameskip-v4, the Deterministic and -ram ids: pongrl.ENV_IDS), so that a script
    written for ale-py runs with this one added line. Where another package (ale-py) already
    registered one of them, a ValueError says which, unless override=True. Returns the ids."""
    if gymnasium is None:
        raise ImportError("pongrl.register_ale_ids needs gymnasium (pongrl.make works without)")
    registry = gymnasium.envs.registration.registry
    taken = [id for id in ENV_IDS if id in registry and getattr(registry[id], "entry_point", None) != _ENTRY_POINT]
    if taken and not override:
        raise ValueError(
            "pongrl.register_ale_ids: %s already registered by %s (ale-py?); "
            "call register_ale_ids(override=True) to replace them with pongrl's, or "
            "use pongrl's own ids (pongrl/Pong-v5, ...)" % (", ".join(taken), registry[taken[0]].entry_point)
        )
    for id in ENV_IDS:
        if id in registry:
            del registry[id]
        gymnasium.register(
            id=id, entry_point=_ENTRY_POINT, kwargs={"preset": id}, vector_entry_point=_vector_entry_point(id)
        )
    return ENV_IDS


if gymnasium is not None:
    _register()
