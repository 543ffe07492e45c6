"""test_gym_api.py: pongrl.Env has Gymnasium's API and ale-py's keyword arguments.

Plain asserts of what gymnasium's check_env checks (reset and step determinism under a seed,
np_random, spaces with sample/contains/seed, spec, render, close), the keyword arguments
(render_mode, obs_type, frameskip, repeat_action_probability, max_num_frames_per_episode,
max_episode_steps), the RAM ids and the action types (ints, NumPy integers, 0-d arrays).
Without gymnasium the stand-in spaces are tested; with gymnasium importable (e.g. a checkout
on PYTHONPATH) the same checks run on gymnasium's classes, then gymnasium's own check_env,
and once more with PONGRL_NO_GYMNASIUM=1 in a subprocess for the stand-ins.
PONGRL_GYMNASIUM_DIRS (colon-separated Gymnasium source trees, each holding gymnasium/, e.g.
from `git archive v0.29.1 gymnasium` of its repository) runs this test and
test_ale_interface.py (AtariPreprocessing, register_ale_ids) once per tree.
Exit 0 pass, 77 skip (library not built), anything else fail.
"""
import inspect
import os
import subprocess
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import pongrl, raises, run  # noqa: E402

GYM = pongrl.gymnasium is not None


def play(env, seed, actions):
    obs, info = env.reset(seed=seed)
    out = [(obs, 0.0, False, False, info)]
    for a in actions:
        out.append(env.step(a))
        if out[-1][2] or out[-1][3]:
            break
    return out


def same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


# ----------------------------------------------------------------------------


def test_spaces():
    env = pongrl.make("ALE/Pong-v5")
    a = env.action_space
    assert a.n == 6 and a.shape == () and np.dtype(a.dtype) == np.int64
    assert a.seed(3) is not None
    s1 = [a.sample() for _ in range(20)]
    a.seed(3)
    s2 = [a.sample() for _ in range(20)]
    assert s1 == s2 and all(a.contains(x) and x in a for x in s1) and set(map(int, s1)) <= set(range(6))
    assert isinstance(a.np_random, np.random.Generator)
    for ok in (0, 5, np.int64(2), np.uint8(3), np.array(2), np.array(4, dtype=np.int32)):
        assert a.contains(ok), ok
    for bad in (6, -1, 2.0, "2", None, np.array([2]), np.array(2.0)):
        assert not a.contains(bad), bad
    o = env.observation_space
    assert o.shape == (210, 160, 3) and o.dtype == np.uint8
    x = o.sample()
    assert x.shape == o.shape and x.dtype == np.uint8 and o.contains(x)
    o.seed(1)
    y1 = o.sample()
    o.seed(1)
    assert np.array_equal(y1, o.sample())
    assert not o.contains(np.zeros((210, 160), np.uint8))
    assert not o.contains(np.zeros((210, 160, 3), np.float64))
    assert o == pongrl.make("Pong-v4").observation_space
    assert pongrl.make("ALE/Pong-v5", obs_type="obs80").observation_space.high.max() == 1
    env.close()


def test_obs_types_and_render():
    for obs_type, shape in pongrl.OBS_SHAPES.items():
        env = pongrl.make("ALE/Pong-v5", obs_type=obs_type, render_mode="rgb_array")
        assert env.observation_space.shape == shape
        obs, info = env.reset(seed=0)
        for t in range(30):
            obs, r, term, trunc, info = env.step(t % 6)
        assert obs.shape == shape and obs.dtype == np.uint8, obs_type
        assert env.observation_space.contains(obs), obs_type
        frame = env.render()
        assert frame.shape == (210, 160, 3) and np.array_equal(frame, env.frame())
        if obs_type == "rgb":
            assert np.array_equal(obs, frame)
        if obs_type == "obs80":
            assert np.array_equal(obs, env.obs80())
        if obs_type == "grayscale":  # ALE ColourPalette.cpp convertGrayscale
            f = frame.astype(np.float64)
            want = np.round(f[..., 0] * 0.2989 + f[..., 1] * 0.5870 + f[..., 2] * 0.1140)
            assert np.array_equal(obs, want.astype(np.uint8))
        env.close()
    env = pongrl.make("ALE/Pong-v5")
    env.reset(seed=0)
    assert env.render_mode is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None  # Gymnasium: nothing to render without a mode
    msg = raises(ValueError, pongrl.make, "ALE/Pong-v5", render_mode="video")
    assert "rgb_array" in msg and "human" in msg, msg  # "human": tests/sh/test_watch_python.sh
    raises(ValueError, pongrl.make, "ALE/Pong-v5", obs_type="pixels")
    msg = raises(TypeError, pongrl.make, "ALE/Pong-v5", sticky=0.1)
    assert "repeat_action_probability" in msg, msg


def test_keyword_arguments():
    def frames_per_step(env, n=40):
        env.reset(seed=0)
        last, out = 0, []
        for _ in range(n):
            *_, info = env.step(0)
            out.append(info["episode_frame_number"] - last)
            last = info["episode_frame_number"]
        return out

    assert set(frames_per_step(pongrl.make("ALE/Pong-v5", frameskip=2))) == {2}
    assert set(frames_per_step(pongrl.make("ALE/Pong-v5", frameskip=1))) == {1}
    assert set(frames_per_step(pongrl.make("ALE/Pong-v5", frameskip=(2, 5)), 200)) == {2, 3, 4}
    # no sticky actions: the seed changes nothing in ALE/Pong-v5
    acts = [int(a) for a in np.random.default_rng(0).integers(0, 6, 300)]
    e = pongrl.make("ALE/Pong-v5", repeat_action_probability=0.0)
    a, b = play(e, 1, acts), play(e, 2, acts)
    assert same([x[0] for x in a], [x[0] for x in b])
    e = pongrl.make("ALE/Pong-v5")  # with them, it does
    a, b = play(e, 1, acts), play(e, 2, acts)
    assert not same([x[0] for x in a], [x[0] for x in b])
    # caps
    e = pongrl.make("ALE/Pong-v5", max_num_frames_per_episode=100)
    out = play(e, 0, [0] * 100)
    assert len(out) == 26 and out[-1][3] and not out[-1][2] and out[-1][4]["episode_frame_number"] == 100
    e = pongrl.make("Pong-v4", max_episode_steps=10)
    out = play(e, 0, [0] * 100)
    assert len(out) == 11 and out[-1][3]
    for bad in (
        dict(frameskip=0),
        dict(frameskip=(3, 3)),
        dict(repeat_action_probability=1.5),
        dict(max_num_frames_per_episode=-1),
        dict(mode=2),
        dict(difficulty=4),
    ):
        raises(ValueError, pongrl.make, "ALE/Pong-v5", **bad)
    for bad in (dict(frameskip=2.0), dict(full_action_space="yes"), dict(mode=1.0), dict(max_episode_steps=2.5)):
        raises(TypeError, pongrl.make, "ALE/Pong-v5", **bad)  # not an int (tests/py/test_py_integers.py)


def test_one_list_of_keywords():
    """Env, VecEnv, make and make_vec take ale-py's keywords from one list (resolve()'s
    signature): inspect.signature shows each with its default, spelling the defaults out
    changes nothing, and any other keyword is a TypeError that names it, however the env is made."""
    # ale-py's keywords; each defaults to None (the id's preset) but full_action_space
    keywords = dict.fromkeys(
        "obs_type frameskip repeat_action_probability max_num_frames_per_episode max_episode_steps "
        "full_action_space mode difficulty render_mode".split()
    )
    keywords["full_action_space"] = False
    for cls, only in ((pongrl.Env, dict(caps=None)), (pongrl.VecEnv, {})):
        params = inspect.signature(cls).parameters.values()
        got = {p.name: p.default for p in params if p.kind == p.KEYWORD_ONLY}
        assert got == dict(keywords, **only), (cls.__name__, got)
    acts = [int(a) for a in np.random.default_rng(1).integers(0, 6, 200)]
    a = play(pongrl.make("ALE/Pong-v5"), 3, acts)
    b = play(pongrl.make("ALE/Pong-v5", caps=None, **keywords), 3, acts)
    assert same(a, b)
    makers = [(pongrl.make, ()), (pongrl.Env, ()), (pongrl.make_vec, (2,)), (pongrl.VecEnv, (2,))]
    if GYM:
        import gymnasium

        makers.append((gymnasium.make, ()))
    for fn, args in makers:
        msg = raises(TypeError, fn, "pongrl/Pong-v5", *args, sticky=0.1, frameskip=2)
        assert "unsupported arguments sticky (" in msg and "repeat_action_probability" in msg, msg
    msg = raises(TypeError, pongrl.make_vec, "ALE/Pong-v5", 2, caps="gym-0.21")  # make's alone
    assert "unsupported arguments caps" in msg, msg


def test_full_action_space():
    # ALE's 18 actions, each doing what a paddle obeys of it (ALEState::applyActionPaddles)
    full = pongrl.make("ALE/Pong-v5", full_action_space=True, obs_type="obs80")
    assert full.action_space.n == 18 and len(full.get_action_meanings()) == 18
    assert full.get_action_meanings()[11] == "RIGHTFIRE"
    minimal = pongrl.make("ALE/Pong-v5", obs_type="obs80")
    names = minimal.get_action_meanings()
    want = {
        "NOOP": "NOOP",
        "UP": "NOOP",
        "DOWN": "NOOP",
        "FIRE": "FIRE",
        "UPFIRE": "FIRE",
        "DOWNFIRE": "FIRE",
        "RIGHT": "RIGHT",
        "UPRIGHT": "RIGHT",
        "DOWNRIGHT": "RIGHT",
        "LEFT": "LEFT",
        "UPLEFT": "LEFT",
        "DOWNLEFT": "LEFT",
        "RIGHTFIRE": "RIGHTFIRE",
        "UPRIGHTFIRE": "RIGHTFIRE",
        "DOWNRIGHTFIRE": "RIGHTFIRE",
        "LEFTFIRE": "LEFTFIRE",
        "UPLEFTFIRE": "LEFTFIRE",
        "DOWNLEFTFIRE": "LEFTFIRE",
    }
    rng = np.random.default_rng(1)
    acts = [int(a) for a in rng.integers(0, 18, 300)]
    a = play(full, 3, acts)
    b = play(minimal, 3, [names.index(want[full.get_action_meanings()[x]]) for x in acts])
    assert same(a, b)
    raises(ValueError, full.step, 18)
    v = pongrl.make_vec("ALE/Pong-v5", 2, full_action_space=True, obs_type="obs80")
    assert list(v.action_space.nvec) == [18, 18] and v.single_action_space.n == 18
    v.reset(seed=0)
    v.step([17, 2])
    raises(ValueError, v.step, [18, 0])
    v.close()
    raises(RuntimeError, v.step, [0, 0])  # closed: the C envs are freed


def test_ids_and_spec():
    assert set(pongrl.PRESETS) < set(pongrl.ENV_IDS)
    assert "ALE/Pong-ram-v5" in pongrl.ENV_IDS and "Pong-ramNoFrameskip-v4" in pongrl.ENV_IDS
    e = pongrl.make("ALE/Pong-ram-v5")
    obs, _ = e.reset(seed=0)
    assert obs.shape == (128,) and obs.dtype == np.uint8 and e.obs_type == "ram"
    assert e.spec.id == "pongrl/Pong-ram-v5" and e.spec.kwargs["preset"] == "ALE/Pong-ram-v5"
    e = pongrl.make("Pong-ramNoFrameskip-v4")
    e.reset(seed=0)
    assert e.step(0)[4]["episode_frame_number"] == 1
    e = pongrl.make("pongrl/Pong-v5", obs_type="obs80")
    assert e.spec_id == "ALE/Pong-v5"
    assert e.spec.id == "pongrl/Pong-v5" and e.spec.kwargs == {"obs_type": "obs80", "preset": "ALE/Pong-v5"}
    assert e.spec.vector_entry_point == "pongrl:VecEnv"
    assert e.unwrapped is e
    assert pongrl.gymnasium_ids()[-1] == "pongrl/Pong-ram-v5"
    raises(ValueError, pongrl.make, "Breakout-v4")
    raises(ValueError, pongrl.make, "pongrl/Breakout-v5")


def test_seeding_like_check_env():
    env = pongrl.make("ALE/Pong-v5", render_mode="rgb_array")
    assert isinstance(env.np_random, np.random.Generator)
    obs1, info1 = env.reset(seed=123)
    state = env.np_random.bit_generator.state
    obs2, info2 = env.reset(seed=123)
    assert np.array_equal(obs1, obs2) and same(info1, info2)
    assert env.np_random.bit_generator.state == state
    env.reset(seed=456)
    assert env.np_random.bit_generator.state != state
    state456 = env.np_random.bit_generator.state
    env.reset()
    assert env.np_random.bit_generator.state == state456  # reset() keeps the generator
    # step determinism: same seed, same actions -> same everything, infos included
    env.action_space.seed(123)
    acts = [env.action_space.sample() for _ in range(200)]
    a, b = play(env, 7, acts), play(env, 7, acts)
    assert same(a, b)
    r = a[1]
    assert isinstance(r[1], float) and isinstance(r[2], bool) and isinstance(r[3], bool)
    assert isinstance(r[4], dict)
    # reset() without a seed goes on to other episodes
    env.reset(seed=7)
    c = [env.step(x) for x in acts[:150]]
    env.reset()
    d = [env.step(x) for x in acts[:150]]
    assert not same(c, d)
    env.close()
    env.close()
    raises(RuntimeError, env.step, 0)


def test_actions():
    env = pongrl.make("ALE/Pong-v5")
    env.reset(seed=0)
    for ok in (2, np.int64(3), np.int32(0), np.uint8(1), np.array(2), np.array(5, dtype=np.uint16)):
        env.step(ok)
    for bad in (np.array([2]), np.array(2.0), True, np.bool_(True), 6, -1, 2.0, None, "1"):
        raises(ValueError, env.step, bad)
    assert env.state()["steps"] == 6


def test_with_gymnasium():
    if not GYM:
        print(
            "gymnasium not importable: stand-in spaces tested (put a Gymnasium checkout on "
            "PYTHONPATH to run its check_env too)"
        )
        return
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    assert isinstance(pongrl.make("ALE/Pong-v5"), gymnasium.Env)
    assert isinstance(pongrl.make("ALE/Pong-v5").action_space, gymnasium.spaces.Discrete)
    for obs_type in pongrl.OBS_SHAPES:
        for mode in (None, "rgb_array"):
            env = gymnasium.make("pongrl/Pong-v5", obs_type=obs_type, render_mode=mode)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                check_env(env.unwrapped)
            assert not w, [str(x.message) for x in w]
            env.close()
    print("gymnasium %s: check_env passed for every obs_type and render mode" % gymnasium.__version__)
    # and the stand-ins, in a process that ignores gymnasium
    r = subprocess.run(
        [sys.executable, os.path.abspath(__file__)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PONGRL_NO_GYMNASIUM="1"),
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_make_vec_by_version():
    """gymnasium.make_vec gives what docs/python.md's table says for this Gymnasium: before 1.0
    its own vector env unless vectorization_mode="custom" (and no "vector_entry_point"); from
    1.0 pongrl's, AtariVectorEnv for Pong-v5 as ale-py's ALE/Pong-v5."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    doc = open(os.path.join(root, "docs", "python.md"), encoding="utf-8").read()
    assert "`gymnasium.make_vec` by Gymnasium version" in doc
    assert "| 0.29.1 |" in doc and '`"custom"` gives pongrl' in doc, "docs/python.md's make_vec table"
    if not GYM:
        return
    import gymnasium

    old = int(gymnasium.__version__.split(".")[0]) < 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mode = {"vectorization_mode": "custom"} if old else {}
        for id, cls in (("pongrl/Pong-v5", pongrl.AtariVectorEnv), ("pongrl/Pong-v4", pongrl.VecEnv)):
            v = gymnasium.make_vec(id, num_envs=2, **mode)
            assert type(v.unwrapped) is cls, (gymnasium.__version__, id, type(v))
            v.close()
        if old:
            raises(
                gymnasium.error.Error,
                gymnasium.make_vec,
                "pongrl/Pong-v5",
                num_envs=2,
                vectorization_mode="vector_entry_point",
            )
    print("gymnasium %s: make_vec as docs/python.md says" % gymnasium.__version__)


def test_gymnasium_versions():
    """This file and test_ale_interface.py once more per tree of PONGRL_GYMNASIUM_DIRS."""
    dirs = [d for d in os.environ.get("PONGRL_GYMNASIUM_DIRS", "").split(":") if d]
    if not dirs or os.environ.get("PONGRL_GYMNASIUM_CHILD"):
        return
    for d in dirs:
        assert os.path.isdir(os.path.join(d, "gymnasium")), "%s holds no gymnasium/" % d
        path = os.pathsep.join([d] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
        here = os.path.dirname(os.path.abspath(__file__))
        for test in ("test_gym_api.py", "test_ale_interface.py"):
            r = subprocess.run(
                [sys.executable, "-W", "ignore::DeprecationWarning", os.path.join(here, test)],
                capture_output=True,
                text=True,
                env=dict(os.environ, PYTHONPATH=path, PONGRL_GYMNASIUM_CHILD="1"),
            )
            assert r.returncode == 0, "%s with %s:\n%s%s" % (test, d, r.stdout, r.stderr)
            for x in r.stdout.splitlines():
                if x.startswith("gymnasium "):
                    print("  " + x)


if __name__ == "__main__":
    sys.exit(
        run(
            [
                test_gymnasium_versions,
                test_spaces,
                test_obs_types_and_render,
                test_keyword_arguments,
                test_one_list_of_keywords,
                test_full_action_space,
                test_ids_and_spec,
                test_seeding_like_check_env,
                test_actions,
                test_with_gymnasium,
                test_make_vec_by_version,
            ]
        )
    )
