"""The C library (libpongrl.so) through ctypes: where it is found and the signatures used.

Search order: $PONGRL_LIB; libpongrl.so inside this package (a pip install puts it there);
../../build/libpongrl.so from this file (the source tree after `make`).

The structs and constants below mirror env.h and vecenv.h by hand; at load, check_abi()
compares them with the library's own table (src/env/abi.c: sizes, offsets, values) and
refuses a library they do not match.
"""
import ctypes
import os
import threading

ENV_OK, ENV_ERR_PRESET, ENV_ERR_ACTION, ENV_ERR_DONE, VECENV_ERR_ARG = 0, -1, -2, -3, -4
ENV_ERR_STATE, ENV_ERR_STATE_OTHER, ENV_ERR_FLAVOUR = -5, -6, -7
# env.h: a state's size, where it holds its int64 counters, the largest count without a cap
ENV_STATE_BYTES, ENV_STATE_STEPS_AT, ENV_STATE_FRAMES_AT, ENV_STATE_FRAME_NUMBER_AT = 297, 72, 80, 88
ENV_COUNT_MAX = 2**53 - 1
OBS_TYPES = {"rgb": 0, "grayscale": 1, "ram": 2, "obs80": 3}
CONSTANTS = {
    "ENV_OK": ENV_OK,
    "ENV_ERR_PRESET": ENV_ERR_PRESET,
    "ENV_ERR_ACTION": ENV_ERR_ACTION,
    "ENV_ERR_DONE": ENV_ERR_DONE,
    "VECENV_ERR_ARG": VECENV_ERR_ARG,
    "ENV_ERR_STATE": ENV_ERR_STATE,
    "ENV_ERR_STATE_OTHER": ENV_ERR_STATE_OTHER,
    "ENV_ERR_FLAVOUR": ENV_ERR_FLAVOUR,
    "ENV_STATE_BYTES": ENV_STATE_BYTES,
    "ENV_STATE_STEPS_AT": ENV_STATE_STEPS_AT,
    "ENV_STATE_FRAMES_AT": ENV_STATE_FRAMES_AT,
    "ENV_STATE_FRAME_NUMBER_AT": ENV_STATE_FRAME_NUMBER_AT,
    "ENV_COUNT_MAX": ENV_COUNT_MAX,
    "OBS_RGB": OBS_TYPES["rgb"],
    "OBS_GRAYSCALE": OBS_TYPES["grayscale"],
    "OBS_RAM": OBS_TYPES["ram"],
    "OBS_OBS80": OBS_TYPES["obs80"],
}


# C's scalar types as ctypes has them (a pointer is a void pointer, the address of an array,
# unless it points to another mirror)
C_TYPES = {
    "int": ctypes.c_int,
    "bool": ctypes.c_bool,
    "double": ctypes.c_double,
    "int64_t": ctypes.c_int64,
    "uint32_t": ctypes.c_uint32,
}


def mirror(name, fields, *pointees):
    """A ctypes.Structure named name from the fields of its C struct, in the header's words and
    order ("int a, b; const double *c; Other *d"): a pointer to one of pointees (mirrors) is a
    POINTER to it, any other pointer a c_void_p."""
    pointee = {t.__name__: t for t in pointees}
    out = []
    for decl in filter(None, (d.strip() for d in fields.split(";"))):
        ctype, names = decl.replace("const ", "").split(None, 1)
        for n in (n.strip() for n in names.split(",")):
            if n.startswith("*"):
                out.append((n[1:], ctypes.POINTER(pointee[ctype]) if ctype in pointee else ctypes.c_void_p))
            else:
                out.append((n, C_TYPES[ctype]))
    return type(name, (ctypes.Structure,), {"_fields_": out})


EnvStep = mirror("EnvStep", "int reward; bool terminated; bool truncated; int frames")  # env.h
EnvState = mirror(  # env.h
    "EnvState",
    "int64_t ball_x, ball_y, ball_vx, ball_vy, ball_visible; int64_t cpu_y, agent_y; int64_t score_cpu, score_agent;"
    "int64_t game_frame; int64_t resistance; int64_t last_action; int64_t steps, frames; int64_t terminated, truncated",
)
STATE_FIELDS = tuple(f[0] for f in EnvState._fields_)
EnvPreset = mirror(  # env.h
    "EnvPreset",
    "const char *id; int frameskip_min; int frameskip_max; double repeat_prob; int64_t max_steps; int64_t max_frames",
)
VecOut = mirror(  # vecenv.h: pointers to caller-owned arrays
    "VecOut",
    "uint8_t *obs; double *rewards; bool *terminated; bool *truncated; uint8_t *final_obs; double *episode_return;"
    "int64_t *episode_length; int64_t *episode_frames; int32_t *env_ids; int64_t *frame_number;"
    "int64_t *episode_frame_number",
)
AtariConfig = mirror(  # atari_prep.h
    "AtariConfig",
    "int img_height, img_width; bool grayscale; int stack_num; int frameskip; bool maxpool; int noop_max;"
    "bool use_fire_reset; bool episodic_life; bool life_loss_info; bool reward_clipping; int64_t max_frames;"
    "double repeat_action_probability",
)
VecConfig = mirror(  # vecenv.h
    "VecConfig",
    "int num_envs; int num_threads; int obs_type; int autoreset; int batch_size; int thread_affinity_offset;"
    "const AtariConfig *atari; int mode, difficulty; uint32_t stream; bool caller_stepped",
    AtariConfig,
)
MIRRORS = (EnvStep, EnvPreset, EnvState, VecOut, AtariConfig, VecConfig)  # checked against the library's table


AUTORESET_MODES = {"NextStep": 0, "SameStep": 1, "Disabled": 2}  # vecenv.h VECENV_*
CONSTANTS.update(VECENV_NEXT_STEP=0, VECENV_SAME_STEP=1, VECENV_DISABLED=2)


class AbiEntry(ctypes.Structure):  # abi.h AbiEntry
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


def abi_table(lib):
    """The library's table: {"sizeof EnvStep": 12, "EnvStep.reward": 0, "ENV_OK": 0, ...}."""
    p, table, i = lib.env_abi(), {}, 0
    while p[i].name is not None:
        table[p[i].name.decode()] = p[i].value
        i += 1
    return table


def abi_mismatches(table, mirrors=MIRRORS, constants=CONSTANTS):
    """What differs between the ctypes mirrors and the library's table (empty: none)."""
    out = []
    for t in mirrors:
        name = t.__name__
        if table.get("sizeof " + name) != ctypes.sizeof(t):
            out.append("sizeof %s: C %s, Python %d" % (name, table.get("sizeof " + name), ctypes.sizeof(t)))
        c = {k.split(".", 1)[1]: v for k, v in table.items() if k.startswith(name + ".")}
        py = {f[0]: getattr(t, f[0]).offset for f in t._fields_}
        for f in sorted(set(c) | set(py)):
            if c.get(f) != py.get(f):
                out.append("%s.%s: offset C %s, Python %s" % (name, f, c.get(f), py.get(f)))
    for k, v in constants.items():
        if table.get(k) != v:
            out.append("%s: C %s, Python %s" % (k, table.get(k), v))
    return out


def check_abi(lib, path):
    bad = abi_mismatches(abi_table(lib))
    if bad:
        raise ImportError(
            "pongrl: %s does not match python/pongrl/_lib.py's mirror of its "
            "structs (%s); rebuild the library with `make`, or bring _lib.py up to "
            "date with env.h/vecenv.h" % (path, "; ".join(bad))
        )


def library_path():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [
        os.environ.get("PONGRL_LIB"),
        os.path.join(here, "libpongrl.so"),
        os.path.normpath(os.path.join(here, "..", "..", "build", "libpongrl.so")),
    ]
    if candidates[0]:
        return candidates[0]
    for c in candidates[1:]:
        if os.path.exists(c):
            return c
    return candidates[2]


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(
            "pongrl: %s not found; run `make` in the pongrl repository, install "
            "with `pip install --no-build-isolation ./python`, or point PONGRL_LIB at libpongrl.so" % path
        )
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
        "env_preset_problem": (ctypes.c_char_p, [ctypes.POINTER(EnvPreset)]),
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
        "vecenv_step": (ctypes.c_int, [vp, i32p, ctypes.POINTER(VecOut), ctypes.POINTER(ctypes.c_int)]),
        "vecenv_env": (vp, [vp, ctypes.c_int]),
        "vecenv_clone": (ctypes.c_int, [vp, ctypes.c_int, ctypes.c_bool, vp]),
        "vecenv_restore": (ctypes.c_int, [vp, ctypes.c_int, ctypes.c_char_p]),
        "vecenv_create": (vp, [ctypes.POINTER(EnvPreset), ctypes.POINTER(VecConfig), ctypes.POINTER(ctypes.c_char_p)]),
        "vecenv_reset_mask": (ctypes.c_int, [vp, vp, vp, ctypes.POINTER(VecOut)]),
        "vecenv_batch_size": (ctypes.c_int, [vp]),
        "vecenv_obs_size": (ctypes.c_size_t, [vp]),
        "env_act": (ctypes.c_int, [vp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(EnvStep)]),
        "env_set_ram": (ctypes.c_bool, [vp, ctypes.c_int, ctypes.c_uint8]),
        "env_render_indices": (None, [vp, vp]),
        "env_abi": (ctypes.POINTER(AbiEntry), []),
        "env_state_size": (ctypes.c_size_t, []),
        "env_clone": (None, [vp, ctypes.c_bool, vp]),
        "env_restore": (ctypes.c_int, [vp, ctypes.c_char_p]),
        "env_state_check": (ctypes.c_int, [vp, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
        "env_strerror": (ctypes.c_char_p, [ctypes.c_int]),
        "env_set_flavour": (ctypes.c_int, [vp, ctypes.c_int, ctypes.c_int]),
        "env_num_modes": (ctypes.c_int, []),
        "env_num_difficulties": (ctypes.c_int, []),
        "model_open": (vp, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
        "model_hidden": (ctypes.c_int, [vp]),
        "model_weights": (ctypes.POINTER(ctypes.c_double), [vp]),
        "model_algo": (ctypes.c_char_p, [vp]),
        "model_setting": (ctypes.c_char_p, [vp, ctypes.c_char_p]),
        "model_array": (
            ctypes.POINTER(ctypes.c_double),
            [vp, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t)],
        ),
        "model_close": (None, [vp]),
        # algo/actor.h: a model as a policy stepped in C (policy.py's Policy)
        "actor_open": (vp, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
        "actor_close": (None, [vp]),
        "actor_plays": (ctypes.c_bool, [ctypes.c_char_p]),
        "actor_actions": (ctypes.c_int, [vp, ctypes.POINTER(ctypes.c_int)]),
        "actor_algo": (ctypes.c_char_p, [vp]),
        "actor_hidden": (ctypes.c_int, [vp]),
        "actor_model": (vp, [vp]),
        "actor_rows": (ctypes.c_int, [vp]),
        "actor_step": (ctypes.c_int, [vp, ctypes.c_int, ctypes.c_int, vp, vp, ctypes.c_bool, vp, vp]),
        "actor_reset": (None, [vp, vp]),
    }
    for name, (res, args) in sigs.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError("pongrl: %s lacks %s; rebuild it with `make`" % (path, name))
        fn.restype, fn.argtypes = res, args
    check_abi(lib, path)
    return lib


lib = _load()


class Handle:
    """A C object (an Env, a VecEnv, a policy's Actor) behind a lock, so that Python can neither use it after
    close() nor free or step it while another thread is inside the library with it (ctypes
    lets go of the GIL during a call: without the lock a close() from another thread frees
    the memory under a running step, and two steps at once share one set of buffers).

        with self._h as ptr:          # RuntimeError: closed, or in use by another thread
            lib.env_step(ptr, ...)

    The lock is re-entrant, so a method may call another of the same object; a second thread
    is refused at once with a clear error rather than queued; close() waits for a running
    call to end, then frees."""

    __slots__ = ("_ptr", "_free", "_what", "_lock")

    def __init__(self, ptr, free, what):
        self._ptr, self._free, self._what = ptr, free, what
        self._lock = threading.RLock()

    def __enter__(self):
        if not self._lock.acquire(blocking=False):
            raise RuntimeError(
                "pongrl: the %s is in use by another thread; one thread at a time "
                "may call it (give each thread its own)" % self._what
            )
        if not self._ptr:
            self._lock.release()
            raise RuntimeError("pongrl: the %s is closed" % self._what)
        return self._ptr

    def __exit__(self, *exc):
        self._lock.release()

    @property
    def is_open(self):
        return bool(self._ptr)

    def replace(self, ptr):
        """Puts a new C object in place of the old one, which is freed."""
        with self._lock:
            old, self._ptr = self._ptr, ptr
            if old:
                self._free(old)

    def close(self):
        with self._lock:
            if self._ptr:
                self._free(self._ptr)
                self._ptr = None
