"""Python misuse that must end in a clear exception, never a crash or a wrong env: every object
with a C handle (ALEInterface, Env, VecEnv, AtariVectorEnv) refuses use after close(); close()
or a second step() from another thread is a RuntimeError or a wait, never a freed buffer under
a running step; env indices are Python ints in range (2**32 must not wrap round to env 0); a
restore_state of something that is not a state says so; vector envs refuse pickle and copy in
one line; pongrl.roms answers as ale-py's, and loadROM of a missing path says "no such file"."""
import copy
import gc
import os
import pickle
import sys
import threading
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, pongrl, raises, run, run_race  # noqa: E402


def vec():
    v = pongrl.make_vec("ALE/Pong-v5", 3, num_threads=1, obs_type="obs80")
    v.reset(seed=0)
    return v


def atari():
    v = pongrl.AtariVectorEnv("pong", 2, num_threads=1)
    v.reset(seed=0)
    return v


def test_use_after_close():
    e = pongrl.make("ALE/Pong-v5")
    e.reset(seed=0)
    a = e.ale
    e.close()
    for name, args in (
        ("getRAM", ()),
        ("setRAM", (3, 4)),
        ("getScreenRGB", ()),
        ("getScreen", ()),
        ("getScreenGrayscale", ()),
        ("reset_game", ()),
        ("act", (0,)),
        ("cloneState", ()),
        ("game_over", ()),
        ("lives", ()),
        ("getEpisodeFrameNumber", ()),
        ("getFrameNumber", ()),
        ("loadROM", ("pong",)),  # which once brought the closed env back
        ("setInt", ("frame_skip", 2)),
    ):
        msg = raises(RuntimeError, getattr(a, name), *args)
        assert "closed" in msg, (name, msg)
    for name, args in (
        ("step", (0,)),
        ("reset", ()),
        ("render", ()),
        ("frame", ()),
        ("ram", ()),
        ("obs80", ()),
        ("state", ()),
        ("clone_state", ()),
        ("restore_state", (None,)),
    ):
        assert "closed" in raises(RuntimeError, getattr(e, name), *args), name
    e.close()  # a second close is nothing
    a = pongrl.make("ALE/Pong-v5").ale  # the interface alone outlives its env
    gc.collect()
    assert a.act(0) == 0 and a.getRAM().shape == (128,)
    assert "no ROM" in raises(RuntimeError, pongrl.ALEInterface().getRAM)
    for v in (vec(), atari()):
        v.close()
        calls = [("reset", ()), ("step", (np.zeros(v.action_space.shape, np.int64),))]
        if isinstance(v, pongrl.VecEnv):
            calls += [("clone_state", (0,)), ("restore_state", (0, None)), ("frame", (0,))]
        else:
            calls += [("send", (np.zeros(2, np.int64),)), ("recv", ())]
        for name, args in calls:
            assert "closed" in raises(RuntimeError, getattr(v, name), *args), (v, name)
        v.close()


def test_another_thread_is_refused_not_crashed():
    """While one thread is inside a call, another's call is a RuntimeError at once and its
    close() waits for the call to end."""
    e = pongrl.make("ALE/Pong-v5")
    e.reset(seed=0)
    for obj, use, calls in (
        (e, e.ale._use, [(e.step, (0,)), (e.ale.getRAM, ()), (e.reset, ())]),
        (vec(), None, None),
        (atari(), None, None),
    ):
        if use is None:
            use = obj._use
            calls = [(obj.step, (np.zeros(obj.action_space.shape, np.int64),)), (obj.reset, ())]
        got = []

        def other():
            for fn, args in calls:
                try:
                    fn(*args)
                    got.append("ran")
                except RuntimeError as err:
                    got.append(str(err))

        with use():  # this thread is "inside a step"
            t = threading.Thread(target=other)
            t.start()
            t.join()
            assert all("another thread" in g for g in got), got
            closer = threading.Thread(target=obj.close)
            closer.start()
            time.sleep(0.2)
            assert closer.is_alive()  # close() waits for the running call
        closer.join(5)
        assert not closer.is_alive()
        assert "closed" in raises(RuntimeError, calls[0][0], *calls[0][1])


RACE = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
from pongrl_under_test import pongrl, race_close
makers = (lambda: pongrl.make_vec("ALE/Pong-v5", 32, num_threads=2), lambda: pongrl.make("ALE/Pong-v5"))
def open_(round):
    v = makers[round % 2]()
    v.reset(seed=round // 2)
    return v
def step(v, k):
    v.step(np.ones(v.num_envs, np.int64) * 2) if hasattr(v, "num_envs") else v.step(2)
print("survived", race_close(open_, step, rounds=24, calls=400))
"""


def test_close_and_steps_racing_in_threads():
    """Two threads stepping one env while a third closes it: the process survives (before the
    lock: a segfault in a third of the tries) and every error speaks."""
    for msg in run_race(RACE, timeout=60):
        assert msg in (
            "pongrl: the vector environment is closed",
            "pongrl: the environment is closed",
            "pongrl: the vector environment is in use by another thread",
            "pongrl: the environment is in use by another thread",
        ), msg


def test_indices_are_checked_ints():
    v = vec()
    s1 = v.clone_state(1)
    for bad in (2**32, 2**32 + 1, 3, -1, -(2**32), 2**64 + 1):
        raises(IndexError, v.clone_state, bad)
        raises(IndexError, v.restore_state, bad, s1)
        raises(IndexError, v.frame, bad)
    for bad in (1.5, 1.0, "0", None, True, np.float64(1)):
        raises(TypeError, v.clone_state, bad)
        raises(TypeError, v.restore_state, bad, s1)
    s0 = v.clone_state(np.int64(0))  # NumPy's integers are integers
    v.step(np.array([2, 3, 4]))
    before = v.clone_state(0)
    raises(IndexError, v.restore_state, 2**32, s1)  # env 0 untouched
    assert v.clone_state(0) == before and before != s0
    for junk in (b"junk", "junk", None, 7, s1.serialize()):
        msg = raises(TypeError, v.restore_state, 0, junk)
        assert "ALEState" in msg, msg
    v.restore_state(0, s0)
    assert v.clone_state(0) == s0
    v.close()


def test_vector_envs_refuse_pickle_in_one_line():
    for v in (vec(), atari()):
        for fn in (pickle.dumps, copy.copy, copy.deepcopy):
            msg = raises(TypeError, fn, v)
            assert "cannot be pickled or copied" in msg and "\n" not in msg, msg
        v.close()
    e = pongrl.make("ALE/Pong-v5")  # a single env pickles
    e.reset(seed=1)
    assert pickle.loads(pickle.dumps(e)).clone_state(True) == e.clone_state(True)


def test_interface_pickles():
    """An ALEInterface, alone or an env's, pickles and copies: the copy's game goes on as the
    original's (sticky actions' stream included) and is its own."""
    e = pongrl.make("ALE/Pong-v5", mode=1, difficulty=2)
    e.reset(seed=5)
    alone = pongrl.ALEInterface()
    alone.setFloat("repeat_action_probability", 0.5)
    alone.loadROM("pong")
    alone.setMode(1)
    for a in (e.ale, alone, pongrl.ALEInterface()):
        if a._h is None:  # no ROM yet: the settings travel
            a.setInt("frame_skip", 3)
            assert pickle.loads(pickle.dumps(a)).getInt("frame_skip") == 3
            continue
        for _ in range(50):
            a.act(3)
        for c in (pickle.loads(pickle.dumps(a)), copy.deepcopy(a)):
            assert c._h is not a._h and c.getFrameNumber() == a.getFrameNumber()
            assert c.cloneState(True) == a.cloneState(True)
            steps = [[(x.act(k % 6), x.getRAM().tobytes()) for k in range(300)] for x in (c, copy.deepcopy(a))]
            assert steps[0] == steps[1]
            c.reset_game()
            assert c.getEpisodeFrameNumber() == 1  # the pending mode 1 travelled
    assert alone.getEpisodeFrameNumber() > 1


def test_roms_as_ale_py():
    from pongrl import ALEInterface, roms

    assert roms.get_all_rom_ids() == ["pong"]
    ale = ALEInterface()
    ale.setInt("random_seed", 0)
    ale.loadROM(roms.get_rom_path("pong"))  # ale-py's usual loading line
    assert ale.getRAM().shape == (128,) and ale.getMinimalActionSet()[2] == pongrl.Action.RIGHT
    assert roms.Pong == roms.get_rom_path("pong")  # ale-py before 0.9
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert roms.get_rom_path("breakout") is None
    assert "not supported" in str(w[0].message)
    msg = raises(RuntimeError, ale.loadROM, "/no/such/dir/pong.bin")
    assert "no such file" in msg, msg
    msg = raises(RuntimeError, ale.loadROM, ROOT)
    assert "not Pong" in msg and "not a file" in msg, msg
    msg = raises(RuntimeError, ale.loadROM, os.path.join(ROOT, "Makefile"))
    assert "not Pong" in msg and "md5" in msg, msg
    assert ALEInterface.isSupportedROM("pong") == "pong"
    assert ALEInterface.isSupportedROM("/no/such") is None


def test_roms_dir_as_ale_py(tmp=os.path.join(ROOT, "build", "test-roms")):
    from pongrl import roms

    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, "pong.bin"), "wb") as f:
        f.write(b"not the game")
    os.environ["ALE_ROMS_DIR"] = tmp
    try:
        msg = raises(OSError, roms.get_rom_path, "pong")
        assert "md5" in msg
        os.remove(os.path.join(tmp, "pong.bin"))
        assert roms.get_rom_path("pong") == "pong"  # no file there: pongrl's own game
    finally:
        del os.environ["ALE_ROMS_DIR"]


if __name__ == "__main__":
    sys.exit(
        run(
            [
                test_use_after_close,
                test_another_thread_is_refused_not_crashed,
                test_close_and_steps_racing_in_threads,
                test_indices_are_checked_ints,
                test_vector_envs_refuse_pickle_in_one_line,
                test_interface_pickles,
                test_roms_as_ale_py,
                test_roms_dir_as_ale_py,
            ]
        )
    )
