"""pongrl.load(path): a trained model as a policy that plays the env's observations.

    policy = pongrl.load("models/pong-v5")      # W1.npy/W2.npy, a checkpoint, a run dir, an export
    env = gymnasium.make("pongrl/Pong-v5")       # or pongrl.make(...); obs_type rgb or obs80
    obs, info = env.reset(seed=0)
    policy.reset()
    while True:
        obs, reward, terminated, truncated, info = env.step(policy.act(obs))
        ...

The C library reads the file (src/train/model.h: whatever `pongrl eval` accepts) and gives
the learner that trained it (its --algo), the settings that shape its network, the seeds'
network where it has one, and its learner's arrays (a PPO model's actor-critic is the first);
the learner picks the Python class that acts with them (nets.POLICIES, the one table by
--algo name: a learner whose acting network differs adds its class there). A folder
that `pongrl export` wrote with a model.txt (a PPO network) is read with NumPy alone
(nets.read_export, as tools/play_npy.py does). The classes and their forward passes are in
nets.py, which needs NumPy only.
"""
import ctypes
import os

import numpy as np

from ._lib import lib
from .nets import (POLICIES, D, PpoPolicy, SeedPolicy, policy_class, prepro,  # noqa: F401
                   read_export)

RIGHT, LEFT = 2, 3          # the minimal set's RIGHT (paddle up) and LEFT (down)
# the settings that shape a network (model_setting), for from_model
SHAPE_SETTINGS = ("hidden", "coarse")


def load(path, greedy=False, seed=None):
    """A model from `path`: a folder with W1.npy and W2.npy (the seed's), a checkpoint file,
    a run directory (its newest usable checkpoint), its checkpoints/ folder, or a folder that
    `pongrl export` wrote (model.txt). greedy: act greedily by default; seed: the sampling
    stream. A bad path is a ValueError saying why."""
    if os.path.exists(os.path.join(str(path), "model.txt")):
        try:
            return read_export(path, greedy=greedy, seed=seed)
        except (OSError, ValueError) as e:
            raise ValueError("pongrl.load: %s" % str(e).replace("pongrl: ", ""))
    err = ctypes.create_string_buffer(1024)
    handle = lib.model_open(str(path).encode(), err, len(err))
    if not handle:
        raise ValueError("pongrl.load: %s" % err.value.decode(errors="replace"))
    try:
        algo = lib.model_algo(handle).decode()
        settings = {}
        for k in SHAPE_SETTINGS:
            v = lib.model_setting(handle, k.encode())
            if v is not None:
                settings[k] = v.decode()
        w = lib.model_weights(handle)
        h = lib.model_hidden(handle)
        weights = np.ctypeslib.as_array(w, shape=(D * h + h,)).copy() if w else None
        arrays, i = {}, 0
        name, n = ctypes.c_char_p(), ctypes.c_size_t()
        while True:
            p = lib.model_array(handle, i, ctypes.byref(name), ctypes.byref(n))
            if not p:
                break
            arrays[name.value.decode()] = np.ctypeslib.as_array(p, shape=(n.value,)).copy()
            i += 1
    finally:
        lib.model_close(handle)
    try:
        cls = policy_class(algo, path)
    except ValueError as e:
        raise ValueError("pongrl.load: %s" % str(e).replace("pongrl: ", ""))
    return cls.from_model(weights, arrays, settings, algo=algo, source=str(path), greedy=greedy, seed=seed)
