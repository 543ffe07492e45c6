#!/usr/bin/env python3
"""play_npy.py: a model that `pongrl export` wrote, played with NumPy alone on any Gymnasium
Pong env, from its RGB frames.

    build/pongrl export runs/ppo-s1 --out ppo-npy      # PPO: model.txt + ppo_*.npy (QR-DQN: qrdqn_*.npy); pg: W1/W2.npy
    python3 tools/play_npy.py ppo-npy --episodes 3                # pongrl/Pong-v5
    python3 tools/play_npy.py ppo-npy --env ALE/Pong-v5           # the real Atari (ale-py, its ROM)

--env is what gymnasium.make takes (default: pongrl/Pong-v5 when pongrl can be imported, else
ALE/Pong-v5 when ale-py can); the module that registers an id is imported for it (pongrl for
pongrl/..., from this checkout's python/ when it is not installed; ale_py for ALE/...), or
named as "module:id". The env must give RGB observations (210, 160, 3) (ale-py's and pongrl's
default); the network's outputs are matched to the env's actions by name
(env.unwrapped.get_action_meanings(): NOOP, RIGHT, LEFT), so full_action_space=True works too.
The forward passes are the learners' modules of python/pongrl/learners/ (docs/runs.md says the
same in words), found by python/pongrl/nets.py: both loaded from their paths as a package of
their own (load_nets), so that with another package's env nothing of pongrl's package door or C
library is imported.
"""
import argparse
import importlib
import importlib.util
import os
import sys

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")
PACKAGE_DIR = os.path.join(PYTHON_DIR, "pongrl")
# the module that registers each namespace of ids, and how to get it
REGISTRARS = {
    "pongrl": ("pongrl", "pip install ./python, or `make` in the pongrl repository"),
    "ALE": ("ale_py", "pip install ale-py"),
}


def load_nets(name="pongrl_nets"):
    """python/pongrl/nets.py (and the netbase.py and learners/ it imports) as the modules of a
    package called name whose __init__.py is never run: NumPy alone, no C library."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, os.path.join(PACKAGE_DIR, "__init__.py"), submodule_search_locations=[PACKAGE_DIR]
        )
        sys.modules[name] = importlib.util.module_from_spec(spec)  # not executed: the door stays shut
    return importlib.import_module(name + ".nets")


def import_module(name):
    """The module, or the reason it cannot be imported. pongrl is also looked for in this
    checkout (python/ beside tools/, its C library built by `make`)."""
    try:
        return importlib.import_module(name), None
    except ImportError as e:
        if name != "pongrl" or PYTHON_DIR in sys.path:
            return None, str(e)
    sys.path.insert(0, PYTHON_DIR)
    try:
        return importlib.import_module(name), None
    except ImportError as e:
        sys.path.remove(PYTHON_DIR)
        return None, str(e)


def env_id(requested):
    """The id for gymnasium.make, after importing the module that registers it; or exits with
    one line saying what is missing."""
    if requested is None:
        why = []
        for ns in ("pongrl", "ALE"):
            module, err = import_module(REGISTRARS[ns][0])
            if module is not None:
                return "%s/Pong-v5" % ns
            why.append("%s (%s: %s)" % (REGISTRARS[ns][0], REGISTRARS[ns][1], err))
        sys.exit(
            "play_npy: no Pong env to play: neither %s can be imported; or name one with --env" % " nor ".join(why)
        )
    module, _, id = requested.rpartition(":")
    if not module and "/" in id and id.split("/")[0] in REGISTRARS:
        module = REGISTRARS[id.split("/")[0]][0]
    if module:
        got, err = import_module(module)
        if got is None:
            how = dict(REGISTRARS.values()).get(module, "install it")
            sys.exit(
                "play_npy: --env %s needs the module %s, which cannot be imported (%s; %s)"
                % (requested, module, err, how)
            )
    return id


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", help="a folder that `pongrl export` wrote")
    ap.add_argument(
        "--env",
        default=None,
        help="a Gymnasium id, or module:id (default pongrl/Pong-v5, " "or ALE/Pong-v5 without pongrl)",
    )
    ap.add_argument("--episodes", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="episode e is reset with seed + e; actions sampled from seed")
    ap.add_argument("--greedy", action="store_true", help="the most likely action instead of a sample")
    ap.add_argument("--max-steps", type=int, default=0, help="end an episode after N steps (default: whole games)")
    ap.add_argument("--full-action-space", action="store_true", help="make the env with all 18 Atari actions")
    a = ap.parse_args()
    nets = load_nets()
    try:
        import gymnasium
    except ImportError as e:
        sys.exit("play_npy: needs gymnasium (pip install gymnasium): %s" % e)
    try:
        policy = nets.read_export(a.model, greedy=a.greedy, seed=a.seed)
    except (OSError, ValueError, KeyError) as e:
        sys.exit("play_npy: %s" % e)
    a.env = env_id(a.env)
    # gymnasium.error.Error: an unknown id or argument (a stand-in gymnasium may have none)
    make_errors = tuple(e for e in (getattr(getattr(gymnasium, "error", None), "Error", None),) if e)
    try:
        env = gymnasium.make(a.env, **({"full_action_space": True} if a.full_action_space else {}))
    except make_errors as e:
        sys.exit("play_npy: gymnasium.make(%r): %s" % (a.env, e))
    policy.use_action_meanings(env.unwrapped.get_action_meanings())
    print(
        "%s on %s (gymnasium %s), actions %s -> %s"
        % (policy, a.env, gymnasium.__version__, ",".join(policy.action_names), ",".join(map(str, policy.action_ids)))
    )
    scores = []
    for ep in range(a.episodes):
        obs, info = env.reset(seed=a.seed + ep)
        policy.reset()
        score, steps, done = 0.0, 0, False
        while not done and (a.max_steps <= 0 or steps < a.max_steps):
            obs, reward, terminated, truncated, info = env.step(policy.act(obs))
            score += reward
            steps += 1
            done = terminated or truncated
        scores.append(score)
        print("episode %d: score %+d, %d steps%s" % (ep + 1, score, steps, "" if done else " (cut)"), flush=True)
    env.close()
    print("mean score %+.2f over %d episodes" % (sum(scores) / len(scores), len(scores)))


if __name__ == "__main__":
    main()
