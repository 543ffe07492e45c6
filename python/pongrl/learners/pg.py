"""pg's forward pass (src/algo/pg/, --algo pg): Karpathy's network on the difference of two
80x80 frames -> H ReLU -> p(RIGHT). Its export: W1.npy (H, 6400) and W2.npy (H,), with or
without model.txt (bare_npy: a folder of W1.npy alone is this learner's, as pg_bare_npy says in C)."""
import os

import numpy as np

from ..netbase import D, _Player, npy


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
        W1, W2 = npy(path, "W1.npy"), npy(path, "W2.npy")
        if W1.ndim != 2 or W1.shape[1] != D or W2.shape != (W1.shape[0],):
            raise ValueError(
                "pongrl: %s: W1.npy %s and W2.npy %s are not (H, 6400) and (H,)" % (path, W1.shape, W2.shape)
            )
        return cls(np.ascontiguousarray(W1.T), W2, **kw)

    @staticmethod
    def bare_npy(path):
        """What a folder without model.txt holds when it is this learner's (Karpathy's W1.npy and
        W2.npy: W1.npy is there), else None."""
        return "W1.npy/W2.npy" if os.path.exists(os.path.join(path, "W1.npy")) else None

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


POLICY = PgPolicy  # the class the registry (pongrl.learners) finds for --algo pg
