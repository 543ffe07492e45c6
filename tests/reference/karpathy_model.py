"""Karpathy's numerics, transcribed from Ray's "Learning to Play Pong" (plot_pong_example):
preprocess, rollout, Model.policy_forward / policy_backward / update and process_rewards,
verbatim (comments dropped) but for
np.float -> np.float64 (np.float is gone from NumPy >= 1.24). The reference the C code is
checked against."""
import numpy as np

H = 200
gamma = 0.99
decay_rate = 0.99
D = 80 * 80
learning_rate = 1e-4


def preprocess(img):
    img = img[35:195]
    img = img[::2, ::2, 0]
    img[img == 144] = 0
    img[img == 109] = 0
    img[img != 0] = 1
    return img.astype(np.float64).ravel()


def process_rewards(r):
    discounted_r = np.zeros_like(r)
    running_add = 0
    for t in reversed(range(0, r.size)):
        if r[t] != 0:
            running_add = 0
        running_add = running_add * gamma + r[t]
        discounted_r[t] = running_add
    return discounted_r


def rollout(model, env):
    """Evaluates env and model until the env returns "Terminated" or "Truncated"."""
    observation, info = env.reset()
    prev_x = None
    xs, hs, dlogps, drs = [], [], [], []
    terminated = truncated = False
    while not terminated and not truncated:
        cur_x = preprocess(observation)
        x = cur_x - prev_x if prev_x is not None else np.zeros(D)
        prev_x = cur_x
        aprob, h = model.policy_forward(x)
        action = 2 if np.random.uniform() < aprob else 3
        xs.append(x)
        hs.append(h)
        y = 1 if action == 2 else 0
        dlogps.append(y - aprob)
        observation, reward, terminated, truncated, info = env.step(action)
        drs.append(reward)
    return xs, hs, dlogps, drs


class Model(object):
    def __init__(self, W1=None, W2=None):
        """Karpathy's "Xavier" initialisation, or given weights (copied)."""
        self.weights = {}
        if W1 is None:
            self.weights["W1"] = np.random.randn(H, D) / np.sqrt(D)
            self.weights["W2"] = np.random.randn(H) / np.sqrt(H)
        else:
            self.weights = {"W1": W1.copy(), "W2": W2.copy()}

    def policy_forward(self, x):
        h = np.dot(self.weights["W1"], x)
        h[h < 0] = 0
        logp = np.dot(self.weights["W2"], h)
        p = 1.0 / (1.0 + np.exp(-logp))
        return p, h

    def policy_backward(self, eph, epx, epdlogp):
        dW2 = np.dot(eph.T, epdlogp).ravel()
        dh = np.outer(epdlogp, self.weights["W2"])
        dh[eph <= 0] = 0
        dW1 = np.dot(dh.T, epx)
        return {"W1": dW1, "W2": dW2}

    def update(self, grad_buffer, rmsprop_cache, lr, decay):
        for k, v in self.weights.items():
            g = grad_buffer[k]
            rmsprop_cache[k] = decay * rmsprop_cache[k] + (1 - decay) * g**2
            self.weights[k] += lr * g / (np.sqrt(rmsprop_cache[k]) + 1e-5)


def compute_gradient(model, xs, hs, dlogps, drs):
    """Ray's RolloutWorker.compute_gradient after its rollout(): returns, standardisation,
    modulation, backward. Also returns the y - p of every step as played."""
    epx = np.vstack(xs)
    eph = np.vstack(hs)
    epdlogp = np.vstack(dlogps)
    epr = np.vstack(drs)
    discounted_epr = process_rewards(epr)
    discounted_epr -= np.mean(discounted_epr)
    discounted_epr /= np.std(discounted_epr)
    played = epdlogp.ravel().copy()
    epdlogp *= discounted_epr
    return model.policy_backward(eph, epx, epdlogp), played


def episode_gradient(model, xs, actions, rewards):
    """compute_gradient for an episode given the observations and actions played."""
    hs, dlogps = [], []
    for x, a in zip(xs, actions):
        aprob, h = model.policy_forward(x)
        y = 1 if a == 2 else 0
        hs.append(h)
        dlogps.append(y - aprob)
    return compute_gradient(model, xs, hs, dlogps, rewards)
