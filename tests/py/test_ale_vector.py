"""test_ale_vector.py: pongrl.AtariVectorEnv against ale-py's AtariVectorEnv itself.

tests/data/ale-vector/*.txt.gz are ALE's own vector engine (ale_py's AtariVectorEnv, built
from ALE's source with OpenCV; README.md there says how) driven by action scripts: every
command (R seed: reset(seed=); M seed mask: reset with a reset_mask; S actions: step) is
followed by the rows ALE returned: env_id, reward, terminated, truncated, lives,
frame_number, episode_frame_number, crc32 of the observation and of the final observation
(SAME_STEP, ended envs). The same scripts are replayed here, with 2 threads, and every row
must be equal. Exit 0 pass, 77 skip (library not built).
"""
import glob
import gzip
import json
import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, pongrl, run  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "ale-vector")


def load(path):
    with gzip.open(path, "rt") as f:
        header = json.loads(f.readline()[2:])
        commands = []
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(">"):
                commands[-1][1].append(line[1:].split())
            else:
                commands.append((line.split(), []))
    return header, commands


def rows_of(cmd, obs, rew, term, trunc, info):
    rows = []
    for k in range(len(obs)):
        done = cmd == "S" and (term[k] or trunc[k])
        final = "-"
        if done and "final_obs" in info:
            final = "%08x" % zlib.crc32(info["final_obs"][k].tobytes())
        rows.append(
            [
                cmd,
                str(info["env_id"][k]),
                str(int(rew[k])),
                str(int(term[k])),
                str(int(trunc[k])),
                str(info["lives"][k]),
                str(info["frame_number"][k]),
                str(info["episode_frame_number"][k]),
                "%08x" % zlib.crc32(obs[k].tobytes()),
                final,
            ]
        )
    return rows


def replay(path, threads=2):
    h, commands = load(path)
    n = h["num_envs"]
    env = pongrl.AtariVectorEnv(
        "pong",
        n,
        batch_size=h["batch_size"],
        num_threads=threads,
        autoreset_mode=h["autoreset_mode"],
        frameskip=h["frameskip"],
        stack_num=h["stack_num"],
        grayscale=bool(h["grayscale"]),
        maxpool=bool(h["maxpool"]),
        noop_max=h["noop_max"],
        use_fire_reset=bool(h["use_fire_reset"]),
        max_num_frames_per_episode=h["max_num_frames_per_episode"],
        reward_clipping=bool(h["reward_clipping"]),
        img_height=h["img_height"],
        img_width=h["img_width"],
        repeat_action_probability=0.0,
    )
    compared = mismatched = 0
    first = None
    for words, expected in commands:
        if words[0] == "R":
            s = int(words[1])
            obs, info = env.reset(seed=None if s < 0 else s)
            got = rows_of("R", obs, np.zeros(len(obs)), np.zeros(len(obs), bool), np.zeros(len(obs), bool), info)
        elif words[0] == "M":
            s, mask = int(words[1]), np.array([w == "1" for w in words[2:]])
            obs, info = env.reset(seed=None if s < 0 else s, options={"reset_mask": mask})
            got = rows_of("R", obs, np.zeros(len(obs)), np.zeros(len(obs), bool), np.zeros(len(obs), bool), info)
        else:
            got = rows_of("S", *env.step(np.array([int(w) for w in words[1:]])))
        for g, e in zip(got, expected):
            compared += 1
            if g != e:
                mismatched += 1
                if first is None:
                    first = (words[:8], e, g)
        assert len(got) == len(expected)
    env.close()
    return compared, mismatched, first


def test_identical_to_ale_py():
    files = sorted(glob.glob(os.path.join(DATA, "*.txt.gz")))
    assert len(files) >= 5, files
    total = 0
    for path in files:
        compared, mismatched, first = replay(path)
        print("  %-28s %5d rows compared, %d differ" % (os.path.basename(path), compared, mismatched))
        assert mismatched == 0, "first difference: command %s\n  ALE:    %s\n  pongrl: %s" % first
        total += compared
    print("  %d rows identical to ALE's AtariVectorEnv" % total)


def test_one_thread_same():
    path = os.path.join(DATA, "async_batch.txt.gz")
    assert replay(path, threads=1)[1] == 0


if __name__ == "__main__":
    sys.exit(run([test_identical_to_ale_py, test_one_thread_same]))
