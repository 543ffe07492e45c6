"""test_vecenv.py: pongrl.make_vec, the C vector env from Python.

Shapes and spaces for every obs type; each slot against a single pongrl.Env stepped by hand
(a preset without randomness, so both see the same game), SAME_STEP autoreset with
info["final_obs"] and the episode statistics; NEXT_STEP and DISABLED against SAME_STEP; reset
masks and seed lists; the same bits for 1 and 2 threads with sticky actions; seeding; copy
semantics; errors; pongrl.AtariVectorEnv's API (its values: test_ale_vector.py); with
gymnasium importable, Gymnasium's own vector wrappers (RecordEpisodeStatistics in every
mode, NormalizeObservation, FrameStackObservation...) and gym.make_vec; and a throughput
figure for the log. PONGRL_GYMNASIUM_DIRS (as test_gym_api.py) runs it once per tree.
Exit 0 pass, 77 skip (library not built), anything else fail.
"""
import os
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import pongrl, run  # noqa: E402

STEP_KEYS = ("lives", "frame_number", "episode_frame_number")  # ale-py's, every step


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return str(e)
    raise AssertionError("%s not raised" % exc.__name__)


def test_shapes_and_spaces():
    for obs_type, shape in pongrl.OBS_SHAPES.items():
        v = pongrl.make_vec("ALE/Pong-v5", 3, num_threads=2, obs_type=obs_type)
        assert v.num_envs == 3 and v.num_threads == 2
        assert v.single_observation_space.shape == shape
        assert v.observation_space.shape == (3,) + shape
        assert v.single_action_space.n == 6 and list(v.action_space.nvec) == [6, 6, 6]
        assert (
            str(v.metadata["autoreset_mode"]).endswith("SameStep")
            or getattr(v.metadata["autoreset_mode"], "value", None) == "SameStep"
        )
        obs, info = v.reset(seed=0)
        assert obs.shape == (3,) + shape and obs.dtype == np.uint8 and sorted(info) == sorted(STEP_KEYS)
        assert v.observation_space.contains(obs)
        obs, rew, term, trunc, info = v.step(v.action_space.sample())
        assert obs.shape == (3,) + shape and rew.shape == (3,) and rew.dtype == np.float64
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_
        v.close()
    v = pongrl.make_vec("ALE/Pong-ram-v5", 2)
    assert v.reset(seed=0)[0].shape == (2, 128)
    assert v.spec.id == "pongrl/Pong-ram-v5"
    v.close()
    v = pongrl.make_vec("ALE/Pong-v5", 5, num_threads=8)  # never more threads than envs
    assert v.num_threads == 5
    v.close()


def test_slots_match_single_envs():
    # PongDeterministic-v4 has no randomness: a slot and a single env see the same game.
    # A 120-frame cap makes an end every 30 steps.
    kw = dict(obs_type="obs80", max_num_frames_per_episode=120)
    n = 3
    v = pongrl.make_vec("PongDeterministic-v4", n, num_threads=2, **kw)
    singles = [pongrl.make("PongDeterministic-v4", **kw) for _ in range(n)]
    obs, _ = v.reset(seed=1)
    for i, e in enumerate(singles):
        o, _ = e.reset(seed=i)
        assert np.array_equal(obs[i], o)
    rng = np.random.default_rng(0)
    ends = 0
    for t in range(100):
        acts = rng.integers(0, 6, n)
        obs, rew, term, trunc, info = v.step(acts)
        for i, e in enumerate(singles):
            o, r, te, tr, inf = e.step(acts[i])
            assert rew[i] == r and term[i] == te and trunc[i] == tr
            if te or tr:
                ends += 1
                assert info["_final_obs"][i] and np.array_equal(info["final_obs"][i], o)
                ep = info["final_info"]["episode"]
                assert info["final_info"]["_episode"][i]
                assert ep["l"][i] == inf["steps"] == 30 and ep["f"][i] == 120
                assert ep["r"][i] == inf["score_agent"] - inf["score_cpu"]
                o, _ = e.reset()
            else:
                # ale-py's per-step keys in every step, the single env's values
                assert info["episode_frame_number"][i] == inf["episode_frame_number"], (t, i)
                assert info["lives"][i] == 0 and info["frame_number"][i] >= inf["episode_frame_number"]
                if "final_obs" in info:
                    assert info["final_obs"][i] is None and not info["_final_obs"][i]
            assert np.array_equal(obs[i], o), (t, i)
    assert ends == 3 * n


def test_threads_same_bits():
    def run(threads, obs_type):
        v = pongrl.make_vec("ALE/Pong-v5", 5, num_threads=threads, obs_type=obs_type, max_num_frames_per_episode=400)
        rng = np.random.default_rng(3)
        out = [v.reset(seed=42)[0]]
        for _ in range(150):
            obs, rew, term, trunc, info = v.step(rng.integers(0, 6, 5))
            out += [obs, rew, term, trunc, info["frame_number"], info["episode_frame_number"]]
            if "final_obs" in info:
                out += [x for x in info["final_obs"] if x is not None]
                out += [info["final_info"]["episode"]["r"], info["final_info"]["episode"]["l"]]
        v.close()
        return out

    for obs_type in pongrl.OBS_SHAPES:
        a, b = run(1, obs_type), run(2, obs_type)
        assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b)), obs_type


def test_seeding_and_copy():
    def trajectory(v, seed, steps=200):
        obs = [v.reset(seed=seed)[0].copy()] if seed is not None else [v.reset()[0].copy()]
        for t in range(steps):
            obs.append(v.step(np.full(4, t % 6))[0].copy())
        return np.stack(obs)

    v = pongrl.make_vec("ALE/Pong-v5", 4, num_threads=2, obs_type="obs80")
    a, b = trajectory(v, 5), trajectory(v, 5)
    assert np.array_equal(a, b)
    c = trajectory(v, 6)
    assert not np.array_equal(a, c)
    d = trajectory(v, None)  # the next seed in the stream, not 6 again
    assert not np.array_equal(c, d)
    # copy=True (default): fresh arrays; copy=False: the same buffers, overwritten
    o1 = v.step(np.zeros(4, np.int64))[0]
    o2 = v.step(np.zeros(4, np.int64))[0]
    assert o1 is not o2
    w = pongrl.make_vec("ALE/Pong-v5", 4, obs_type="obs80", copy=False)
    w.reset(seed=0)
    o1, r1, *_ = w.step([0, 1, 2, 3])
    o2, r2, *_ = w.step((0, 1, 2, 3))
    assert o1 is o2 and r1 is r2
    assert isinstance(v.np_random, np.random.Generator)


def test_errors():
    v = pongrl.make_vec("ALE/Pong-v5", 3, num_threads=2)
    raises(RuntimeError, v.step, [0, 0, 0])  # before reset
    v.reset(seed=0)
    before = v.frame(0)
    for bad in (
        [0, 6, 0],
        [0, -1, 0],
        [0, 0],
        [[0, 0, 0]],
        [0.0, 1.0, 2.0],
        [True, False, True],
        np.array([0, 2**33, 0]),
        "abc",
    ):
        raises(ValueError, v.step, bad)
    assert np.array_equal(v.frame(0), before)  # nothing was stepped
    msg = raises(ValueError, v.step, np.array([0, 0, 9], np.int32))
    assert "env 2" in msg, msg
    raises(IndexError, v.frame, 3)
    raises(ValueError, v.reset, seed=[1, 2])  # one seed per env
    raises(TypeError, v.reset, options={"reset_mask": [True, False, True]})
    raises(ValueError, v.reset, options={"reset_mask": np.ones(2, bool)})
    raises(ValueError, pongrl.make_vec, "ALE/Pong-v5", 2, autoreset_mode="Sometimes")
    raises(ValueError, pongrl.make_vec, "ALE/Pong-v5", 0)
    raises(ValueError, pongrl.make_vec, "ALE/Pong-v5", 2, num_threads=-1)
    raises(ValueError, pongrl.make_vec, "ALE/Pong-v5", 2, render_mode="human")
    raises(TypeError, pongrl.make_vec, "ALE/Pong-v5", 2, bogus=1)
    assert v.render() is None
    v.close()
    v.close()
    raises(RuntimeError, v.reset)
    r = pongrl.make_vec("ALE/Pong-v5", 2, render_mode="rgb_array")
    r.reset(seed=0)
    frames = r.render()
    assert len(frames) == 2 and frames[0].shape == (210, 160, 3)
    with pongrl.make_vec("ALE/Pong-v5", 2) as w:
        w.reset(seed=1)


def test_autoreset_modes_and_masks():
    kw = dict(obs_type="obs80", max_num_frames_per_episode=40)  # an end every 10 steps
    same = pongrl.make_vec("PongDeterministic-v4", 2, autoreset_mode="SameStep", **kw)
    nxt = pongrl.make_vec("PongDeterministic-v4", 2, autoreset_mode=pongrl.spaces.AutoresetMode.NEXT_STEP, **kw)
    off = pongrl.make_vec("PongDeterministic-v4", 2, autoreset_mode="Disabled", **kw)
    for v, m in ((same, "SameStep"), (nxt, "NextStep"), (off, "Disabled")):
        assert v.metadata["autoreset_mode"].value == m and v.autoreset_mode.value == m
        assert type(v).metadata["autoreset_mode"].value == "SameStep"  # per instance
        v.reset(seed=0)
    a = np.array([2, 3])
    for t in range(10):
        os_, rs, ts, trs, infs = same.step(a)
        on, rn, tn, trn, infn = nxt.step(a)
        assert (rs == rn).all() and (trs == trn).all() and trn.all() == (t == 9)
        assert np.array_equal(on, np.stack(infs["final_obs"]) if t == 9 else os_)
        assert sorted(infn) == sorted(STEP_KEYS)  # no final_obs in NEXT_STEP
        off.step(a)
    on, rn, tn, trn, _ = nxt.step(np.array([5, 5]))  # the reset step
    assert np.array_equal(on, os_) and not rn.any() and not tn.any() and not trn.any()
    raises(RuntimeError, off.step, a)
    o, _ = off.reset(options={"reset_mask": np.array([True, True])})
    assert np.array_equal(o, os_)
    # seed lists: equal seeds, equal games; a mask resets only its envs
    v = pongrl.make_vec("ALE/Pong-v5", 3, obs_type="obs80")
    o, _ = v.reset(seed=[4, 4, None])
    assert np.array_equal(o[0], o[1])
    for t in range(60):
        o, *_ = v.step(np.full(3, t % 6))
    assert np.array_equal(o[0], o[1])
    before = o.copy()
    o, _ = v.reset(seed=[9], options={"reset_mask": np.array([False, True, False])})
    assert np.array_equal(o[0], before[0]) and np.array_equal(o[2], before[2])
    for w in (same, nxt, off, v):
        w.close()


def test_atari_vector_api():
    e = pongrl.AtariVectorEnv("pong", 3, num_threads=2)
    assert e.single_observation_space.shape == (4, 84, 84) and e.observation_space.shape == (3, 4, 84, 84)
    assert e.single_action_space.n == 6 and e.batch_size == 3
    assert e.metadata["autoreset_mode"].value == "NextStep"
    obs, info = e.reset(seed=0)
    assert obs.shape == (3, 4, 84, 84) and obs.dtype == np.uint8
    assert sorted(info) == ["env_id", "episode_frame_number", "frame_number", "lives"]
    assert (obs[:, :3] == 0).all() and obs[:, 3].any()  # a fresh stack: one frame
    obs, rew, term, trunc, info = e.step(np.array([1, 2, 3]))
    assert rew.dtype == np.int32 and term.dtype == np.bool_ and list(info["env_id"]) == [0, 1, 2]
    raises(ValueError, e.step, np.array([0, 6, 0]))
    raises(ValueError, e.step, np.array([0, 0]))
    raises(ValueError, pongrl.AtariVectorEnv, "breakout", 2)
    raises(ValueError, pongrl.AtariVectorEnv, "pong", 2, frameskip=0)
    raises(NotImplementedError, pongrl.AtariVectorEnv, "pong", 2, continuous=True)
    raises(ValueError, pongrl.AtariVectorEnv, "pong", 2, img_height=300)
    e.close()
    f = pongrl.AtariVectorEnv(
        "pong", 4, batch_size=2, grayscale=False, stack_num=2, full_action_space=True, autoreset_mode="SameStep"
    )
    obs, info = f.reset(seed=1)
    assert obs.shape == (2, 2, 84, 84, 3) and list(info["env_id"]) == [0, 1]
    obs, *_, info = f.step(np.array([17, 0]))
    assert list(info["env_id"]) == [2, 3]
    raises(ValueError, f.reset, options={"reset_mask": np.array([True, False, False, False])})
    f.close()


def test_gymnasium_wrappers():
    gym = pongrl.gymnasium
    if gym is None:
        return
    try:
        from gymnasium.wrappers.vector import RecordEpisodeStatistics
    except ImportError:  # 0.29: only gymnasium.experimental has them
        e = gym.make_vec("pongrl/Pong-v5", num_envs=2, vectorization_mode="custom")
        assert isinstance(e.unwrapped, pongrl.AtariVectorEnv), e
        e.close()
        print(
            "gymnasium %s: make_vec('pongrl/Pong-v5', vectorization_mode='custom') is "
            "AtariVectorEnv (no gymnasium.wrappers.vector)" % gym.__version__
        )
        return
    # RecordEpisodeStatistics in every mode: its returns are the C env's
    for mode in ("NextStep", "SameStep", "Disabled"):
        v = pongrl.make_vec(
            "PongDeterministic-v4", 2, obs_type="obs80", autoreset_mode=mode, max_num_frames_per_episode=80
        )
        if hasattr(gym.vector, "AutoresetMode"):
            w = RecordEpisodeStatistics(v)
        else:  # before 1.1 the wrapper knows NEXT_STEP only
            if mode != "NextStep":
                continue
            w = RecordEpisodeStatistics(v)
        w.reset(seed=0)
        ends = 0
        for t in range(45):
            if mode == "Disabled" and t and t % 20 == 0:
                w.reset(options={"reset_mask": np.ones(2, bool)})
            _, r, te, tr, info = w.step(np.array([2, 3]))
            if "episode" in info:
                ends += int(info["_episode"].sum())
                # Gymnasium's wrapper counts NEXT_STEP-style whatever the mode, so under
                # SAME_STEP its later episodes come out one step short (its limitation; our
                # own count is in info["final_info"]["episode"])
                if mode != "SameStep" or ends <= 2:
                    assert (info["episode"]["l"][info["_episode"]] == 20).all(), (mode, t, info["episode"])
        assert ends >= 2, (mode, ends)
        w.close()
    # the observation wrappers that ask for NEXT_STEP, on gym.make_vec's AtariVectorEnv
    e = gym.make_vec("pongrl/Pong-v5", num_envs=2, vectorization_mode="vector_entry_point")
    assert isinstance(e.unwrapped, pongrl.AtariVectorEnv), e
    assert e.unwrapped.autoreset_mode.value == "NextStep"
    names = ("NormalizeObservation", "TransformObservation", "DtypeObservation", "RecordEpisodeStatistics")
    wrapped = []
    for name in names:
        cls = getattr(gym.wrappers.vector, name, None)
        if cls is None:
            continue
        if name == "TransformObservation":
            e = cls(e, lambda o: o, e.observation_space)
        elif name == "DtypeObservation":
            e = cls(e, np.float32)
        else:
            e = cls(e)
        wrapped.append(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.reset(seed=0)
        for t in range(5):
            e.step(np.array([1, 2]))
    e.close()
    print("gymnasium %s: vector wrappers %s on gym.make_vec('pongrl/Pong-v5')" % (gym.__version__, ", ".join(wrapped)))


def test_gymnasium_versions():
    """The whole file once more per tree of PONGRL_GYMNASIUM_DIRS."""
    dirs = [d for d in os.environ.get("PONGRL_GYMNASIUM_DIRS", "").split(":") if d]
    if not dirs or os.environ.get("PONGRL_GYMNASIUM_CHILD"):
        return
    for d in dirs:
        path = os.pathsep.join([d] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
        r = subprocess.run(
            [sys.executable, os.path.abspath(__file__)],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=path, PONGRL_GYMNASIUM_CHILD="1"),
        )
        assert r.returncode == 0, "with %s:\n%s%s" % (d, r.stdout, r.stderr)
        print("  " + ([x for x in r.stdout.splitlines() if x.startswith("gymnasium ")] or [d + ": no make_vec"])[0])


def test_throughput_figure():
    """Prints agent steps/s (obs80, 256 envs, 2 threads, copy=False); asserts only that the
    threads do not stall (the ~1 ms a step that pure spinning cost on a busy machine)."""
    v = pongrl.make_vec("ALE/Pong-v5", 256, num_threads=2, obs_type="obs80", copy=False)
    v.reset(seed=0)
    acts = np.random.default_rng(0).integers(0, 6, (8, 256)).astype(np.int32)
    for k in range(10):
        v.step(acts[k % 8])
    best = 0.0
    for rep in range(3):
        t0 = time.perf_counter()
        for k in range(200):
            v.step(acts[k % 8])
        best = max(best, 200 * 256 / (time.perf_counter() - t0))
    print("make_vec obs80, 256 envs, 2 threads: %.2f M agent steps/s" % (best / 1e6))
    assert best > 250e3, best


def _real_trace(name):
    import gzip

    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "ale-real", "flavours")
    actions = np.fromfile(os.path.join(d, name + ".actions.u8"), np.uint8)
    rewards = np.fromfile(os.path.join(d, name + ".rewards.i8"), np.int8)
    with gzip.open(os.path.join(d, name + ".ram.u8.gz")) as f:
        ram = np.frombuffer(f.read(), np.uint8).reshape(-1, 128)
    return actions, rewards, ram


def test_flavours_replay_real_episodes():
    """mode=/difficulty= in the vector env: real ALE traces of two flavours (tests/data/
    ale-real/flavours, one act() a frame, stickiness off) played in every slot of a vector env
    of PongNoFrameskip-v4 with obs_type="ram": every RAM row and reward the real one's."""
    for name in ("random-m1d3", "random-m0d2"):
        m, d = int(name[-3]), int(name[-1])
        actions, rewards, ram = _real_trace(name)
        v = pongrl.make_vec(
            "PongNoFrameskip-v4", 2, num_threads=2, obs_type="ram", mode=m, difficulty=d, autoreset_mode="Disabled"
        )
        obs, _ = v.reset(seed=0)
        assert (obs == ram[0]).all(), name
        for t, a in enumerate(actions):
            obs, r, term, trunc, _ = v.step(np.array([a, a]))
            assert (obs == ram[t + 1]).all() and (r == rewards[t]).all(), (name, t)
        assert term.all(), name
        v.close()
    raises(ValueError, pongrl.make_vec, "ALE/Pong-v5", 2, mode=2)
    raises(ValueError, pongrl.make_vec, "ALE/Pong-v5", 2, difficulty=4)


def test_clone_and_restore_one_env():
    """clone_state(i)/restore_state(i, s): a state cloned with its random stream and restored
    into another slot (and into a single pongrl.Env) replays what followed the clone, sticky
    actions included; the restored slot's episode statistics go on from the restored episode."""
    rng = np.random.default_rng(3)
    v = pongrl.make_vec("ALE/Pong-v5", 3, num_threads=2, obs_type="ram", mode=1, difficulty=1)
    v.reset(seed=5)
    for _ in range(150):
        v.step(rng.integers(0, 6, 3))
    s = v.clone_state(0, include_rng=True)
    actions = rng.integers(0, 6, (400, 3))
    after = []
    for a in actions:
        obs, r, term, trunc, info = v.step(a)
        after.append((obs[0].copy(), r[0], term[0]))
    v.restore_state(2, s)
    for t, a in enumerate(actions):
        obs, r, term, trunc, info = v.step(np.array([a[1], a[2], a[0]]))
        assert (obs[2] == after[t][0]).all() and r[2] == after[t][1] and term[2] == after[t][2], t
    single = pongrl.make("ALE/Pong-v5", obs_type="ram", mode=1, difficulty=1)
    single.reset(seed=9)
    single.restore_state(s)
    for t, a in enumerate(actions):
        obs, r, term, trunc, info = single.step(int(a[0]))
        assert (obs == after[t][0]).all() and r == after[t][1], t
        if term:
            break
    other = pongrl.make_vec("ALE/Pong-v5", 1, obs_type="ram")  # the default flavour
    other.reset(seed=0)
    raises(RuntimeError, other.restore_state, 0, s)
    raises(IndexError, v.clone_state, 3)
    v.close()
    other.close()


if __name__ == "__main__":
    sys.exit(
        run(
            [
                test_gymnasium_versions,
                test_shapes_and_spaces,
                test_slots_match_single_envs,
                test_threads_same_bits,
                test_seeding_and_copy,
                test_errors,
                test_autoreset_modes_and_masks,
                test_flavours_replay_real_episodes,
                test_clone_and_restore_one_env,
                test_atari_vector_api,
                test_gymnasium_wrappers,
                test_throughput_figure,
            ]
        )
    )
