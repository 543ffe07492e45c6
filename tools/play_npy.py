#!/usr/bin/env python3
"""play_npy.py: a model that `pongrl export` wrote, played with NumPy alone on any Gymnasium
Pong env, from its RGB frames.

    build/pongrl export runs/ppo-s1 --out ppo-npy      # PPO: model.txt + ppo_*.npy; pg: W1/W2.npy
    python3 tools/play_npy.py ppo-npy --env pongrl:pongrl/Pong-v5 --episodes 3
    python3 tools/play_npy.py ppo-npy --env ale_py:ALE/Pong-v5    # the real Atari (ale-py, its ROM)

--env is what gymnasium.make takes; "module:id" imports the module that registers the id
(pongrl, ale_py). The env must give RGB observations (210, 160, 3) (ale-py's and pongrl's
default); the network's outputs are matched to the env's actions by name
(env.unwrapped.get_action_meanings(): NOOP, RIGHT, LEFT), so full_action_space=True works too.
The forward passes are python/pongrl/nets.py's (docs/runs.md says the same in words), loaded
by its path: nothing of pongrl's package or C library is imported.
"""
import argparse
import importlib.util
import os
import sys

NETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "pongrl", "nets.py")


def load_nets():
    spec = importlib.util.spec_from_file_location("pongrl_nets", NETS)
    nets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nets)
    return nets


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", help="a folder that `pongrl export` wrote")
    ap.add_argument("--env", default="ALE/Pong-v5", help="a Gymnasium id, or module:id (default ALE/Pong-v5)")
    ap.add_argument("--episodes", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="episode e is reset with seed + e; actions sampled from seed")
    ap.add_argument("--greedy", action="store_true", help="the most likely action instead of a sample")
    ap.add_argument("--max-steps", type=int, default=0, help="end an episode after N steps (default: whole games)")
    ap.add_argument("--full-action-space", action="store_true", help="make the env with all 18 Atari actions")
    a = ap.parse_args()
    nets = load_nets()
    import gymnasium
    try:
        policy = nets.read_export(a.model, greedy=a.greedy, seed=a.seed)
    except (OSError, ValueError, KeyError) as e:
        sys.exit("play_npy: %s" % e)
    env = gymnasium.make(a.env, **({"full_action_space": True} if a.full_action_space else {}))
    policy.use_action_meanings(env.unwrapped.get_action_meanings())
    print("%s on %s (gymnasium %s), actions %s -> %s" % (policy, a.env, gymnasium.__version__,
          ",".join(policy.action_names), ",".join(map(str, policy.action_ids))))
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
