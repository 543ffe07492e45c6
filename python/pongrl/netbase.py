"""What every learner's NumPy network shares (NumPy alone, nothing else of pongrl): Karpathy's
80x80 preprocessing, the dense input of a frame after another with its coarse views, the
bookkeeping of a policy that acts on Gymnasium Pong observations (_Player), and the reading of
what `pongrl export` wrote (model.txt's lines, its crc32 check, the .npy files). A learner's own
network is its module of pongrl/learners/; nets.py finds it."""
import os
import zlib

import numpy as np

D = 6400  # the 80x80 grid (policy.h POLICY_D)


def prepro(frame):
    """Karpathy's preprocessing of RGB frames (..., 210, 160, 3) -> uint8 (..., 80, 80) in {0, 1}:
    rows 35..194, every second row and column, red channel, background (144, 109) and black
    erased, everything else 1. obs80 observations (..., 80, 80) pass unchanged."""
    frame = np.asarray(frame)
    if frame.shape[-2:] == (80, 80):
        return frame.astype(np.uint8, copy=False)
    if frame.shape[-3:] != (210, 160, 3):
        raise ValueError(
            "pongrl: the policy plays obs_type 'rgb' (210, 160, 3) or 'obs80' "
            "(80, 80) observations (one or a batch), got shape %s" % (frame.shape,)
        )
    img = frame[..., 35:195, :, :][..., ::2, ::2, 0]
    return ((img != 144) & (img != 109) & (img != 0)).astype(np.uint8)


# ----------------------------------------------------------------------------
# the dense input of a frame after another, with coarse views (rl/'s sparse input in C)

POOL, BAND = 4, 20  # coarse cells of 4x4 pixels; bands of 20 rows or columns
COARSE = (80 // POOL) ** 2 + 2 * (80 // BAND) * 80  # 400 + 320 + 320 = 1040


def coarse_views(frames):
    """(B, 80, 80) binary -> (B, 1040): [0, 400) cell (y//4)*20 + x//4 lit when any of its 4x4
    pixels is; [400, 720) 400 + (x//20)*80 + y: row y is lit somewhere in the band of columns
    x//20; [720, 1040) 720 + (y//20)*80 + x: column x is lit somewhere in the band of rows y//20."""
    f = frames.astype(bool)
    B = f.shape[0]
    cells = f.reshape(B, 80 // POOL, POOL, 80 // POOL, POOL).any(axis=(2, 4)).reshape(B, -1)
    rows = f.reshape(B, 80, 80 // BAND, BAND).any(axis=3).transpose(0, 2, 1).reshape(B, -1)
    cols = f.reshape(B, 80 // BAND, BAND, 80).any(axis=2).reshape(B, -1)
    return np.concatenate([cells, rows, cols], axis=1).astype(np.float64)


def frame_input(cur, prev, coarse):
    """The input of frames cur after prev ((B, 80, 80) binary; prev zeros on an episode's first
    step) as a dense (B, D) float64: the frame (6400), cur - prev (6400), and with coarse views
    the frame's (1040) and their difference from prev's (1040)."""
    B = cur.shape[0]
    c = cur.reshape(B, D).astype(np.float64)
    p = prev.reshape(B, D).astype(np.float64)
    parts = [c, c - p]
    if coarse:
        cc, pc = coarse_views(cur), coarse_views(prev)
        parts += [cc, cc - pc]
    return np.concatenate(parts, axis=1)


def log_softmax(logits):
    m = logits.max(axis=-1, keepdims=True)
    z = logits - m
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


# ----------------------------------------------------------------------------
# a policy's bookkeeping

# Pong's minimal action set as a three-output network's outputs stand: ALE's names, the env's indices
ACTIONS, ACTION_IDS = ("NOOP", "RIGHT", "LEFT"), (0, 2, 3)


class _Player:
    """What every policy keeps between steps: the last frame of each row of a batch (one
    observation is a batch of one) and which rows start an episode (reset() forgets them all,
    reset(rows) those rows); the env's index of each output (action_ids, Pong's minimal set
    unless use_action_meanings says otherwise); the sampling stream."""

    def __init__(self, action_names, action_ids, algo, source="", greedy=False, seed=None):
        self._prev = None
        self.action_names, self.action_ids = tuple(action_names), tuple(action_ids)
        self.algo, self.source, self.greedy = algo, source, greedy
        self.rng = np.random.default_rng(seed)

    def use_action_meanings(self, meanings):
        """Acts with the env's own indices: meanings is env.unwrapped.get_action_meanings()."""
        self.action_ids = tuple(list(meanings).index(n) for n in self.action_names)

    def reset(self, rows=None):
        if rows is None or self._prev is None:
            self._prev = None
        else:
            self._fresh[np.asarray(rows)] = True

    def _frames(self, obs):
        """(single, cur, prev, fresh) for this step's observation(s); remembers cur."""
        cur = prepro(obs)
        single = cur.ndim == 2
        cur = cur.reshape((-1, 80, 80))
        if self._prev is None or self._prev.shape != cur.shape:
            self._prev = cur
            self._fresh = np.ones(cur.shape[0], bool)
        prev, fresh = self._prev, self._fresh.copy()
        self._prev, self._fresh[:] = cur, False
        return single, cur, prev, fresh


# ----------------------------------------------------------------------------
# what `pongrl export` writes


def export_lines(path, settings, *numbers):
    """model.txt's actions and action_ids of an export, then its lines named in numbers as ints;
    a line missing or bad: one ValueError naming the file."""
    try:
        names, ids = settings["actions"].split(","), [int(a) for a in settings["action_ids"].split(",")]
        return (names, ids) + tuple(int(settings[k]) for k in numbers)
    except (KeyError, ValueError) as e:
        raise ValueError("pongrl: %s: a line missing or bad (%s)" % (os.path.join(path, "model.txt"), e))


def read_model_txt(path):
    """model.txt's name=value lines as a dict (comments skipped)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                k, _, v = line.partition("=")
                out[k] = v
    return out


def npy(path, name):
    """The array of path/name (no pickles)."""
    return np.load(os.path.join(path, name), allow_pickle=False)


def check_crc32(path, settings):
    """model.txt's crc32 line (NAME.npy:hhhhhhhh,...: each array file beside it and the crc32 of
    its bytes) against the files in path: a ValueError naming the first that differs, so that
    model.txt never describes the arrays of another export. An export written before the line
    existed has none: nothing to check."""
    line = settings.get("crc32")
    if line is None:
        return
    txt = os.path.join(path, "model.txt")
    for entry in line.split(","):
        name, _, crc = entry.rpartition(":")
        if (
            len(crc) != 8
            or any(c not in "0123456789abcdefABCDEF" for c in crc)
            or not name.endswith(".npy")
            or len(name) < 5
            or "/" in name
            or name.startswith(".")
        ):
            raise ValueError("pongrl: %s: crc32: '%s' is not NAME.npy:hhhhhhhh (8 hex digits)" % (txt, entry[:40]))
        f = os.path.join(path, name)
        if os.path.exists(f) and not os.path.isfile(f):  # a FIFO would never end
            raise ValueError("pongrl: %s: not a regular file" % f)
        got = 0
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                got = zlib.crc32(chunk, got)
        if got != int(crc, 16):
            raise ValueError(
                "pongrl: %s: not the file %s was written with (crc32 %08x, model.txt says %s): the folder mixes "
                "two exports" % (f, txt, got, crc.lower())
            )
