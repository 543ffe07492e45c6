"""play_model.py: a trained model (pongrl.load) playing a Gymnasium env.

    make && /usr/bin/python3 examples/play_model.py models/pong-v5 --episodes 3
    /usr/bin/python3 examples/play_model.py runs/s1 --greedy --id pongrl/PongNoFrameskip-v4

MODEL is what `pongrl eval` takes: a folder with W1.npy and W2.npy (models/pong-v5, the
shipped one), a checkpoint file or a run directory (of --algo pg or ppo), or a folder that
`pongrl export` wrote. With Gymnasium importable (its source tree
on PYTHONPATH is enough) the env is gymnasium.make(ID), wrapped in Gymnasium's
RecordEpisodeStatistics; without it, pongrl.make(ID) with the same API. --gif writes the first
episode as an animated GIF (needs Pillow: Debian's python3-pil).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))  # the source tree, when not installed
import pongrl  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", help="W1.npy/W2.npy folder, checkpoint or run directory")
    ap.add_argument("--id", default="pongrl/Pong-v5", help="env id (default pongrl/Pong-v5)")
    ap.add_argument("--episodes", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--greedy", action="store_true", help="RIGHT iff p > 0.5, not sampled")
    ap.add_argument("--gif", help="write the first episode's frames to this GIF")
    a = ap.parse_args()
    try:
        policy = pongrl.load(a.model, greedy=a.greedy, seed=a.seed)
    except ValueError as e:
        sys.exit(str(e))
    if pongrl.gymnasium is not None:
        import gymnasium

        env = gymnasium.wrappers.RecordEpisodeStatistics(
            gymnasium.make(a.id, obs_type="obs80", render_mode="rgb_array" if a.gif else None)
        )
        maker = "gymnasium %s" % gymnasium.__version__
    else:
        env = pongrl.make(a.id, obs_type="obs80", render_mode="rgb_array" if a.gif else None)
        maker = "pongrl.make (no gymnasium)"
    print("%s playing %s (%s)" % (policy, a.id, maker))
    frames = []
    for ep in range(a.episodes):
        obs, info = env.reset(seed=a.seed + ep)
        policy.reset()
        score, steps = 0.0, 0
        while True:
            obs, reward, terminated, truncated, info = env.step(policy.act(obs))
            score += reward
            steps += 1
            if a.gif and ep == 0 and steps % 2 == 0:
                frames.append(env.render())
            if terminated or truncated:
                break
        print("episode %d: score %+d (%s), %d steps" % (ep + 1, score, "won" if score > 0 else "lost", steps))
    env.close()
    if a.gif:
        from PIL import Image

        imgs = [Image.fromarray(f) for f in frames]
        imgs[0].save(a.gif, save_all=True, append_images=imgs[1:], duration=33, loop=0)
        print("wrote %s (%d frames)" % (a.gif, len(imgs)))


if __name__ == "__main__":
    main()
