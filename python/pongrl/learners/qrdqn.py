"""QR-DQN's forward pass (src/algo/qrdqn/, --algo qrdqn): the same input as PPO's
(netbase.frame_input with coarse views) -> H ReLU -> N quantiles of each action's return; acts
on their means. Its export: model.txt and qrdqn_W1, qrdqn_b1, qrdqn_W2, qrdqn_b2.npy."""
import numpy as np

from ..netbase import ACTION_IDS, ACTIONS, COARSE, D, _Player, export_lines, frame_input, npy


class QrdqnPolicy(_Player):
    """QR-DQN's network (src/algo/qrdqn/qrdqn.h): x = frame_input(frame, previous frame, coarse)
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
        names, ids = export_lines(path, settings)
        return cls(*(npy(path, "qrdqn_%s.npy" % a) for a in ("W1", "b1", "W2", "b2")), names, ids, **kw)

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
        x = frame_input(cur, np.where(fresh[:, None, None], 0, prev), True)
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


POLICY = QrdqnPolicy  # the class the registry (pongrl.learners) finds for --algo qrdqn
