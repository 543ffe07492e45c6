"""Times the seed's NumPy policy_forward and policy_backward on the episode that
`pongrl bench train` exported (same inputs, same weights). Prints name: value lines."""
import os, sys, time
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "reference"))
import seed_model as sm

d = sys.argv[1]
W1, W2 = np.load(f"{d}/W1.npy"), np.load(f"{d}/W2.npy")
x = np.load(f"{d}/x_0.npy").astype(np.float64)
actions, rewards = np.load(f"{d}/action_0.npy"), np.load(f"{d}/reward_0.npy")
model = sm.Model(W1, W2)
T = len(x)
t0 = time.perf_counter()
hs, dl = [], []
for t in range(T):
    p, h = model.policy_forward(x[t])
    hs.append(h); dl.append((1 if actions[t] == 2 else 0) - p)
t1 = time.perf_counter()
eph, epdlogp = np.vstack(hs), np.vstack(dl)
adv = sm.process_rewards(np.vstack(list(rewards)))
adv -= adv.mean(); adv /= adv.std()
epdlogp *= adv
t2 = time.perf_counter()
model.policy_backward(eph, x, epdlogp)
t3 = time.perf_counter()
print(f"seed_forward_us_per_step: {(t1 - t0) / T * 1e6:.2f}")
print(f"seed_backward_us_per_step: {(t3 - t2) / T * 1e6:.2f}")
