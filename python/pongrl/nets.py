"""pongrl's trained networks in NumPy alone: the input each is given, its forward pass, and a
policy that acts with it on Gymnasium Pong observations. No other part of pongrl is imported:
tools/play_npy.py loads this file by its path and plays an exported model on any Gymnasium
Pong env (ale-py's own too). pongrl.load (policy.py) plays a model in C (algo/actor.h); its
Policy.reference() builds these classes from the model the C library read: the reference that
path is tested against (tests/py/test_policy_c.py). docs/runs.md describes the same forward
passes in words.

    PgPolicy  Karpathy's network (--algo pg): 80x80 difference frame -> H ReLU -> p(RIGHT)
    PpoPolicy   PPO's actor-critic (--algo ppo): the frame, its difference and their coarse
                views -> H ReLU -> 3 logits (NOOP, RIGHT, LEFT) and a value
    QrdqnPolicy QR-DQN's quantile network (--algo qrdqn): the same input -> H ReLU -> N
                quantiles of each action's return; acts on their means

POLICIES maps each learner's --algo name (model.txt's algo=, the C library's model_algo) to
its class: the one table through which Policy.reference() and read_export find a model's
network (and pongrl.load an export of a learner the library does not play). A
learner whose acting network differs adds its class there, with from_model(weights, arrays,
settings, **kw) (from what the C library read) and from_export(path, settings, **kw) (from
what `pongrl export` wrote; settings are model.txt's lines).

read_export(dir) reads what `pongrl export` wrote (model.txt beside the learner's arrays, or
Karpathy's W1.npy/W2.npy alone) and returns the policy.
"""
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
# PPO's input (src/algo/ppo/ppo.h; ppo_policy.c's ppo_input)

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


def ppo_input(cur, prev, coarse):
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


def first_layer(x, W1_32, b1):
    """PPO's first layer as C sums it (acnet.c): for each row of the dense input x (B, D) in
    {-1, 0, +1}, the float32 rows of W1_32 (D, H) of its non-zeros added (or subtracted) in
    ascending order in float32, then b1 (float64) added: (B, H) float64, C's bits. (np.add.accumulate
    adds in order; a float32 matrix product would not.)"""
    h = np.empty((x.shape[0], W1_32.shape[1]))
    for b in range(x.shape[0]):
        idx = np.flatnonzero(x[b])
        s = np.zeros(W1_32.shape[1], dtype=np.float32)
        if len(idx):
            s = np.add.accumulate(W1_32[idx] * x[b, idx, None].astype(np.float32), axis=0)[-1]
        h[b] = b1 + s.astype(np.float64)
    return h


def log_softmax(logits):
    m = logits.max(axis=-1, keepdims=True)
    z = logits - m
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


# ----------------------------------------------------------------------------
# the policies


# Pong's minimal action set as PPO's and QR-DQN's outputs stand: ALE's names, the env's indices
ACTIONS, ACTION_IDS = ("NOOP", "RIGHT", "LEFT"), (0, 2, 3)


def _export_lines(path, settings, *numbers):
    """model.txt's actions and action_ids of an export, then its lines named in numbers as ints;
    a line missing or bad: one ValueError naming the file."""
    try:
        names, ids = settings["actions"].split(","), [int(a) for a in settings["action_ids"].split(",")]
        return (names, ids) + tuple(int(settings[k]) for k in numbers)
    except (KeyError, ValueError) as e:
        raise ValueError("pongrl: %s: a line missing or bad (%s)" % (os.path.join(path, "model.txt"), e))


class _Player:
    """What both policies keep between steps: the last frame of each row of a batch (one
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


class PgPolicy(_Player):
    """Karpathy's network (policy.h: 6400 -> H ReLU -> 1 sigmoid, no biases) on the difference
    of two preprocessed frames, as `pongrl train` plays: RIGHT with probability p, else LEFT.
    act(obs) takes one observation or a batch (a vector env's); it remembers the last frame of
    each row, so call reset() when an episode starts (reset(rows) for some rows of a batch)."""

    @classmethod
    def from_model(cls, weights, arrays, settings, **kw):
        """From the model's pg network (policy.h layout: W1 transposed (D, H), then W2)."""
        h = int(settings["hidden"])
        return cls(weights[: D * h].reshape(D, h), weights[D * h :], **kw)

    @classmethod
    def from_export(cls, path, settings, **kw):
        """From W1.npy (H, 6400) and W2.npy (H,), as the seed saves them."""
        W1, W2 = _npy(path, "W1.npy"), _npy(path, "W2.npy")
        if W1.ndim != 2 or W1.shape[1] != D or W2.shape != (W1.shape[0],):
            raise ValueError(
                "pongrl: %s: W1.npy %s and W2.npy %s are not (H, 6400) and (H,)" % (path, W1.shape, W2.shape)
            )
        return cls(np.ascontiguousarray(W1.T), W2, **kw)

    def __init__(self, w1t, w2, algo="pg", **kw):
        super().__init__(("RIGHT", "LEFT"), (2, 3), algo, **kw)
        self.w1t, self.w2 = w1t, w2  # (D, H) and (H,) float64
        self.H = w2.shape[0]

    def probability(self, obs):
        """p(RIGHT) for the observation(s), and remembers them as the last frames."""
        single, cur, prev, fresh = self._frames(obs)
        x = (cur.astype(np.int8) - prev.astype(np.int8)).reshape(-1, D).astype(np.float64)
        x[fresh] = 0.0  # the seed: zeros on the first step
        h = np.maximum(x @ self.w1t, 0.0)
        p = 1.0 / (1.0 + np.exp(-(h @ self.w2)))
        return p[0] if single else p

    def act(self, obs, greedy=None):
        """The action(s): RIGHT (2) with probability p, else LEFT (3); greedy: RIGHT iff
        p > 0.5, as `pongrl eval --greedy`."""
        p = self.probability(obs)
        greedy = self.greedy if greedy is None else greedy
        up = p > 0.5 if greedy else self.rng.random(np.shape(p)) < p
        right, left = self.action_ids
        return np.where(up, right, left) if np.ndim(up) else (right if up else left)

    def __repr__(self):
        return "<pongrl policy %s, H=%d, from %s>" % (self.algo, self.H, self.source)


class PpoPolicy(_Player):
    """PPO's actor-critic (acnet.h): x = ppo_input(frame, previous frame) -> h = relu(x W1 + b1)
    (W1's entries float32 numbers, as C stores them)
    -> logits = Wpi h + bpi over (NOOP, RIGHT, LEFT), value = wv . h + bv, as `pongrl eval`
    plays it: the previous frame is zeros on an episode's first step; sampled from
    softmax(logits), or greedy: the most likely action (the first of equals). act(obs) takes one
    observation or a batch and returns the env's action indices (Pong's minimal set unless
    use_action_meanings says otherwise); reset() when an episode starts (reset(rows))."""

    @classmethod
    def from_model(cls, weights, arrays, settings, **kw):
        """From the PPO learner's first array ("PPO weights", acnet.h's layout:
        W1 (D, H) | b1 (H) | Wpi (A, H) | bpi (A) | wv (H) | bv (1))."""
        H, coarse = int(settings["hidden"]), int(settings["coarse"]) != 0
        w = arrays["PPO weights"]
        Din = 2 * D + (2 * COARSE if coarse else 0)
        A = (w.shape[0] - Din * H - 2 * H - 1) // (H + 1)
        cut = np.cumsum([Din * H, H, A * H, A, H])
        W1, b1, Wpi, bpi, wv, bv = np.split(w, cut)
        return cls(W1.reshape(Din, H), b1, Wpi.reshape(A, H), bpi, wv, bv, coarse, **kw)

    @classmethod
    def from_export(cls, path, settings, **kw):
        """From model.txt's lines and ppo_W1, ppo_b1, ppo_Wpi, ppo_bpi, ppo_wv, ppo_bv.npy."""
        names, ids, coarse, size, hidden = _export_lines(path, settings, "coarse", "input_size", "hidden")
        pol = cls(
            *(_npy(path, "ppo_%s.npy" % a) for a in ("W1", "b1", "Wpi", "bpi", "wv", "bv")),
            coarse != 0,
            names,
            ids,
            **kw
        )
        if pol.W1.shape[0] != size or pol.H != hidden:
            raise ValueError(
                "pongrl: %s: ppo_W1.npy is %s, model.txt says input_size %s, hidden %s"
                % (path, pol.W1.shape, settings["input_size"], settings["hidden"])
            )
        return pol

    def __init__(self, W1, b1, Wpi, bpi, wv, bv, coarse, action_names=ACTIONS, action_ids=ACTION_IDS, algo="ppo", **kw):
        super().__init__(action_names, action_ids, algo, **kw)
        # the C network stores W1 as float32 (a float64 file's entries rounded to nearest as it
        # takes them) and sums its rows in float32 (first_layer); the rest is float64, as here
        self.W1_32 = np.asarray(W1, dtype=np.float64).astype(np.float32)
        W1 = self.W1_32.astype(np.float64)
        self.W1, self.b1, self.Wpi, self.bpi = W1, b1, Wpi, bpi
        self.wv, self.bv = wv, bv.reshape(())
        self.coarse, self.H = coarse, b1.shape[0]
        if W1.shape != (2 * D + (2 * COARSE if coarse else 0), self.H) or Wpi.shape != (len(action_names), self.H):
            raise ValueError(
                "pongrl: PPO arrays of shapes W1 %s, Wpi %s do not fit H=%d, coarse=%d, %d actions"
                % (W1.shape, Wpi.shape, self.H, coarse, len(action_names))
            )
        self.input = ppo_input  # the input function (a test swaps it to see a fault)

    def forward(self, obs):
        """(log-probabilities (B, A), values (B,)) of the observation(s), a batch always; remembers
        them as the last frames."""
        single, cur, prev, fresh = self._frames(obs)
        prev = np.where(fresh[:, None, None], 0, prev)  # an episode's first step: zeros
        x = self.input(cur, prev, self.coarse)
        h = np.maximum(first_layer(x, self.W1_32, self.b1), 0.0)
        return single, log_softmax(h @ self.Wpi.T + self.bpi), h @ self.wv + self.bv

    def probabilities(self, obs):
        """The action probabilities (A,) or (B, A) of (NOOP, RIGHT, LEFT)."""
        single, logp, _ = self.forward(obs)
        p = np.exp(logp)
        return p[0] if single else p

    def act(self, obs, greedy=None):
        single, logp, _ = self.forward(obs)
        greedy = self.greedy if greedy is None else greedy
        if greedy:
            k = logp.argmax(axis=1)
        else:  # the first action whose cumulative probability exceeds u, as C's ppo_sample_action
            u = self.rng.random(logp.shape[0])
            k = (u[:, None] >= np.cumsum(np.exp(logp[:, :-1]), axis=1)).sum(axis=1)
        a = np.asarray(self.action_ids)[k]
        return int(a[0]) if single else a

    def __repr__(self):
        return "<pongrl policy %s, H=%d, coarse=%d, from %s>" % (self.algo, self.H, self.coarse, self.source)


class QrdqnPolicy(_Player):
    """QR-DQN's network (src/algo/qrdqn/qrdqn.h): x = ppo_input(frame, previous frame, coarse)
    -> h = relu(x W1 + b1) -> q = W2 h + b2, (A N,): q[a N + i] is quantile i of action a's
    return. As `pongrl eval` plays it: the action of the largest mean quantile (the first of
    equals), or, sampling, epsilon-greedy with epsilon 0.001 (Dopamine's evaluation)."""

    EPS = 0.001

    @classmethod
    def from_model(cls, weights, arrays, settings, **kw):
        """From the learner's first array ("QR-DQN weights": W1 (D, H) | b1 | W2 (A N, H) | b2)."""
        H, Din, w = int(settings["hidden"]), 2 * D + 2 * COARSE, arrays["QR-DQN weights"]
        O = (w.shape[0] - Din * H - H) // (H + 1)
        W1, b1, W2, b2 = np.split(w, np.cumsum([Din * H, H, O * H]))
        return cls(W1.reshape(Din, H), b1, W2.reshape(O, H), b2, **kw)

    @classmethod
    def from_export(cls, path, settings, **kw):
        """From model.txt's lines and qrdqn_W1, qrdqn_b1, qrdqn_W2, qrdqn_b2.npy."""
        names, ids = _export_lines(path, settings)
        return cls(*(_npy(path, "qrdqn_%s.npy" % a) for a in ("W1", "b1", "W2", "b2")), names, ids, **kw)

    def __init__(self, W1, b1, W2, b2, action_names=ACTIONS, action_ids=ACTION_IDS, algo="qrdqn", **kw):
        super().__init__(action_names, action_ids, algo, **kw)
        self.W1, self.b1, self.W2, self.b2, self.H = W1, b1, W2, b2, b1.shape[0]
        self.A = len(action_names)
        if W1.shape != (2 * D + 2 * COARSE, self.H) or W2.shape[0] % self.A or W2.shape[1:] != (self.H,):
            raise ValueError("pongrl: QR-DQN arrays W1 %s, W2 %s do not fit" % (W1.shape, W2.shape))
        self.N = W2.shape[0] // self.A

    def values(self, obs):
        """(single, each action's mean quantile (B, A), the quantiles (B, A, N)); remembers the frames."""
        single, cur, prev, fresh = self._frames(obs)
        x = ppo_input(cur, np.where(fresh[:, None, None], 0, prev), True)
        q = (np.maximum(x @ self.W1 + self.b1, 0.0) @ self.W2.T + self.b2).reshape(-1, self.A, self.N)
        return single, q.mean(axis=2), q

    def probabilities(self, obs):
        """The sampling agent's probabilities (A,) or (B, A) of (NOOP, RIGHT, LEFT), greedy or not."""
        single, v, _ = self.values(obs)
        p = np.full(v.shape, self.EPS / self.A)
        p[np.arange(len(v)), v.argmax(axis=1)] += 1.0 - self.EPS
        return p[0] if single else p

    def act(self, obs, greedy=None):
        single, v, _ = self.values(obs)
        k = v.argmax(axis=1)
        if not (self.greedy if greedy is None else greedy):
            u = self.rng.random(len(k))  # u < eps explores; u / eps then picks the action, as C does
            k = np.where(u < self.EPS, np.minimum((u / self.EPS * self.A).astype(int), self.A - 1), k)
        a = np.asarray(self.action_ids)[k]
        return int(a[0]) if single else a

    def __repr__(self):
        return "<pongrl policy %s, H=%d, N=%d, from %s>" % (self.algo, self.H, self.N, self.source)


# ----------------------------------------------------------------------------
# what `pongrl export` writes


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


def _npy(path, name):
    return np.load(os.path.join(path, name), allow_pickle=False)


def check_crc32(path, settings):
    """model.txt's crc32 line (NAME.npy:XXXXXXXX,...: each array file beside it and the crc32 of
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
            raise ValueError("pongrl: %s: crc32: '%s' is not NAME.npy:XXXXXXXX (8 hex digits)" % (txt, entry[:40]))
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


# the class that acts with each learner's model, by the learner's --algo name
POLICIES = {"pg": PgPolicy, "ppo": PpoPolicy, "qrdqn": QrdqnPolicy}
# what an export without model.txt holds: Karpathy's W1.npy and W2.npy
EXPORT_WITHOUT_MODEL_TXT = "pg"


def policy_class(algo, source):
    """POLICIES[algo], or a ValueError naming the learners there are."""
    cls = POLICIES.get(algo)
    if cls is None:
        raise ValueError(
            "pongrl: %s was trained by --algo %s, which pongrl cannot play yet (it "
            "plays: %s)" % (source, algo, ", ".join(POLICIES))
        )
    return cls


def read_export(path, greedy=False, seed=None):
    """The policy in a folder that `pongrl export` wrote: model.txt (format 1) names the learner
    (algo=) whose class reads the arrays beside it, once its crc32 line says they are the ones
    it was written with (check_crc32); without model.txt, Karpathy's W1.npy (H, 6400) and W2.npy
    (H,). A ValueError says what is wrong."""
    kw = dict(source=str(path), greedy=greedy, seed=seed)
    txt = os.path.join(path, "model.txt")
    if not os.path.exists(txt):
        return policy_class(EXPORT_WITHOUT_MODEL_TXT, path).from_export(path, {}, **kw)
    s = read_model_txt(txt)
    if s.get("format") != "1":
        raise ValueError("pongrl: %s: format %s: this reads format 1" % (txt, s.get("format")))
    cls = policy_class(s.get("algo"), txt)
    check_crc32(path, s)
    policy = cls.from_export(path, s, **kw)
    # again once the arrays are read: a folder that `export --force` swapped meanwhile may have
    # given model.txt of the old model and arrays of the new, and any file read after the swap is new
    check_crc32(path, s)
    return policy
