#!/usr/bin/env python3
"""check_third_party.py: pongrl under real third-party code, where its sources are present.
Nothing here is fetched or installed; point it at source trees you have:

    /usr/bin/python3 tools/check_third_party.py --gymnasium /work/ext/gym-v0.29.1 \\
        --gymnasium /work/ext/gym-head --cleanrl /work/ext/cleanrl [--ppo-steps 4096]

--gymnasium DIR (repeatable): a Gymnasium source tree holding gymnasium/ (e.g. from
`git archive v0.29.1 gymnasium` of its repository). For each, in a process of its own:
Gymnasium's AtariPreprocessing (frame_skip=4, noop_max=30, 84x84 grayscale) and
FrameStackObservation (FrameStack before 1.0) over every preset (the pixel ids: the wrapper
sizes its screen buffers from the observation, so a RAM id fails there under ale-py too), made with frameskip=1 as
AtariPreprocessing asks, and by ALE's own id after pongrl.register_ale_ids(); and the refusal,
as ale-py's, of an env that skips frames itself.

--cleanrl DIR: a CleanRL checkout (cleanrl/ppo_atari.py, cleanrl_utils/atari_wrappers.py).
Its Atari wrappers (NoopReset, MaxAndSkip, EpisodicLife, FireReset, ClipReward) as its
make_env stacks them, on the first --gymnasium tree; then cleanrl/ppo_atari.py itself,
unchanged, with the id `pongrl:pongrl/PongNoFrameskip-v4` (Gymnasium's module:id form imports
pongrl) on the first --gymnasium tree that is 0.29 (CleanRL pins 0.29.1; 1.x renamed the
wrappers it uses). Its imports tyro and torch.utils.tensorboard are not in Debian: when they do
not import, this script writes two stand-ins to a temporary directory (tyro.cli: --kebab-case
flags into the dataclass; a SummaryWriter that prints the episodic returns) and says so.
Needs torch (Debian's python3-torch) and cv2 (python3-opencv) for the CleanRL part.

--rom PATH: a real Pong ROM file (ALE's repository holds it at commit 6c750e84,
src/python/roms/pong.bin): pongrl.ALEInterface().loadROM(PATH) takes it (its md5 checked) and
plays the same game as loadROM("pong"); a copy with one byte changed is refused.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# ----------------------------------------------------------------------------
# run inside a child whose sys.path holds one Gymnasium tree


def atari_preprocessing():
    import numpy as np
    import gymnasium as gym
    import pongrl
    from gymnasium.wrappers import AtariPreprocessing

    stack = getattr(gym.wrappers, "FrameStackObservation", None)
    stack_name = "FrameStackObservation"
    if stack is None:
        stack, stack_name = gym.wrappers.FrameStack, "FrameStack"
    print("gymnasium %s: AtariPreprocessing + %s" % (gym.__version__, stack_name))
    for gid in pongrl.gymnasium_ids():
        if "-ram" in gid:  # it reads screens into buffers shaped as the observation
            continue
        env = stack(AtariPreprocessing(gym.make(gid, frameskip=1), noop_max=30, frame_skip=4, screen_size=84), 4)
        obs, info = env.reset(seed=0)
        total, n, ends = 0.0, 0, 0
        for t in range(2000):
            obs, r, term, trunc, info = env.step(env.action_space.sample())
            total += r
            n += 1
            if term or trunc:
                ends += 1
                obs, info = env.reset()
        arr = np.asarray(obs)
        assert arr.shape == (4, 84, 84) and arr.dtype == np.uint8, arr.shape
        print(
            "  %-26s obs %s %s, 2000 steps, reward %+.0f, %d episode ends, frame %d"
            % (gid, arr.shape, arr.dtype, total, ends, info["episode_frame_number"])
        )
        env.close()
    try:
        AtariPreprocessing(gym.make("pongrl/Pong-v5"))
        raise AssertionError("AtariPreprocessing accepted an env with frameskip 4")
    except (ValueError, gym.error.Error) as e:
        print("  pongrl/Pong-v5 (frameskip 4) refused, as ale-py's ALE/Pong-v5: %s" % e)
    pongrl.register_ale_ids()
    for gid in ("ALE/Pong-v5", "PongNoFrameskip-v4"):
        kw = {} if "NoFrameskip" in gid else {"frameskip": 1}
        env = stack(AtariPreprocessing(gym.make(gid, **kw)), 4)
        obs, _ = env.reset(seed=1)
        for _ in range(500):
            obs, *_ = env.step(env.action_space.sample())
        print("  %s (register_ale_ids) %s: obs %s" % (gid, kw or "", np.asarray(obs).shape))


def cleanrl_wrappers(cleanrl_dir):
    import numpy as np
    import gymnasium as gym

    sys.path.insert(0, cleanrl_dir)
    from cleanrl_utils.atari_wrappers import ClipRewardEnv, EpisodicLifeEnv, FireResetEnv, MaxAndSkipEnv, NoopResetEnv
    import pongrl  # noqa: F401

    # cleanrl/ppo_atari.py's make_env, up to the observation wrappers
    env = gym.make("pongrl/PongNoFrameskip-v4")
    env = gym.wrappers.RecordEpisodeStatistics(env)
    env = NoopResetEnv(env, noop_max=30)
    env = MaxAndSkipEnv(env, skip=4)
    env = EpisodicLifeEnv(env)
    if "FIRE" in env.unwrapped.get_action_meanings():
        env = FireResetEnv(env)
    env = ClipRewardEnv(env)
    obs, _ = env.reset(seed=0)
    rewards, episodes, t = [], [], 0
    while not episodes:
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        rewards.append(r)
        t += 1
        if "episode" in info:
            episodes.append(info["episode"])
        if term or trunc:
            obs, _ = env.reset()
    ep = episodes[0]
    print(
        "gymnasium %s: CleanRL's NoopReset, MaxAndSkip, EpisodicLife, FireReset, ClipReward on "
        "pongrl/PongNoFrameskip-v4: obs %s, one whole game in %d agent steps, return %s, "
        "length %s, clipped rewards %s"
        % (
            gym.__version__,
            np.asarray(obs).shape,
            t,
            float(np.asarray(ep["r"]).item()),
            int(np.asarray(ep["l"]).item()),
            sorted(set(rewards)),
        )
    )


# ----------------------------------------------------------------------------
# stand-ins for ppo_atari.py's imports that Debian lacks

TYRO = '''"""Stand-in for tyro (not in Debian): tyro.cli(Args) reads --kebab-case flags."""
import argparse, dataclasses, typing

def cli(cls):
    p = argparse.ArgumentParser()
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        t = hints[f.name]
        if t is bool:
            p.add_argument("--" + f.name.replace("_", "-"), type=lambda s: s.lower() in ("1", "true", "yes"),
                           default=f.default)
        else:
            conv = t if t in (int, float, str) else (float if f.default is None else type(f.default))
            p.add_argument("--" + f.name.replace("_", "-"), type=conv, default=f.default)
    return cls(**vars(p.parse_args()))
'''
SITECUSTOMIZE = '''"""Stand-in for torch.utils.tensorboard (tensorboard is not in Debian)."""
import sys, types

class SummaryWriter:
    def __init__(self, *a, **k):
        pass
    def add_text(self, *a, **k):
        pass
    def add_scalar(self, tag, value, step):
        if tag in ("charts/episodic_return", "charts/SPS", "losses/approx_kl"):
            print("[SummaryWriter] %s=%s at global_step=%d" % (tag, value, step), flush=True)
    def close(self):
        pass

m = types.ModuleType("torch.utils.tensorboard")
m.SummaryWriter = SummaryWriter
sys.modules["torch.utils.tensorboard"] = m
'''


def check_rom(path):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import numpy as np
    import pongrl
    import hashlib

    with open(path, "rb") as f:
        data = f.read()
    print("ROM %s: %d bytes, md5 %s" % (path, len(data), hashlib.md5(data).hexdigest()))
    rams = []
    for rom in (path, "pong"):
        ale = pongrl.ALEInterface()
        ale.loadROM(rom)
        ale.reset_game()
        for t in range(500):
            ale.act(ale.getMinimalActionSet()[t // 7 % 6])
        rams.append(ale.getRAM())
    print("  loadROM(%r) and loadROM('pong'): the same RAM after 500 act(): %s" % (path, np.array_equal(*rams)))
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "pong-1.bin")
        with open(bad, "wb") as f:
            f.write(data[:-1] + bytes([data[-1] ^ 1]))
        try:
            pongrl.ALEInterface().loadROM(bad)
            print("  a copy with one byte changed: accepted (wrong)")
            return 1
        except RuntimeError as e:
            print("  a copy with one byte changed: refused: %s" % e)
    return 0 if np.array_equal(*rams) else 1


def run_ppo_atari(gym_dir, cleanrl_dir, steps):
    shim = tempfile.mkdtemp(prefix="pongrl-shims-")
    env = dict(os.environ)
    base = [gym_dir, os.path.join(ROOT, "python"), cleanrl_dir]
    needed = []
    probe = (
        lambda mod: subprocess.run(
            [sys.executable, "-c", "import " + mod],  # noqa: E731
            env=dict(env, PYTHONPATH=os.pathsep.join(base)),
            capture_output=True,
        ).returncode
        == 0
    )
    if not probe("tyro"):
        with open(os.path.join(shim, "tyro.py"), "w") as f:
            f.write(TYRO)
        needed.append("tyro")
    if not probe("torch.utils.tensorboard"):
        with open(os.path.join(shim, "sitecustomize.py"), "w") as f:
            f.write(SITECUSTOMIZE)
        needed.append("torch.utils.tensorboard")
    if needed:
        print("stand-ins written to %s for: %s" % (shim, ", ".join(needed)))
    cmd = [
        sys.executable,
        os.path.join(cleanrl_dir, "cleanrl", "ppo_atari.py"),
        "--env-id",
        "pongrl:pongrl/PongNoFrameskip-v4",
        "--total-timesteps",
        str(steps),
        "--num-envs",
        "8",
        "--num-steps",
        "128",
        "--cuda",
        "False",
        "--seed",
        "1",
    ]
    print(
        "$ PYTHONPATH=%s %s"
        % (
            os.pathsep.join([shim] + base),
            " ".join(cmd[0:1] + [os.path.relpath(c) if os.path.exists(c) else c for c in cmd[1:]]),
        ),
        flush=True,
    )
    with tempfile.TemporaryDirectory() as cwd:  # its runs/ directory goes there
        r = subprocess.run(
            cmd, cwd=cwd, env=dict(env, PYTHONPATH=os.pathsep.join([shim] + base)), capture_output=True, text=True
        )
    lines = (r.stdout + r.stderr).splitlines()
    for line in lines[:12] + (["..."] if len(lines) > 24 else []) + lines[max(12, len(lines) - 12) :]:
        print("  " + line)
    print("ppo_atari.py exit status %d" % r.returncode)
    return r.returncode


# ----------------------------------------------------------------------------


def child(gym_dir, what, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([gym_dir, os.path.join(ROOT, "python")]))
    code = "import sys; sys.path.insert(0, %r); import check_third_party as c; c.%s(*%r)" % (
        os.path.dirname(os.path.abspath(__file__)),
        what,
        args,
    )
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        sys.stdout.write(r.stderr)
    return r.returncode


def gym_version(gym_dir):
    with open(os.path.join(gym_dir, "gymnasium", "__init__.py")) as f:
        for line in f:
            if line.startswith("__version__"):
                return line.split("=")[1].strip().strip("\"'")
    return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gymnasium", action="append", default=[], metavar="DIR")
    ap.add_argument("--cleanrl", metavar="DIR")
    ap.add_argument("--ppo-steps", type=int, default=4096)
    ap.add_argument("--rom", metavar="PATH", help="a real Pong ROM file")
    a = ap.parse_args()
    if not a.gymnasium and not a.rom:
        print(
            "check_third_party: give at least one --gymnasium DIR (a tree holding gymnasium/) " "or --rom PATH",
            file=sys.stderr,
        )
        return 2
    for d in a.gymnasium + ([a.cleanrl] if a.cleanrl else []):
        if not os.path.isdir(d):
            print("check_third_party: %s is not a directory" % d, file=sys.stderr)
            return 2
    failed = 0
    if a.rom:
        failed += check_rom(a.rom) != 0
    for d in a.gymnasium:
        failed += child(d, "atari_preprocessing") != 0
    if a.cleanrl and a.gymnasium:
        failed += child(a.gymnasium[0], "cleanrl_wrappers", a.cleanrl) != 0
        old = [d for d in a.gymnasium if gym_version(d).startswith("0.29")]
        if old:
            failed += run_ppo_atari(old[0], a.cleanrl, a.ppo_steps) != 0
        else:
            print("ppo_atari.py not run: it needs Gymnasium 0.29 (give one with --gymnasium)")
    print("check_third_party: %s" % ("all passed" if not failed else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
