"""test_ale_interface.py: pongrl.ALEInterface and env.unwrapped.ale behave as ale-py's.

A real ALE episode (tests/data/ale-real/random-1, recorded with ALE's own low level: stickiness
off, frame_skip 1, reset_game(), one act() a frame) replayed through the standalone
ALEInterface: every getRAM(), getScreenRGB() and getScreen() equal the real ones, every act()
returns the real reward, game_over() comes at the real end. Then the handle an env carries
(what Gymnasium's AtariPreprocessing and the common Atari wrappers read), ale-py's private
attributes, the settings, setRAM, loadROM's checks, state cloning (a restored state replays
identically), pickle and deepcopy (an identical, independent env), and register_ale_ids.
Exit 0 pass, 77 skip (library not built), anything else fail.
"""
import copy
import gzip
import os
import pickle
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, pongrl, raises, run  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "ale-real")
Action = pongrl.Action


def real(name):
    j = lambda ext: os.path.join(DATA, name + ext)  # noqa: E731
    actions = np.fromfile(j(".actions.u8"), np.uint8)
    rewards = np.fromfile(j(".rewards.i8"), np.int8)
    crc = np.fromfile(j(".crc.u32"), "<u4")
    with gzip.open(j(".ram.u8.gz")) as f:
        ram = np.frombuffer(f.read(), np.uint8).reshape(-1, 128)
    return actions, rewards, crc, ram


def test_standalone_replays_a_real_episode():
    actions, rewards, crc, ram = real("random-1")
    screen_crc = np.fromfile(os.path.join(DATA, "random-1.screen-crc.u32"), "<u4")
    ale = pongrl.ALEInterface()
    raises(RuntimeError, ale.act, 0)  # no ROM yet
    ale.setLoggerMode(pongrl.LoggerMode.Error)
    ale.setFloat("repeat_action_probability", 0.0)  # as the recorder
    ale.setInt("frame_skip", 1)
    ale.setInt("random_seed", 0)
    ale.loadROM("pong")
    ale.reset_game()
    minimal = ale.getMinimalActionSet()
    assert [a.name for a in minimal] == ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]
    assert [int(a) for a in minimal] == [0, 1, 3, 4, 11, 12]
    rgb = np.empty((210, 160, 3), np.uint8)
    screen = np.empty((210, 160), np.uint8)
    ram_buf = np.empty(128, np.uint8)

    def same(t):
        assert ale.getScreenRGB(rgb) is None and ale.getScreen(screen) is None
        assert ale.getRAM(ram_buf) is None
        return (
            zlib.crc32(rgb.tobytes()) == crc[t]
            and zlib.crc32(screen.tobytes()) == screen_crc[t]
            and np.array_equal(ram_buf, ram[t])
            and np.array_equal(ale.getRAM(), ram[t])
        )

    assert same(0)
    ok = got_rewards = 0
    for t, a in enumerate(actions):
        assert not ale.game_over()
        r = ale.act(minimal[a])
        got_rewards += r == rewards[t]
        ok += same(t + 1)
        assert ale.getEpisodeFrameNumber() == t + 1 and ale.getFrameNumber() == t + 1
    assert ok == len(actions) and got_rewards == len(actions), (ok, got_rewards, len(actions))
    assert ale.game_over() and ale.game_over(with_truncation=False) and not ale.game_truncated()
    # ALE: act() after the end emulates nothing
    assert ale.act(Action.RIGHT) == 0 and ale.getEpisodeFrameNumber() == len(actions)
    assert same(len(actions))
    ale.reset_game()
    assert same(0) and ale.getEpisodeFrameNumber() == 0 and ale.getFrameNumber() == len(actions)
    # grayscale: ALE's ColourPalette::convertGrayscale of the RGB screen
    g = ale.getScreenGrayscale()
    f = ale.getScreenRGB().astype(np.float64)
    assert np.array_equal(g, np.round(f[..., 0] * 0.2989 + f[..., 1] * 0.5870 + f[..., 2] * 0.1140))
    g1 = np.empty((210, 160, 1), np.uint8)
    ale.getScreenGrayscale(g1)
    assert np.array_equal(g1[..., 0], g)
    raises(TypeError, ale.getScreenRGB, np.empty((210, 160), np.uint8))
    raises(TypeError, ale.getScreenGrayscale, np.empty((210, 160), np.float32))


def test_flavours_replay_real_episodes():
    """Every real flavour trace (ALE: setMode(M), setDifficulty(D) after loadROM, reset_game(),
    one act() a frame) replayed through ALEInterface the same way, and through
    pongrl.make(mode=M, difficulty=D): every RAM, screen and reward the real one's."""
    d = os.path.join(DATA, "flavours")
    names = sorted(f[: -len(".actions.u8")] for f in os.listdir(d) if f.endswith(".actions.u8"))
    assert len(names) == 16, names
    for name in names:
        m, dd = int(name[-3]), int(name[-1])
        actions, rewards, crc, ram = real(os.path.join("flavours", name))
        ale = pongrl.ALEInterface()
        ale.setFloat("repeat_action_probability", 0.0)
        ale.loadROM("pong")
        ale.setMode(m)
        ale.setDifficulty(dd)
        ale.reset_game()
        assert ale.getEpisodeFrameNumber() == m  # ALE counts mode 1's SELECT press
        minimal = ale.getMinimalActionSet()
        ok = np.array_equal(ale.getRAM(), ram[0]) and zlib.crc32(ale.getScreenRGB().tobytes()) == crc[0]
        for t, a in enumerate(actions):
            ok &= ale.act(minimal[a]) == rewards[t]
            ok &= np.array_equal(ale.getRAM(), ram[t + 1])
            ok &= zlib.crc32(ale.getScreenRGB().tobytes()) == crc[t + 1]
            if not ok:
                raise AssertionError("%s: frame %d differs" % (name, t))
        assert ale.game_over(), name
        st = ale.cloneState()
        assert (st.getCurrentMode(), st.getDifficulty()) == (m, dd)
        if name.startswith("track"):  # the Gymnasium env with the keywords, as ale-py's
            env = pongrl.make("PongNoFrameskip-v4", mode=m, difficulty=dd, obs_type="ram")
            obs, info = env.reset(seed=0)
            assert np.array_equal(obs, ram[0]) and env.unwrapped._game_mode == m
            for t, a in enumerate(actions[:600]):
                obs, r, *_ = env.step(int(a))
                assert np.array_equal(obs, ram[t + 1]) and r == rewards[t], (name, t)
            c = copy.deepcopy(env)  # the flavour travels with a copy
            assert c.unwrapped._game_mode == m and same_steps(steps(c, actions[600:700]), steps(env, actions[600:700]))
            other = pongrl.make("PongNoFrameskip-v4", mode=1 - m, difficulty=dd)
            raises(RuntimeError, other.restore_state, env.clone_state())
    raises(ValueError, pongrl.make, "ALE/Pong-v5", mode=2)


def test_full_action_set_and_frame_skip():
    # the 18 actions do what a paddle obeys of them: a real episode replayed with the
    # full-set action of the same effect (UPRIGHT for RIGHT, DOWNLEFTFIRE for LEFTFIRE ...)
    actions, rewards, crc, ram = real("hold-2")
    ale = pongrl.ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM("pong")
    ale.reset_game()
    assert len(ale.getLegalActionSet()) == 18 and ale.getLegalActionSet()[17] == Action.DOWNLEFTFIRE
    alias = [Action.UP, Action.UPFIRE, Action.UPRIGHT, Action.DOWNLEFT, Action.UPRIGHTFIRE, Action.DOWNLEFTFIRE]
    for t, a in enumerate(actions[:500]):
        ale.act(alias[a] if t % 2 else int(ale.getMinimalActionSet()[a]))
    assert np.array_equal(ale.getRAM(), ram[500])
    # frame_skip 4 (a setting, read at loadROM): one act() is four frames
    ale.setInt("frame_skip", 4)
    assert ale.getInt("frame_skip") == 4
    ale.loadROM("pong")
    ale.reset_game()
    total = 0
    for k in range(100):
        total += ale.act(ale.getMinimalActionSet()[actions[4 * k]])  # hold-2 holds actions
    assert ale.getEpisodeFrameNumber() == 400


def test_settings_and_roms():
    ale = pongrl.ALEInterface()
    assert ale.getFloat("repeat_action_probability") == 0.25  # ALE's defaults
    assert ale.getInt("frame_skip") == 1 and ale.getInt("max_num_frames_per_episode") == 0
    ale.setInt("max_num_frames_per_episode", 50)
    ale.loadROM("pong")
    ale.reset_game()
    while not ale.game_over():
        ale.act(Action.NOOP)
    assert ale.game_truncated() and not ale.game_over(with_truncation=False)
    assert ale.getEpisodeFrameNumber() == 50
    raises(RuntimeError, ale.getInt, "no_such_setting")
    raises(ValueError, ale.setFloat, "repeat_action_probability", 1.5)
    assert ale.isSupportedROM("pong") == "pong"
    with tempfile.TemporaryDirectory() as d:
        fake = os.path.join(d, "pong.a26")
        with open(fake, "wb") as f:
            f.write(bytes(2048))
        assert ale.isSupportedROM(fake) is None
        msg = raises(RuntimeError, ale.loadROM, fake)
        assert "60e0ea3cbe0913d39803477945e9e5ec" in msg, msg
    raises(RuntimeError, ale.loadROM, "breakout")
    assert ale.getAvailableModes() == [0, 1] and ale.getAvailableDifficulties() == [0, 1, 2, 3]
    raises(RuntimeError, ale.setMode, 7)
    raises(RuntimeError, ale.setDifficulty, 9)
    assert ale.getScreenDims() == (210, 160) and ale.getRAMSize() == 128 and ale.lives() == 0


def test_env_handle():
    env = pongrl.make("ALE/Pong-v5", obs_type="grayscale", render_mode="rgb_array")
    ale = env.unwrapped.ale
    obs, info = env.reset(seed=3)
    buf = np.empty((210, 160), np.uint8)
    for t in range(60):
        obs, r, term, trunc, info = env.step(t % 6)
        ale.getScreenGrayscale(buf)
        assert np.array_equal(buf, obs) and np.array_equal(ale.getScreenRGB(), env.render())
        assert ale.getEpisodeFrameNumber() == info["episode_frame_number"]
        assert ale.getFrameNumber() == info["frame_number"] and ale.lives() == info["lives"] == 0
    assert ale.getFloat("repeat_action_probability") == 0.25
    assert ale.getInt("max_num_frames_per_episode") == 108000 and ale.getInt("random_seed") == 3
    # ale.act moves the env's game: one frame (ALE's frame_skip 1 under ale-py)
    before = info["episode_frame_number"]
    ale.act(Action.RIGHT)
    assert env.step(0)[4]["episode_frame_number"] == before + 1 + 4
    # setRAM: the agent's score (RAM $8E) to 20, then the next point ends the game
    ram = ale.getRAM()
    ale.setRAM(0x0E, 20)
    assert ale.getRAM()[0x0E] == 20 and np.array_equal(np.delete(ale.getRAM(), 0x0E), np.delete(ram, 0x0E))
    raises(RuntimeError, ale.setRAM, 128, 0)
    raises(TypeError, ale.setRAM, 0, 256)
    # ale-py's private attributes, with ale-py's meanings (registration.py's frameskip values)
    want = {
        "Pong-v0": (2, 5),
        "Pong-v4": (2, 5),
        "PongNoFrameskip-v0": 1,
        "PongNoFrameskip-v4": 1,
        "ALE/Pong-v5": 4,
        "PongDeterministic-v4": 4,
    }
    for id, fs in want.items():
        u = pongrl.make(id).unwrapped
        assert u._frameskip == fs, (id, u._frameskip)
        assert u._obs_type == "rgb" and u._game == "pong" and len(u._action_set) == 6
        assert u.get_action_meanings()[0] == "NOOP"
        assert pongrl.make(id, frameskip=1).unwrapped._frameskip == 1
    assert pongrl.make("ALE/Pong-v5", full_action_space=True).unwrapped._action_set == list(Action)
    assert pongrl.Env.metadata["render_fps"] == 30 == pongrl.make("Pong-v0").metadata["render_fps"]


def test_presets_as_ale_py():
    # ale-py's registration.py: every v0/v4 id and v5 cap 108,000 frames, none caps steps
    for id in pongrl.PRESETS:
        e = pongrl.make(id)
        assert e.ale.getInt("max_num_frames_per_episode") == 108000, id
        assert e._preset.max_steps == 0, id
        g = pongrl.make(id, caps="gym-0.21")
        if id in pongrl.GYM021_MAX_EPISODE_STEPS:
            assert g._preset.max_steps == pongrl.GYM021_MAX_EPISODE_STEPS[id] and g._preset.max_frames == 0
        else:
            assert g._preset.max_frames == 108000
    raises(ValueError, pongrl.make, "Pong-v0", caps="gym-0.26")
    e = pongrl.make("Pong-v0", caps="gym-0.21", max_episode_steps=5)
    e.reset(seed=0)
    out = [e.step(0) for _ in range(5)]
    assert out[-1][3] and not any(o[3] for o in out[:-1])


def test_seeds_info_and_actions():
    e = pongrl.make("ALE/Pong-v5")
    _, info = e.reset(seed=7)
    assert "seeds" in info and len(info["seeds"]) == 2  # ale-py: after a seeded reset only
    assert "seeds" not in e.reset()[1]
    try:
        import torch
    except ImportError:
        print("torch not importable: PyTorch actions not tested")
        return
    e.reset(seed=1)
    a = e.step(torch.tensor(2))
    b_env = pongrl.make("ALE/Pong-v5")
    b_env.reset(seed=1)
    b = b_env.step(2)
    assert np.array_equal(a[0], b[0])
    e.step(torch.tensor(3, dtype=torch.int32))
    for bad in (torch.tensor(2.0), torch.tensor([2]), torch.tensor(True), torch.tensor(6)):
        raises(ValueError, e.step, bad)


def steps(env, actions):
    return [env.step(int(a)) for a in actions]


def same_steps(a, b):
    return len(a) == len(b) and all(
        np.array_equal(x[0], y[0]) and x[1:4] == y[1:4] and x[4] == y[4] for x, y in zip(a, b)
    )


def test_clone_and_restore():
    acts = np.random.default_rng(5).integers(0, 6, 400)
    for id in ("Pong-v0", "ALE/Pong-v5", "PongNoFrameskip-v4"):
        env = pongrl.make(id, obs_type="grayscale")
        env.reset(seed=11)
        steps(env, acts[:150])
        env_frames_at_clone = env.ale.getEpisodeFrameNumber()
        with_rng = env.clone_state(include_rng=True)
        without = env.unwrapped.ale.cloneState()
        assert with_rng != without and with_rng == env.clone_state(include_rng=True)
        after = steps(env, acts[150:])
        env.restore_state(with_rng)  # the whole future again
        assert same_steps(steps(env, acts[150:]), after), id
        assert env.ale.getFrameNumber() == after[-1][4]["frame_number"]
        # ALEState: serialize round trip, pickle, the getters
        st = pongrl.ALEState(with_rng.serialize())
        assert st == with_rng and pickle.loads(pickle.dumps(st)) == with_rng
        assert st.getEpisodeFrameNumber() == env_frames_at_clone
        env.ale.restoreState(st)
        assert env.ale.getEpisodeFrameNumber() == st.getEpisodeFrameNumber()
        assert env.ale.getFrameNumber() == st.getFrameNumber()
        if id != "PongNoFrameskip-v4":  # stickiness or random frameskip: the stream matters
            steps(env, acts[:37])  # the env's stream moves on from the clone's
            env.restore_state(without)  # and stays where it is: another future
            assert not same_steps(steps(env, acts[150:]), after), id
        # the game without its stream is the same game: the same RAM right after the restore
        env.restore_state(without)
        ram = env.ale.getRAM()
        env.restore_state(with_rng)
        assert np.array_equal(ram, env.ale.getRAM())
    other = pongrl.make("Pong-v4")
    msg = raises(RuntimeError, other.restore_state, with_rng)
    assert "PongNoFrameskip-v4" not in msg and "Pong-v4" in msg, msg
    raises(ValueError, pongrl.ALEState, b"not a state")
    broken = bytearray(with_rng.serialize())
    broken[100] ^= 1
    raises(RuntimeError, env.restore_state, pongrl.ALEState(bytes(broken)))


def test_pickle_and_deepcopy():
    acts = np.random.default_rng(6).integers(0, 6, 2000)
    env = pongrl.make("Pong-v0", obs_type="ram", render_mode="rgb_array")
    env.reset(seed=4)
    steps(env, acts[:300])
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    ref = steps(env, acts[300:700])
    r1 = env.reset()  # the next episode's seed, from the stream
    s1 = [env.action_space.sample() for _ in range(5)]
    for c in copies:
        assert c is not env and c.ale is not env.ale
        assert same_steps(steps(c, acts[300:700]), ref)
        r2 = c.reset()
        assert np.array_equal(r1[0], r2[0])
        assert [c.action_space.sample() for _ in range(5)] == s1
        assert c.spec.id == env.spec.id and c.render_mode == "rgb_array"
    # independent: stepping a copy leaves the original where it was
    a = pongrl.make("ALE/Pong-v5")
    a.reset(seed=1)
    b = copy.deepcopy(a)
    steps(b, acts[:50])
    assert a.state()["steps"] == 0 and b.state()["steps"] == 50
    if pongrl.gymnasium is not None:  # through Gymnasium's wrappers too
        import gymnasium

        w = gymnasium.make("pongrl/Pong-v5")
        w.reset(seed=2)
        w2 = pickle.loads(pickle.dumps(w))
        assert np.array_equal(w.step(3)[0], w2.step(3)[0])


def test_wrapper_calls():
    """What Gymnasium's AtariPreprocessing and CleanRL's Atari wrappers call, in their order
    (tools/check_third_party.py runs the wrappers themselves where their sources are)."""
    for id in pongrl.PRESETS:
        env = pongrl.make(id, frameskip=1)
        u = env.unwrapped
        # AtariPreprocessing.__init__: the env must not skip frames; NOOP first
        assert getattr(u, "_frameskip", None) == 1 and u.get_action_meanings()[0] == "NOOP"
        # FireResetEnv: FIRE second, at least 3 actions
        assert u.get_action_meanings()[1] == "FIRE" and len(u.get_action_meanings()) >= 3
        buffers = [np.empty(env.observation_space.shape[:2], np.uint8) for _ in range(2)]
        env.reset(seed=0)
        noops = u.np_random.integers(1, 31)  # NoopResetEnv / AtariPreprocessing
        for _ in range(noops):
            obs, *_ = env.step(0)
        lives = u.ale.lives()  # EpisodicLifeEnv
        u.ale.getScreenGrayscale(buffers[0])
        twin = pongrl.make(id, frameskip=1, obs_type="grayscale")
        twin.reset(seed=0)
        for _ in range(noops):
            gobs, *_ = twin.step(0)
        assert np.array_equal(buffers[0], gobs) and lives == 0
        for t in range(4):  # AtariPreprocessing.step: 4 frames
            obs, r, term, trunc, info = env.step(2)
            if t == 2:
                u.ale.getScreenGrayscale(buffers[1])
            if t == 3:
                u.ale.getScreenGrayscale(buffers[0])
        assert u.ale.lives() == 0
        pooled = np.maximum(buffers[0], buffers[1])
        assert pooled.shape == (210, 160)
    if pongrl.gymnasium is None:
        return
    import gymnasium
    from gymnasium.wrappers import AtariPreprocessing

    stack = getattr(gymnasium.wrappers, "FrameStackObservation", None) or gymnasium.wrappers.FrameStack
    for gid in pongrl.gymnasium_ids():
        if "-ram" in gid:
            continue
        env = stack(AtariPreprocessing(gymnasium.make(gid, frameskip=1)), 4)
        obs, _ = env.reset(seed=0)
        for _ in range(100):
            obs, *_ = env.step(env.action_space.sample())
        assert np.asarray(obs).shape == (4, 84, 84), gid
    raises((ValueError, gymnasium.error.Error), AtariPreprocessing, gymnasium.make("pongrl/Pong-v5"))
    print("gymnasium %s: AtariPreprocessing + %s on every preset" % (gymnasium.__version__, stack.__name__))


def test_register_ale_ids():
    if pongrl.gymnasium is None:
        print("gymnasium not importable: register_ale_ids not tested")
        return
    import gymnasium

    reg = gymnasium.envs.registration.registry
    saved = {k: reg.pop(k) for k in list(reg) if k in pongrl.ENV_IDS}
    try:
        reg["PongNoFrameskip-v4"] = gymnasium.envs.registration.EnvSpec(
            id="PongNoFrameskip-v4", entry_point="ale_py.env:AtariEnv"
        )
        msg = raises(ValueError, pongrl.register_ale_ids)
        assert "PongNoFrameskip-v4" in msg and "override=True" in msg, msg
        assert "ALE/Pong-v5" not in reg
        assert pongrl.register_ale_ids(override=True) == pongrl.ENV_IDS
        env = gymnasium.make("ALE/Pong-v5")
        assert isinstance(env.unwrapped, pongrl.Env) and env.unwrapped.spec_id == "ALE/Pong-v5"
        assert gymnasium.make("PongNoFrameskip-v4").unwrapped._frameskip == 1
        pongrl.register_ale_ids()  # again: its own ids are no conflict
    finally:
        for k in pongrl.ENV_IDS:
            reg.pop(k, None)
        reg.update(saved)


if __name__ == "__main__":
    sys.exit(
        run(
            [
                test_standalone_replays_a_real_episode,
                test_flavours_replay_real_episodes,
                test_full_action_set_and_frame_skip,
                test_settings_and_roms,
                test_env_handle,
                test_presets_as_ale_py,
                test_seeds_info_and_actions,
                test_clone_and_restore,
                test_pickle_and_deepcopy,
                test_wrapper_calls,
                test_register_ale_ids,
            ]
        )
    )
