"""The C library (libpongrl.so) through ctypes: where it is found and the signatures used.

Search order: $PONGRL_LIB; libpongrl.so inside this package (a pip install puts it there);
../../build/libpongrl.so from this file (the source tree after `make`).
"""
import ctypes
import os

ENV_OK, ENV_ERR_PRESET, ENV_ERR_ACTION, ENV_ERR_DONE, VECENV_ERR_ARG = 0, -1, -2, -3, -4
OBS_TYPES = {"rgb": 0, "grayscale": 1, "ram": 2, "obs80": 3}


class EnvStep(ctypes.Structure):  # env.h EnvStep
    _fields_ = [("reward", ctypes.c_int), ("terminated", ctypes.c_bool),
                ("truncated", ctypes.c_bool), ("frames", ctypes.c_int)]


STATE_FIELDS = ("ball_x", "ball_y", "ball_vx", "ball_vy", "ball_visible", "cpu_y", "agent_y",
                "score_cpu", "score_agent", "game_frame", "resistance", "last_action",
                "steps", "frames", "terminated", "truncated")


class EnvState(ctypes.Structure):  # env.h EnvState: every field int64_t
    _fields_ = [(name, ctypes.c_int64) for name in STATE_FIELDS]


class EnvPreset(ctypes.Structure):  # env.h EnvPreset
    _fields_ = [("id", ctypes.c_void_p), ("frameskip_min", ctypes.c_int),
                ("frameskip_max", ctypes.c_int), ("repeat_prob", ctypes.c_double),
                ("max_steps", ctypes.c_int64), ("max_frames", ctypes.c_int64)]


class VecOut(ctypes.Structure):  # vecenv.h VecOut: pointers to caller-owned arrays
    _fields_ = [(name, ctypes.c_void_p) for name in (
        "obs", "rewards", "terminated", "truncated", "final_obs", "episode_return",
        "episode_length", "episode_frames", "env_ids", "frame_number", "episode_frame_number")]


class AtariConfig(ctypes.Structure):  # atari_prep.h AtariConfig
    _fields_ = [("img_height", ctypes.c_int), ("img_width", ctypes.c_int),
                ("grayscale", ctypes.c_bool), ("stack_num", ctypes.c_int),
                ("frameskip", ctypes.c_int), ("maxpool", ctypes.c_bool),
                ("noop_max", ctypes.c_int), ("use_fire_reset", ctypes.c_bool),
                ("episodic_life", ctypes.c_bool), ("life_loss_info", ctypes.c_bool),
                ("reward_clipping", ctypes.c_bool), ("max_frames", ctypes.c_int64),
                ("repeat_action_probability", ctypes.c_double)]


class VecConfig(ctypes.Structure):  # vecenv.h VecConfig
    _fields_ = [("num_envs", ctypes.c_int), ("num_threads", ctypes.c_int),
                ("obs_type", ctypes.c_int), ("autoreset", ctypes.c_int),
                ("batch_size", ctypes.c_int), ("thread_affinity_offset", ctypes.c_int),
                ("atari", ctypes.POINTER(AtariConfig))]


AUTORESET_MODES = {"NextStep": 0, "SameStep": 1, "Disabled": 2}   # vecenv.h VECENV_*


def library_path():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("PONGRL_LIB"), os.path.join(here, "libpongrl.so"),
                  os.path.normpath(os.path.join(here, "..", "..", "build", "libpongrl.so"))]
    if candidates[0]:
        return candidates[0]
    for c in candidates[1:]:
        if os.path.exists(c):
            return c
    return candidates[2]


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError("pongrl: %s not found; run `make` in the pongrl repository, install "
                          "with `pip install ./python`, or point PONGRL_LIB at libpongrl.so" % path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("pongrl: cannot load %s (%s); rebuild it with `make`" % (path, e))
    vp, u8p, i32p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8), ctypes.c_void_p
    sigs = {
        "env_preset_id": (ctypes.c_char_p, [ctypes.c_int]),
        "env_preset_find": (ctypes.POINTER(EnvPreset), [ctypes.c_char_p]),
        "env_new": (vp, [ctypes.c_char_p, ctypes.c_uint64]),
        "env_new_preset": (vp, [ctypes.POINTER(EnvPreset), ctypes.c_uint64]),
        "env_free": (None, [vp]),
        "env_reset": (None, [vp, ctypes.c_uint64]),
        "env_step": (ctypes.c_int, [vp, ctypes.c_int, ctypes.POINTER(EnvStep)]),
        "env_render_rgb": (None, [vp, u8p]),
        "env_render_obs80": (None, [vp, u8p]),
        "env_ram": (None, [vp, u8p]),
        "env_render_obs": (None, [vp, ctypes.c_int, vp]),
        "env_obs_size": (ctypes.c_size_t, [ctypes.c_int]),
        "env_state": (None, [vp, ctypes.POINTER(EnvState)]),
        "vecenv_new": (vp, [ctypes.POINTER(EnvPreset), ctypes.c_int, ctypes.c_int, ctypes.c_int]),
        "vecenv_free": (None, [vp]),
        "vecenv_num_threads": (ctypes.c_int, [vp]),
        "vecenv_reset": (ctypes.c_int, [vp, ctypes.c_uint64, ctypes.POINTER(VecOut)]),
        "vecenv_step": (ctypes.c_int, [vp, i32p, ctypes.POINTER(VecOut),
                                       ctypes.POINTER(ctypes.c_int)]),
        "vecenv_env": (vp, [vp, ctypes.c_int]),
        "vecenv_create": (vp, [ctypes.POINTER(EnvPreset), ctypes.POINTER(VecConfig),
                               ctypes.POINTER(ctypes.c_char_p)]),
        "vecenv_reset_mask": (ctypes.c_int, [vp, vp, vp, ctypes.POINTER(VecOut)]),
        "vecenv_batch_size": (ctypes.c_int, [vp]),
        "vecenv_obs_size": (ctypes.c_size_t, [vp]),
    }
    for name, (res, args) in sigs.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError("pongrl: %s lacks %s; rebuild it with `make`" % (path, name))
        fn.restype, fn.argtypes = res, args
    return lib


lib = _load()
