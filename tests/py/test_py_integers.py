"""test_py_integers.py: every integer that goes from Python into the C library is checked at the
edge. ctypes keeps an int's low bits without a word, so an unchecked 2**64 + 5 reaches C as 5
(max_episode_steps=2**64+5 truncated after 5 steps, setInt("frame_skip", 2**32 + 2) played 2
frames and 2**31 none, noop_max=2**40 acted as 0).

Every keyword of pongrl.make (Env's signature), make_vec (its own and VecEnv's), make_vector
(its own and AtariVectorEnv's), AtariVectorEnv, and every setting of ALEInterface.setInt /
setFloat / setBool (ale.SETTINGS) is tried with 2**31, 2**32 + 2, 2**63, 2**64 + 5, -1 and
1.5: each is refused (ValueError or OverflowError for an int out of range, TypeError for 1.5
where an int is wanted, the message naming the argument), or it is in LEGAL, and then the
object holds the value asked for (the field C reads, or what C did with it). The keywords come
from the signatures, so a new one without a check fails here until it is checked or listed.
Then the reported cases, reset seeds, actions, setRAM, and a closed env that loadROM must not
bring back. Exit 0 pass, 77 skip (library not built), anything else fail.
"""
import inspect
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import pongrl, raises  # noqa: E402

from pongrl import ale as ale_module  # noqa: E402
from pongrl.atari_vector import make_vector  # noqa: E402

VALUES = (2**31, 2**32 + 2, 2**63, 2**64 + 5, -1, 1.5)
REFUSALS = (ValueError, OverflowError, TypeError)
# keywords that take something other than an int (a string, an enum, a float, or only None),
# for which 1.5 may be a ValueError rather than a TypeError
NOT_INTS = {
    "obs_type",
    "render_mode",
    "caps",
    "autoreset_mode",
    "game",
    "preset",
    "repeat_action_probability",
    "continuous_action_threshold",
    "max_episode_steps@make_vector",
}
U64 = 2**64


def made_seed(obj, v):
    """make(seed=v): the game's seed is v, and not what a 32-bit wrap would leave."""
    assert obj.ale._seed == v, (obj.ale._seed, v)
    again = pongrl.make("ALE/Pong-v5", seed=v)
    assert again.clone_state(True) == obj.clone_state(True)
    if v >= 2**32:
        assert pongrl.make("ALE/Pong-v5", seed=v % 2**32).clone_state(True) != obj.clone_state(True)


def env_preset_field(field):
    def check(obj, v):
        got = getattr(obj.ale._preset, field)  # the EnvPreset the C env was made from
        assert got == v, (field, got, v)
        if field == "max_steps":  # and the cap is not hit early, as 5 was for 2**64 + 5
            obj.reset(seed=0)
            assert not any(obj.step(0)[3] for _ in range(8))

    return check


def vec_seed(obj, v):
    assert obj._seed == v
    obs, _ = obj.reset()
    assert obs.shape[0] == obj.num_envs


def vec_cap(obj, v):
    obs, _ = obj.reset(seed=0)
    for _ in range(8):
        assert not obj.step(np.zeros(obj.num_envs, np.int64))[3].any()


def atari_cfg(field):
    def check(obj, v):
        assert getattr(obj._cfg, field) == v, (field, getattr(obj._cfg, field), v)

    return check


def atari_threads(obj, v):
    assert obj.num_threads >= 1  # 0 or less: one per core, no more than envs


def atari_runs(obj, v):
    obj.reset(seed=0)
    obj.step(np.zeros(obj.batch_size, np.int64))


def float_attribute(name):
    def check(obj, v):
        assert getattr(obj, name) == float(v)

    return check


def ale_seed(ale, v):
    ale.loadROM("pong")
    assert ale._seed == v % U64 and ale.getInt("random_seed") == v
    if v >= 2**32:
        other = pongrl.ALEInterface()
        other.setInt("random_seed", v % 2**32)
        other.loadROM("pong")
        assert other.cloneState(True) != ale.cloneState(True)


def ale_max_frames(ale, v):
    ale.loadROM("pong")
    assert ale._preset.max_frames == v
    for _ in range(8):
        ale.act(0)
    assert not ale.game_truncated()


SEEDS = (2**31, 2**32 + 2, 2**63)
ATARI_LEGAL = {
    "num_threads": ((-1,), atari_threads),
    "thread_affinity_offset": ((-1,), atari_runs),
    "max_num_frames_per_episode": ((2**31, 2**32 + 2), atari_cfg("max_frames")),
    "continuous_action_threshold": (VALUES[:4] + (-1, 1.5), float_attribute("continuous_action_threshold")),
}
# (where, keyword): (the values of VALUES that are legal there, what must then hold)
LEGAL = {
    ("make", "seed"): (SEEDS, made_seed),
    ("make", "max_num_frames_per_episode"): ((2**31, 2**32 + 2), env_preset_field("max_frames")),
    ("make", "max_episode_steps"): ((2**31, 2**32 + 2), env_preset_field("max_steps")),
    ("make_vec", "seed"): (SEEDS, vec_seed),
    ("make_vec", "max_num_frames_per_episode"): ((2**31, 2**32 + 2), vec_cap),
    ("make_vec", "max_episode_steps"): ((2**31, 2**32 + 2), vec_cap),
    ("ale", "random_seed"): (SEEDS + (-1,), ale_seed),
    ("ale", "max_num_frames_per_episode"): ((2**31, 2**32 + 2), ale_max_frames),
}
LEGAL.update({("AtariVectorEnv", k): v for k, v in ATARI_LEGAL.items()})
LEGAL.update({("make_vector", k): v for k, v in ATARI_LEGAL.items()})


def keywords(*fns, skip=()):
    """The keywords the functions' signatures name (not *args, **kwargs), in order."""
    out = []
    for fn in fns:
        for name, p in inspect.signature(fn).parameters.items():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name not in skip and name not in out:
                out.append(name)
    return out


def closing(obj):
    if isinstance(obj, pongrl.ALEInterface):
        obj._close()
    elif obj is not None:
        obj.close()


def walk(where, make, names):
    """Each keyword with each of VALUES: refused naming it, or LEGAL and as asked. The
    failures, one line each."""
    bad, checked = [], 0
    for name in names:
        legal, check = LEGAL.get((where, name), ((), None))
        for v in VALUES:
            is_legal = any(v == x and type(v) is type(x) for x in legal)
            try:
                obj = make(name, v)
            except REFUSALS as e:
                msg = str(e)
                if is_legal:
                    bad.append("%s(%s=%r) refused, but it is legal: %s" % (where, name, v, msg))
                elif name not in msg:
                    bad.append("%s(%s=%r): the message does not name %s: %s" % (where, name, v, name, msg))
                elif isinstance(v, float) and name not in NOT_INTS and "%s@%s" % (name, where) not in NOT_INTS:
                    if not isinstance(e, TypeError):
                        bad.append("%s(%s=%r): %s, not a TypeError: %s" % (where, name, v, type(e).__name__, msg))
                elif isinstance(v, int) and isinstance(e, TypeError) and name not in NOT_INTS:
                    bad.append("%s(%s=%r): a TypeError for an int out of range: %s" % (where, name, v, msg))
                checked += 1
                continue
            except Exception as e:  # NotImplementedError, RuntimeError...: not a refusal of the value
                bad.append("%s(%s=%r) raised %s: %s" % (where, name, v, type(e).__name__, e))
                continue
            try:
                if not is_legal:
                    bad.append("%s(%s=%r) accepted: not refused, and not listed as legal" % (where, name, v))
                else:
                    try:
                        check(obj, v)
                        checked += 1
                    except AssertionError as e:
                        bad.append("%s(%s=%r) accepted, but not as asked: %s" % (where, name, v, e))
            finally:
                closing(obj)
    return bad, checked


def test_every_keyword_refuses_what_c_cannot_hold():
    env_keys = keywords(pongrl.Env, skip=("self", "preset"))
    assert "max_episode_steps" in env_keys and "seed" in env_keys and "frameskip" in env_keys, env_keys
    assert inspect.signature(pongrl.make).parameters.keys() == {"id", "kwargs"}  # make is Env
    vec_keys = keywords(pongrl.make_vec, pongrl.VecEnv, skip=("self", "id", "preset", "kwargs"))
    atari_keys = keywords(pongrl.AtariVectorEnv, skip=("self",))
    vector_keys = keywords(make_vector) + [k for k in atari_keys if k not in keywords(make_vector)]
    assert "noop_max" in vector_keys and "num_envs" in vector_keys and "max_episode_steps" in vector_keys
    walks = {
        "make": (lambda k, v: pongrl.make("ALE/Pong-v5", **{k: v}), env_keys),
        "make_vec": (
            lambda k, v: pongrl.make_vec("ALE/Pong-v5", **dict({"num_envs": 1, "num_threads": 1}, **{k: v})),
            vec_keys,
        ),
        "AtariVectorEnv": (lambda k, v: pongrl.AtariVectorEnv(**dict({"num_threads": 1}, **{k: v})), atari_keys),
        "make_vector": (lambda k, v: make_vector(**dict({"num_threads": 1}, **{k: v})), vector_keys),
    }
    for where, name in LEGAL:  # a stale entry would hide nothing, but says the table is wrong
        names = list(ale_module.SETTINGS) if where == "ale" else walks[where][1]
        assert name in names, (where, name)
    failures, total = [], 0
    for where, (make, names) in walks.items():
        bad, n = walk(where, make, names)
        failures += bad
        total += n
        print("  %-15s %2d keywords x %d values: %d refused or legal as asked" % (where, len(names), len(VALUES), n))
    for setter in ("setInt", "setFloat", "setBool"):

        def set_one(key, v, setter=setter):
            a = pongrl.ALEInterface()
            getattr(a, setter)(key, v)
            return a

        bad, n = walk("ale", set_one, list(ale_module.SETTINGS))
        failures += [b.replace("ale(", "ALEInterface.%s(" % setter, 1) for b in bad]
        total += n
        print(
            "  %-15s %2d settings x %d values: %d refused or legal as asked"
            % (setter, len(ale_module.SETTINGS), len(VALUES), n)
        )
    assert not failures, "\n".join(["%d failures:" % len(failures)] + failures)


def frames_of(a, *actions):
    f0 = a.getFrameNumber()
    for x in actions:
        a.act(x)
    return a.getFrameNumber() - f0


def test_the_reported_cases():
    # max_episode_steps=2**64+5 truncated after 5 steps; 5 itself still does
    for where in (pongrl.make, lambda *a, **k: pongrl.make_vec(*a, 1, **k)):
        msg = raises(ValueError, where, "ALE/Pong-v5", max_episode_steps=2**64 + 5)
        assert "max_episode_steps" in msg and "2**63 - 1" in msg, msg
    e = pongrl.make("ALE/Pong-v5", max_episode_steps=5, repeat_action_probability=0.0)
    e.reset(seed=0)
    assert [e.step(0)[3] for _ in range(5)] == [False] * 4 + [True]
    # setInt("frame_skip", 2**32 + 2) played 2 frames, 2**31 none; 2 plays 2, 2**31 - 1 is legal
    a = pongrl.ALEInterface()
    for v in (2**32 + 2, 2**31, 0, -(2**32) + 2, np.uint64(2**63)):
        msg = raises(ValueError, a.setInt, "frame_skip", v)
        assert "frame_skip" in msg and "[1, 2**31 - 1]" in msg, msg
    assert "frame_skip" in raises(TypeError, a.setInt, "frame_skip", 2.0)
    assert a.getInt("frame_skip") == 1  # a refused value leaves the setting
    a.setInt("frame_skip", np.int32(2))
    a.loadROM("pong")
    assert frames_of(a, 0, 3, 4) == 6
    a.setInt("frame_skip", 2**31 - 1)
    assert a.getInt("frame_skip") == 2**31 - 1
    a.setString("frame_skip", "3")  # ALE's text form
    assert a.getInt("frame_skip") == 3
    assert "frame_skip" in raises(ValueError, a.setString, "frame_skip", str(2**32 + 2))
    # make_vector(noop_max=2**40) acted as 0
    msg = raises(ValueError, make_vector, 1, noop_max=2**40)
    assert "noop_max" in msg, msg
    starts = {}
    for n in (0, 30):
        v = make_vector(1, noop_max=n, num_threads=1)
        starts[n] = [int(v.reset(seed=s)[1]["episode_frame_number"][0]) for s in range(4)]
        v.close()
    assert max(starts[30]) > max(starts[0]), starts  # no-op starts there are


def test_reset_seeds_and_actions():
    e = pongrl.make("ALE/Pong-v5")
    for bad, exc in ((2**64 + 5, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)):
        assert "seed" in raises(exc, e.reset, seed=bad)
    e.reset(seed=2**64 - 1)
    e.reset(seed=np.uint64(2**64 - 1))
    for bad, exc in ((2**32 + 2, ValueError), (-1, ValueError), (1.5, ValueError)):
        raises(exc, e.step, bad)
    assert e.ale.act(2**64 + 2) == 0  # ALE's: an action outside the 18 is NOOP
    v = pongrl.make_vec("ALE/Pong-v5", 2, num_threads=1)
    assert "seed" in raises(ValueError, v.reset, seed=2**64 + 5)
    v.reset(seed=2**64 - 1)
    assert "seed" in raises(ValueError, v.reset, seed=[2**63, 0])  # int64_t, -1 meaning none
    assert "seed" in raises(TypeError, v.reset, seed=[1.5, 0])
    v.reset(seed=[2**63 - 1, None])
    mask = np.ones(2, bool)
    assert "seed" in raises(ValueError, v.reset, seed=2**63 - 1, options={"reset_mask": mask})  # seed + 1
    v.reset(seed=2**63 - 2, options={"reset_mask": mask})
    for bad in (np.array([2**32 + 2, 0], np.int64), np.array([0, 2**63], np.uint64), np.array([-1, 0])):
        raises(ValueError, v.step, bad)
    v.close()
    a = pongrl.AtariVectorEnv("pong", 2, num_threads=1)
    for bad, exc in ((2**31 - 1, ValueError), (2**31, ValueError), (2**32, ValueError), (-1, ValueError)):
        assert "seed" in raises(exc, a.reset, seed=bad)  # ALE's seeds are C ints; seed + 1 too
    for bad, exc in (
        (np.array([2**31, 0]), ValueError),
        (np.array([2**63, 0], np.uint64), ValueError),
        (np.array([-2, 0]), ValueError),
        (np.array([1.5, 0]), TypeError),
    ):
        assert "seed" in raises(exc, a.reset, seed=bad)
    a.reset(seed=2**31 - 2)
    a.reset(seed=np.array([2**31 - 1, -1]))  # -1: env 1 goes on with its stream
    for bad in (np.array([2**32 + 2, 0]), np.array([0, -1])):
        raises(ValueError, a.step, bad)
    a.close()


def test_set_ram_and_flavours():
    a = pongrl.ALEInterface()
    a.loadROM("pong")
    ram = a.getRAM()
    for index, value in ((2**32 + 3, 1), (-1, 1), (2**64 + 3, 1)):
        msg = raises(RuntimeError, a.setRAM, index, value)  # ALE's error
        assert "out of bounds" in msg and "[0, 127]" in msg, msg
        raises(ValueError, a.setRAM, index, value)
    for value in (2**32 + 2, 256, -1):
        raises(TypeError, a.setRAM, 3, value)  # ale-py's (pybind's uint8)
        assert "[0, 255]" in raises(ValueError, a.setRAM, 3, value)
    for index, value in ((3.0, 1), (True, 1), (3, 1.0), (3, True)):
        raises(TypeError, a.setRAM, index, value)
    assert np.array_equal(a.getRAM(), ram)
    a.setRAM(np.int64(3), np.uint8(7))
    assert a.getRAM()[3] == 7
    raises(TypeError, a.setMode, 1.0)
    raises(RuntimeError, a.setMode, 2**32 + 1)
    raises(TypeError, a.setDifficulty, 1.5)
    raises(RuntimeError, a.setDifficulty, 2**32 + 1)
    for kw in (dict(mode=1.0), dict(difficulty=2**32 + 1), dict(frameskip=(2, 2**31 + 1)), dict(frameskip=(0, 3))):
        raises(REFUSALS, pongrl.make, "ALE/Pong-v5", **kw)
    e = pongrl.make("Pong-v4", frameskip=(np.int64(2), 2**31), mode=np.int32(1))  # the largest hi
    assert e._frameskip == (2, 2**31)


def test_closed_stays_closed():
    """After env.close(), env.ale.loadROM("pong") revived the env; now every call, of the env or
    of its ale, says it is closed (Env.close's docstring)."""
    e = pongrl.make("ALE/Pong-v5")
    e.reset(seed=0)
    a = e.ale
    e.close()
    for fn, args in (
        (a.loadROM, ("pong",)),
        (a.setInt, ("frame_skip", 2)),
        (a.getInt, ("frame_skip",)),
        (a.setMode, (1,)),
        (a.reset_game, ()),
        (a.act, (0,)),
        (e.step, (0,)),
        (e.reset, ()),
    ):
        msg = raises(RuntimeError, fn, *args)
        assert "closed" in msg, (fn.__name__, msg)
    assert "closed" in raises(RuntimeError, e.step, 0)  # loadROM brought nothing back
    s = pongrl.ALEInterface()  # standalone: loadROM twice is ALE's reload, as before
    s.loadROM("pong")
    s.act(0)
    s.loadROM("pong")
    assert s.getFrameNumber() == 0


if __name__ == "__main__":
    tests = [
        test_every_keyword_refuses_what_c_cannot_hold,
        test_the_reported_cases,
        test_reset_seeds_and_actions,
        test_set_ram_and_flavours,
        test_closed_stays_closed,
    ]
    failed = 0
    for t in tests:
        try:
            t()
            print("ok", t.__name__)
        except Exception as e:  # an assertion, or an exception where a refusal was due
            failed += 1
            print("FAIL", t.__name__, "%s: %s" % (type(e).__name__, e))
    print("FAIL: %d of %d" % (failed, len(tests)) if failed else "OK: %d tests passed" % len(tests))
    sys.exit(1 if failed else 0)
