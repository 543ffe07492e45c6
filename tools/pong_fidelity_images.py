#!/usr/bin/python3
"""pong_fidelity_images.py: our frames beside ALE's, for docs/fidelity.md.

Needs build/pong_dump (see tools/pong_dump.c). Writes docs/img/fidelity_*.png: left the
real ALE/Pong-v5 frame from tests/data/pong-v5-docs.gif, right ours at the same agent
step from reset with the bat left alone (the real agent moved its bat; ours did not).
"""
import os
import subprocess
import numpy as np
from PIL import Image, ImageSequence

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
STEPS = {'reset': 0, 'first_serve': 15, 'rally': 40}


def gif_at(step):
    s = 0
    for fr in ImageSequence.Iterator(Image.open(os.path.join(ROOT, 'tests/data/pong-v5-docs.gif'))):
        if s <= step < s + fr.info['duration'] // 50:
            return np.array(fr.convert('RGB'))
        s += fr.info['duration'] // 50


def main():
    raw = os.path.join(ROOT, 'build', 'pong_frames.raw')
    subprocess.check_call([os.path.join(ROOT, 'build', 'pong_dump'), raw] + [str(v) for v in STEPS.values()])
    ours = np.fromfile(raw, np.uint8).reshape(-1, 210, 160, 3)
    for (name, step), our in zip(STEPS.items(), ours):
        real = gif_at(step)
        gap = np.full((210, 8, 3), 255, np.uint8)
        pair = np.concatenate([real, gap, our], axis=1)
        Image.fromarray(pair).resize((pair.shape[1] * 2, 420), Image.NEAREST).save(
            os.path.join(ROOT, 'docs', 'img', 'fidelity_%s.png' % name))
        print(name, 'step', step, 'differing pixels:', int((real != our).any(-1).sum()))


if __name__ == '__main__':
    main()
