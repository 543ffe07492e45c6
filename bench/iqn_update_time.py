#!/usr/bin/env python3
"""iqn_update_time.py: the time of one update of Dopamine's IQN with the Impala ResNet, the
published learner that reaches +20 on ALE/Pong-v5 (sticky actions) by 5.75 M agent steps, on this
machine's CPU; and what its 1.44 M updates (one every 4 agent steps) would take here.

Not a learner: random inputs (the time does not depend on them), float32, PyTorch. The networks
as dopamine/jax/networks.py's ImpalaEncoder (stacks of 16, 32, 32 channels, two residual blocks
each, 84x84x4 input) under ImplicitQuantileNetwork's head (a cosine embedding of 64, dense 512);
the update as its IQN agent's: 64 tau and 64 tau' samples, 32 to choose the next action, the
quantile Huber loss (kappa 1), Adam (lr 5e-5, eps 3.125e-4, implicit_quantile.gin), batch 32.

    python3 bench/iqn_update_time.py [--threads N]

Needs PyTorch (Debian 12: `sudo apt-get install python3-torch`).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, TAUS, TAUS_ACT, EMBED, ACTIONS = 32, 64, 32, 64, 6
UPDATES = 1.4375e6  # 5.75 M agent steps, an update every 4


class Residual(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.a = nn.Conv2d(ch, ch, 3, padding=1)
        self.b = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x):
        return x + self.b(F.relu(self.a(F.relu(x))))


class Stack(nn.Module):
    def __init__(self, ch_in, ch):
        super().__init__()
        self.conv = nn.Conv2d(ch_in, ch, 3, padding=1)
        self.blocks = nn.Sequential(Residual(ch), Residual(ch))

    def forward(self, x):
        return self.blocks(F.max_pool2d(self.conv(x), 3, 2, padding=1))


class IQN(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(Stack(4, 16), Stack(16, 32), Stack(32, 32))
        state = 32 * 11 * 11  # 84 -> 42 -> 21 -> 11
        self.phi = nn.Linear(EMBED, state)
        self.fc = nn.Linear(state, 512)
        self.out = nn.Linear(512, ACTIONS)

    def forward(self, x, n):
        b = x.shape[0]
        h = F.relu(self.encoder(x)).flatten(1)
        tau = torch.rand(b * n, 1)
        emb = torch.cos(torch.arange(1, EMBED + 1) * torch.pi * tau)
        z = h.repeat_interleave(n, 0) * F.relu(self.phi(emb))
        return self.out(F.relu(self.fc(z))).view(b, n, ACTIONS), tau.view(b, n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=2, help="PyTorch's threads (default 2)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    net, target = IQN(), IQN()
    opt = torch.optim.Adam(net.parameters(), lr=5e-5, eps=3.125e-4)
    x, x_next = torch.rand(BATCH, 4, 84, 84), torch.rand(BATCH, 4, 84, 84)
    rows = torch.arange(BATCH)

    def update():
        with torch.no_grad():
            q_next, _ = target(x_next, TAUS)
            a_next = net(x_next, TAUS_ACT)[0].mean(1).argmax(1)
            goal = q_next[rows, :, a_next]  # (B, tau')
        q, tau = net(x, TAUS)
        q = q[:, :, 0]  # (B, tau): the taken action's
        u = goal.unsqueeze(1) - q.unsqueeze(2)  # (B, tau, tau')
        huber = torch.where(u.abs() <= 1, 0.5 * u * u, u.abs() - 0.5)
        loss = ((tau.unsqueeze(2) - (u < 0).float()).abs() * huber).mean(2).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(3):
        update()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(5):
            update()
        times.append((time.perf_counter() - t0) / 5)
    best = min(times)
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads: {best * 1e3:.1f} ms an update (best of 3 x 5)"
    )
    print(f"{UPDATES / 1e6:.2f} M updates (5.75 M agent steps): {best * UPDATES / 3600:.0f} hours of updates alone")


if __name__ == "__main__":
    main()
