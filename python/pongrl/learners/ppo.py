"""PPO's forward pass (src/algo/ppo/, --algo ppo): the actor-critic on the frame, its difference
and their coarse views (netbase.frame_input, ppo_policy.c's ppo_input) -> H ReLU -> 3 logits
(NOOP, RIGHT, LEFT) and a value. Its export: model.txt and ppo_W1, ppo_b1, ppo_Wpi, ppo_bpi,
ppo_wv, ppo_bv.npy."""
import numpy as np

from ..netbase import ACTION_IDS, ACTIONS, COARSE, D, _Player, export_lines, frame_input, log_softmax, npy

ppo_input = frame_input  # the name src/algo/ppo/ gives the input


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
        names, ids, coarse, size, hidden = export_lines(path, settings, "coarse", "input_size", "hidden")
        pol = cls(
            *(npy(path, "ppo_%s.npy" % a) for a in ("W1", "b1", "Wpi", "bpi", "wv", "bv")),
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


POLICY = PpoPolicy  # the class the registry (pongrl.learners) finds for --algo ppo
