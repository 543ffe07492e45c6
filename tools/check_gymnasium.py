"""check_gymnasium.py: Gymnasium's own check_env on the registered pongrl ids, every observation type
and render mode. Needs gymnasium importable, e.g. a checkout of Farama-Foundation/Gymnasium:
    PYTHONPATH=python:/opt/gymnasium /usr/bin/python3 tools/check_gymnasium.py
(tests/py/test_gym_api.py checks the same behaviours with plain asserts when it is not.)
"""
import warnings
import gymnasium, pongrl
from gymnasium.utils.env_checker import check_env

print("gymnasium", gymnasium.__version__)
for id in ("pongrl/Pong-v5", "pongrl/Pong-ram-v5", "pongrl/Pong-v0"):
    for kw in ({}, {"obs_type": "obs80"}, {"obs_type": "grayscale"}, {"obs_type": "ram"}, {"render_mode": None}):
        kw = dict({"render_mode": "rgb_array"}, **kw)
        env = gymnasium.make(id, **kw)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
        print("check_env(%s, %s): passed, %d warnings" % (id, kw, len(w)))
