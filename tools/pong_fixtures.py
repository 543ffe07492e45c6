#!/usr/bin/python3
"""pong_fixtures.py: measure the real ALE/xitari recordings into plain-text fixtures.

Reads tests/data/pong-v5-docs.gif (ALE's documentation animation of ALE/Pong-v5,
frameskip 4; identical consecutive frames are merged, so a frame's delay / 50 ms is the
number of agent steps it stands for) and tests/data/traj_pong.npz (xitari RAM, 60
frames after reset). Writes:
  tests/data/gif_steps.txt   one line per GIF frame: what is on screen at that step
  tests/data/gif_digits.txt  the score glyphs seen in the GIF, as 5 rows of 3 cells
  tests/data/xitari_serve.txt the first-serve RAM trace, in screen coordinates
  tests/data/gif_reset_obs.txt the pixels where the GIF's reset observation differs from
                             xitari's frame 1 (pong_noop_10.screen.gz)
Run once with /usr/bin/python3 (numpy, PIL); the C tests read only the text files.
"""
import os
import numpy as np
from PIL import Image, ImageSequence

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'data')
WALL, CPU, AGENT = (236, 236, 236), (213, 130, 74), (92, 186, 92)
UNITS_X = {'cpu': 36, 'agent': 116}


def gif_frames():
    """(step, rgb) for each GIF frame; step 0 is the reset observation."""
    step = 0
    for fr in ImageSequence.Iterator(Image.open(os.path.join(DATA, 'pong-v5-docs.gif'))):
        yield step, np.array(fr.convert('RGB')).astype(int)
        step += fr.info['duration'] // 50


def box(rgb, color, x0, x1, y0=34, y1=193):
    """Bounding box (x, y, w, h) of a colour inside the playfield, or None."""
    ys, xs = np.nonzero((rgb[y0:y1 + 1, x0:x1 + 1] == color).all(-1))
    if len(ys) == 0:
        return None
    return xs.min() + x0, ys.min() + y0, xs.max() - xs.min() + 1, ys.max() - ys.min() + 1


def glyph(rgb, x, color):
    """5 rows of 3 cells ('#' lit, '.' dark), sampled at each 4x4 cell's centre."""
    return [''.join('#' if tuple(rgb[1 + 4 * r + 2, x + 4 * c + 2]) == color else '.'
                    for c in range(3)) for r in range(5)]


GLYPHS = {  # pong-spec.md 1.3, used only to name what the GIF shows
    0: '### #.# #.# #.# ###', 1: '.#. .#. .#. .#. .#.', 2: '### ..# ### #.. ###',
    3: '### ..# .## ..# ###', 4: '#.# #.# ### ..# ..#', 5: '### #.. ### ..# ###',
    6: '#.. #.. ### #.# ###', 7: '### ..# ..# ..# ..#', 8: '### #.# ### #.# ###',
    9: '### #.# ### ..# ..#'}
BY_PATTERN = {v: k for k, v in GLYPHS.items()}


def write_steps():
    digits = {}
    with open(os.path.join(DATA, 'gif_steps.txt'), 'w') as f:
        f.write('# measured by tools/pong_fixtures.py from pong-v5-docs.gif (ALE/Pong-v5, frameskip 4)\n')
        f.write('# step ball_x ball_y ball_h cpu_y0 cpu_y1 agent_y0 agent_y1 score_cpu score_agent\n')
        f.write('# -1: not on screen; rows are the visible rows inside the playfield 34..193\n')
        for step, rgb in gif_frames():
            if step == 0:
                continue  # reset observation: other colours, checked against xitari instead
            ball, cpu, agent = box(rgb, WALL, 0, 159), box(rgb, CPU, 0, 159), box(rgb, AGENT, 0, 159)
            score = []
            for side, color in (('cpu', CPU), ('agent', AGENT)):
                pat = glyph(rgb, UNITS_X[side], color)
                d = BY_PATTERN.get(' '.join(pat), -1)
                score.append(d)
                digits.setdefault((side, d), (step, pat))
            b = (ball[0], ball[1], ball[3]) if ball else (-1, -1, -1)
            c = (cpu[1], cpu[1] + cpu[3] - 1) if cpu else (-1, -1)
            a = (agent[1], agent[1] + agent[3] - 1) if agent else (-1, -1)
            f.write('%d %d %d %d %d %d %d %d %d %d\n' % ((step,) + b + c + a + tuple(score)))
    with open(os.path.join(DATA, 'gif_digits.txt'), 'w') as f:
        f.write('# score glyphs cropped from pong-v5-docs.gif by tools/pong_fixtures.py\n')
        f.write('# side digit first_step row0 row1 row2 row3 row4 (cells of 4x4 px, units digit)\n')
        for (side, d), (step, pat) in sorted(digits.items()):
            f.write('%s %d %d %s\n' % (side, d, step, ' '.join(pat)))


def write_serve():
    tape = np.load(os.path.join(DATA, 'traj_pong.npz'))['tape'].astype(int)
    with open(os.path.join(DATA, 'xitari_serve.txt'), 'w') as f:
        f.write('# xitari RAM (traj_pong.npz, row i = after frame i+1), in screen coordinates:\n')
        f.write('# ball x = ram[49]-49, y = ram[54]-14 (ram[54]=0: no ball), cpu top = ram[50]-15,\n')
        f.write('# agent top = ram[51]-13, countdown = ram[11], paddle raw = ram[4], filtered = ram[60]\n')
        f.write('# frame ball_x ball_y cpu_top agent_top countdown raw filtered\n')
        for i, r in enumerate(tape):
            bx, by = (r[49] - 49, r[54] - 14) if r[54] else (-1, -1)
            f.write('%d %d %d %d %d %d %d %d\n' % (i + 1, bx, by, r[50] - 15, r[51] - 13, r[11], r[4], r[60]))


def write_reset_diff():
    import gzip
    pal = {0x00: (0, 0, 0), 0xE4: (109, 118, 43), 0xD2: (53, 95, 24), 0x8A: (101, 111, 228),
           0xFA: (210, 182, 86)}
    with gzip.open(os.path.join(DATA, 'pong_noop_10.screen.gz')) as z:
        idx = np.frombuffer(z.read(210 * 160), np.uint8).reshape(210, 160)
    xitari = np.array([[pal[v] for v in row] for row in idx])
    step, gif = next(gif_frames())
    with open(os.path.join(DATA, 'gif_reset_obs.txt'), 'w') as f:
        f.write('# pixels where the GIF reset observation differs from xitari frame 1\n')
        f.write('# y x r g b (GIF colour)\n')
        for y, x in zip(*np.nonzero((gif != xitari).any(-1))):
            f.write('%d %d %d %d %d\n' % ((y, x) + tuple(gif[y, x])))


if __name__ == '__main__':
    write_steps()
    write_serve()
    write_reset_diff()
