"""test_python_env.py: the Python binding (python/pongrl) runs Karpathy's own rollout code.

The seed (Ray's plot_pong_example notebook) plays with
    env = gym.make("GymV26Environment-v0", env_id="ALE/Pong-v5")
Here only that line changes, to pongrl.make("ALE/Pong-v5", seed=...); preprocess, rollout
and Model are Karpathy's, with np.float (removed from NumPy) replaced by np.float64.
Exit 0 pass, 77 skip (library not built), anything else fail.
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, pongrl, run  # noqa: E402

# Karpathy's code (000_*.txt): preprocess, rollout, Model and the actor's compute_gradient
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
from karpathy_model import D, H, Model, compute_gradient, preprocess, rollout  # noqa: E402

# ----------------------------------------------------------------------------
# Karpathy's rollout + gradient, on pongrl


def seed_episode(np_seed, env_seed):
    np.random.seed(np_seed)
    model = Model()
    env = pongrl.make("ALE/Pong-v5", seed=env_seed)  # the seed: gym.make("GymV26Environment-v0", env_id="ALE/Pong-v5")
    xs, hs, dlogps, drs = rollout(model, env)
    grad, _ = compute_gradient(model, xs, hs, dlogps, drs)  # the rest of Ray's actor
    epx, epr = np.vstack(xs), np.vstack(drs)
    info = env.state()
    env.close()
    return epx, epr, grad, info


def test_seed_rollout():
    epx, epr, grad, st = seed_episode(0, 0)
    n = len(epr)
    assert epx.shape == (n, D) and epx.dtype == np.float64
    assert set(np.unique(epx)) <= {-1.0, 0.0, 1.0}
    assert np.all(epx[0] == 0)
    assert set(np.unique(epr)) <= {-1.0, 0.0, 1.0}, np.unique(epr)
    assert epr.sum() == st["score_agent"] - st["score_cpu"]
    assert max(st["score_agent"], st["score_cpu"]) == 21
    assert st["terminated"] == 1
    assert grad["W1"].shape == (H, D) and grad["W2"].shape == (H,)
    assert np.all(np.isfinite(grad["W1"])) and np.all(np.isfinite(grad["W2"]))
    # a near-random policy loses: published random episodes last ~760-1110 steps
    assert 500 < n < 3000, n
    print(
        "seed rollout on pongrl ALE/Pong-v5: %d steps, score %+d (%d-%d)"
        % (n, int(epr.sum()), st["score_cpu"], st["score_agent"])
    )
    # same seeds, same episode, bit for bit
    epx2, epr2, grad2, _ = seed_episode(0, 0)
    assert np.array_equal(epr, epr2) and np.array_equal(epx, epx2)
    assert np.array_equal(grad["W1"], grad2["W1"]) and np.array_equal(grad["W2"], grad2["W2"])
    # only the env seed differs (sticky actions): a different episode
    epx3, epr3, _, _ = seed_episode(0, 1)
    assert len(epr3) != n or not np.array_equal(epx, epx3)


def test_shapes_and_obs80():
    env = pongrl.make("ALE/Pong-v5", seed=3, render_mode="rgb_array")
    obs, info = env.reset()
    assert obs.shape == (210, 160, 3) and obs.dtype == np.uint8
    assert info["lives"] == 0 and info["episode_frame_number"] == 0 and info["steps"] == 0
    rng = np.random.default_rng(0)
    terminated = truncated = False
    steps = frames = total = 0
    while not (terminated or truncated):
        grid = env.obs80()
        assert grid.shape == (80, 80) and grid.dtype == np.uint8
        assert np.array_equal(grid.astype(np.float64), preprocess(obs.copy()).reshape(80, 80))
        a = int(rng.integers(6))
        obs, reward, terminated, truncated, info = env.step(a)
        assert obs.shape == (210, 160, 3) and obs.dtype == np.uint8
        assert isinstance(reward, float) and reward in (-1.0, 0.0, 1.0)
        assert isinstance(terminated, bool) and isinstance(truncated, bool)
        steps += 1
        total += reward
        assert info["steps"] == steps
        assert info["episode_frame_number"] > frames
        frames = info["episode_frame_number"]
        assert total == info["score_agent"] - info["score_cpu"]
    assert terminated and not truncated
    assert frames <= 4 * steps and frames > 4 * (steps - 1)
    assert np.array_equal(env.obs80().astype(np.float64), preprocess(obs.copy()).reshape(80, 80))
    # render() is the current frame again
    assert np.array_equal(env.render(), obs)
    env.close()


def test_all_presets():
    assert pongrl.PRESETS == (
        "Pong-v0",
        "Pong-v4",
        "PongDeterministic-v0",
        "PongDeterministic-v4",
        "PongNoFrameskip-v0",
        "PongNoFrameskip-v4",
        "ALE/Pong-v5",
    )
    frames_per_step = {
        "Pong-v0": (2, 4),
        "Pong-v4": (2, 4),
        "PongDeterministic-v0": (4, 4),
        "PongDeterministic-v4": (4, 4),
        "PongNoFrameskip-v0": (1, 1),
        "PongNoFrameskip-v4": (1, 1),
        "ALE/Pong-v5": (4, 4),
    }
    for id in pongrl.PRESETS:
        env = pongrl.make(id, seed=1)
        assert env.action_space.n == 6
        assert env.unwrapped.get_action_meanings() == ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]
        obs, info = env.reset(seed=5)
        last = 0
        for t in range(50):
            obs, r, term, trunc, info = env.step(env.action_space.sample())
            assert obs.shape == (210, 160, 3) and obs.dtype == np.uint8
            lo, hi = frames_per_step[id]
            assert lo <= info["episode_frame_number"] - last <= hi, id
            last = info["episode_frame_number"]
        env.close()


def test_errors():
    try:
        pongrl.make("Breakout-v4")
        raise AssertionError("unknown id accepted")
    except ValueError as e:
        assert "ALE/Pong-v5" in str(e) and "PongNoFrameskip-v4" in str(e), str(e)
    env = pongrl.make("ALE/Pong-v5", seed=0)
    env.reset()
    for bad in (-1, 6, 7, 2.0, 2.5, "2", None, True, 2**40, -(2**63)):
        try:
            env.step(bad)
            raise AssertionError("bad action %r accepted" % (bad,))
        except ValueError:
            pass
    assert env.state()["steps"] == 0  # the bad actions did nothing
    env.step(np.int64(2))  # NumPy integers are actions
    env.step(np.uint8(3))
    for bad_seed, error in ((-1, ValueError), (2**64, ValueError), (1.5, TypeError), ("0", TypeError)):
        try:
            env.reset(seed=bad_seed)
            raise AssertionError("bad seed %r accepted" % (bad_seed,))
        except error:
            pass
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(0)
    # as ale-py (ALE's act() emulates nothing once the game is over): the same observation,
    # reward 0, the flags again, the counters unchanged
    for _ in range(2):
        o2, r2, term2, trunc2, info2 = env.step(3)
        assert np.array_equal(o2, obs) and r2 == 0.0 and term2 and not trunc2
        assert info2["episode_frame_number"] == info["episode_frame_number"]
    env.reset()
    env.step(0)
    env.close()
    env.close()  # twice is fine
    try:
        env.step(0)
        raise AssertionError("step on a closed env accepted")
    except RuntimeError:
        pass
    # a missing library is an ImportError that says what to do
    code = "import pongrl"
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PONGRL_LIB="/nonexistent/libpongrl.so", PYTHONPATH=os.path.join(ROOT, "python")),
    )
    assert r.returncode != 0 and "ImportError" in r.stderr and "make" in r.stderr, r.stderr


def test_seeding():
    def episode(env, seed=None, n=400):
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(7)
        out = [obs]
        for _ in range(n):
            obs, r, term, trunc, _ = env.step(int(rng.integers(6)))
            out.append(obs)
            if term or trunc:
                break
        return np.stack(out)

    a = pongrl.make("ALE/Pong-v5", seed=11)
    b = pongrl.make("ALE/Pong-v5", seed=11)
    e1, e2 = episode(a), episode(a)  # reset() without a seed: the next episode seed
    f1, f2 = episode(b), episode(b)
    assert np.array_equal(e1, f1) and np.array_equal(e2, f2)
    assert not np.array_equal(e1, e2)  # sticky actions drawn from a different stream
    assert np.array_equal(episode(a, seed=11), e1)  # reset(seed=s) == make(seed=s)
    assert not np.array_equal(episode(a, seed=12), e1)
    a.close()
    b.close()
    # with the context manager
    with pongrl.make("PongDeterministic-v4", seed=0) as c:
        g1 = episode(c, seed=1)
        g2 = episode(c, seed=2)
    assert np.array_equal(g1, g2)  # nothing random in Deterministic-v4


def test_real_trace_through_python():
    """A real ALE episode (tests/data/ale-real/v5-1, the real ROM) replayed through the Python
    API: every observation's crc32 and env.ram() equal the real getScreenRGB() and getRAM()."""
    import gzip
    import zlib

    data = os.path.join(ROOT, "tests", "data", "ale-real")
    actions = np.fromfile(os.path.join(data, "v5-1.actions.u8"), np.uint8)
    crc = np.fromfile(os.path.join(data, "v5-1.crc.u32"), "<u4")
    with gzip.open(os.path.join(data, "v5-1.ram.u8.gz")) as f:
        ram = np.frombuffer(f.read(), np.uint8).reshape(-1, 128)
    env = pongrl.make("PongNoFrameskip-v4", render_mode="rgb_array")
    obs, _ = env.reset(seed=0)
    u = env.unwrapped
    assert zlib.crc32(obs.tobytes()) == crc[0] and np.array_equal(u.ram(), ram[0])
    same = 0
    for t, a in enumerate(actions):
        obs, _, terminated, _, _ = env.step(int(a))
        same += zlib.crc32(obs.tobytes()) == crc[t + 1] and np.array_equal(u.ram(), ram[t + 1])
    assert same == len(actions), "%d of %d frames identical" % (same, len(actions))
    assert terminated
    ram_env = pongrl.make("ALE/Pong-ram-v5")
    obs, _ = ram_env.reset(seed=1)
    assert obs.shape == (128,) and obs.dtype == np.uint8 and np.array_equal(obs, ram[0])


def test_load():
    """pongrl.load: the shipped model's weights are its W1.npy/W2.npy; its probabilities on a
    game's frames are Karpathy's own policy_forward on Karpathy's preprocess; a checkpoint, its
    run directory and its export load the same network; a batch acts row by row."""
    import tempfile

    model_dir = os.path.join(ROOT, "models", "pong-v5")
    W1 = np.load(os.path.join(model_dir, "W1.npy"))
    W2 = np.load(os.path.join(model_dir, "W2.npy"))
    pol = pongrl.load(model_dir, seed=0)
    assert pol.algo == "pg" and pol.H == W1.shape[0]
    ref = pol.reference()  # the NumPy twin of the network the library plays
    assert np.array_equal(ref.w1t, W1.T) and np.array_equal(ref.w2, W2)
    seed = Model(W1, W2)
    env = pongrl.make("ALE/Pong-v5", render_mode="rgb_array")
    twin = pongrl.make("ALE/Pong-v5", obs_type="obs80")
    obs, _ = env.reset(seed=3)
    o80, _ = twin.reset(seed=3)
    pol.reset()
    prev, rgb_rows = None, []
    for t in range(300):
        cur = preprocess(obs)  # Karpathy's code
        x = cur - prev if prev is not None else np.zeros(D)
        prev = cur
        want, _ = seed.policy_forward(x)
        got = pol.probability(obs)
        assert abs(got - want) < 1e-12, (t, got, want)
        rgb_rows.append(got)
        a = 2 if t % 3 else 3
        obs, *_ = env.step(a)
        o80, *_ = twin.step(a)
    # obs80 observations give the same inputs; a batch of two rows acts as two policies
    pol.reset()
    twin.reset(seed=3)
    env.reset(seed=3)
    batch = pongrl.load(model_dir)
    o80, _ = twin.reset(seed=3)
    obs, _ = env.reset(seed=3)
    for t in range(50):
        p80 = pol.probability(o80)
        pb = batch.probability(np.stack([obs, obs]))
        assert abs(p80 - rgb_rows[t]) < 1e-12 and np.allclose(pb, rgb_rows[t], atol=1e-12, rtol=0)
        a = 2 if t % 3 else 3
        obs, *_ = env.step(a)
        o80, *_ = twin.step(a)
    assert pol.act(o80, greedy=True) in (2, 3) and set(batch.act(np.stack([obs, obs]))) <= {2, 3}
    # a checkpoint of a tiny run, its run directory and its export: the same network
    bin_ = os.environ.get("PONGRL_BIN") or os.path.join(ROOT, "build", "pongrl")
    with tempfile.TemporaryDirectory() as d:
        run_dir, out = os.path.join(d, "run"), os.path.join(d, "npy")
        subprocess.run(
            [
                bin_,
                "train",
                "--hidden",
                "3",
                "--batch-size",
                "1",
                "--iterations",
                "1",
                "--workers",
                "1",
                "--quiet",
                "--run-dir",
                run_dir,
            ],
            check=True,
            capture_output=True,
        )
        subprocess.run([bin_, "export", run_dir, "--out", out], check=True, capture_output=True)
        ckpt = os.path.join(run_dir, "checkpoints", "ckpt-00000001.bin")
        a, b, c = (pongrl.load(x).reference() for x in (run_dir, ckpt, out))
        assert a.H == 3 and np.array_equal(a.w1t, b.w1t) and np.array_equal(a.w1t, c.w1t)
        assert np.array_equal(np.load(os.path.join(out, "W1.npy")).T, b.w1t)
        for bad in (d, os.path.join(d, "nothing"), os.path.join(out, "W1.npy")):
            try:
                pongrl.load(bad)
                raise AssertionError("pongrl.load(%r) accepted" % bad)
            except ValueError as e:
                assert str(e).startswith("pongrl.load: "), str(e)


def test_abi_check():
    # the library's own table (src/env/abi.c) against _lib.py's hand-made ctypes mirrors
    import ctypes
    from pongrl import _lib

    table = _lib.abi_table(_lib.lib)
    assert table["sizeof EnvStep"] == ctypes.sizeof(_lib.EnvStep) and table["ENV_ERR_DONE"] == -3
    assert _lib.abi_mismatches(table) == []

    class EnvStep(ctypes.Structure):  # terminated and truncated swapped: same size
        _fields_ = [
            ("reward", ctypes.c_int),
            ("truncated", ctypes.c_bool),
            ("terminated", ctypes.c_bool),
            ("frames", ctypes.c_int),
        ]

    class VecOut(ctypes.Structure):  # a field short
        _fields_ = [(n, ctypes.c_void_p) for n in ("obs", "rewards", "terminated", "truncated")]

    bad = _lib.abi_mismatches(table, (EnvStep, VecOut), dict(_lib.CONSTANTS, ENV_ERR_DONE=-7))
    assert any(b.startswith("EnvStep.truncated") for b in bad), bad
    assert any(b.startswith("sizeof VecOut") for b in bad), bad
    assert any(b.startswith("VecOut.final_obs") for b in bad), bad
    assert any(b.startswith("ENV_ERR_DONE") for b in bad), bad


if __name__ == "__main__":
    sys.exit(
        run(
            [
                test_abi_check,
                test_load,
                test_seed_rollout,
                test_shapes_and_obs80,
                test_all_presets,
                test_errors,
                test_seeding,
                test_real_trace_through_python,
            ]
        )
    )
