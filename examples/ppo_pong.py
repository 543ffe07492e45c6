"""ppo_pong.py: PPO on pongrl's vector env, single file, in the style of CleanRL's ppo_atari.py.

The policy sees what Karpathy's sees: Karpathy's 80x80 binary grid (obs_type="obs80") of the
current frame and its difference from the previous one, 12,800 inputs of which a few dozen
are non-zero. So the first layer is an embedding bag over the non-zero pixels (O(non-zeros x
hidden), as in pongrl's C policy) and the network is Karpathy's 6400-200-1 grown into an
actor-critic: inputs -> 256 ReLU -> (3 action logits, value). The three actions are NOOP,
RIGHT (paddle up) and LEFT (down); FIRE adds nothing in Pong. Everything else is CleanRL's
PPO: GAE, clipped objective, value loss, entropy bonus, Adam with a linearly annealed lr.

Needs PyTorch. On Debian 12: `sudo apt-get install python3-torch` (1.13), then, after `make`:
    /usr/bin/python3 examples/ppo_pong.py --total-steps 20000000 --target 0
It prints one line per iteration and writes a CSV (--csv) of the learning curve; it stops
when the mean return of the last 100 episodes reaches --target (0: beats the built-in AI), or
when pongrl train's running mean reaches --target-running (bench/learners.py compares the two
learners on that one).
"""
import argparse
import csv
import os
import sys
import time

import numpy as np

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    sys.exit(
        "ppo_pong.py needs PyTorch: on Debian 12, `sudo apt-get install python3-torch` "
        "and run it with /usr/bin/python3"
    )

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import pongrl  # noqa: E402  (the source tree's copy unless pongrl is installed)

ACTIONS = np.array([0, 2, 3], dtype=np.int32)  # NOOP, RIGHT (up), LEFT (down)
D = 80 * 80
RUNNING_DECAY = 0.99  # pongrl train's running mean (src/train/state.h: TRAIN_RUNNING_DECAY)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env-id", default="ALE/Pong-v5")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--total-steps", type=int, default=20_000_000, help="agent steps, all envs")
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--num-steps", type=int, default=128, help="steps per env per rollout")
    p.add_argument("--env-threads", type=int, default=1)
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--anneal-lr", type=int, default=1)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.1)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--max-nnz", type=int, default=192, help="non-zero inputs kept per sample")
    p.add_argument(
        "--target", type=float, default=None, help="stop when the mean return of the last 100 episodes reaches this"
    )
    p.add_argument(
        "--target-running", type=float, default=None, help="stop when the running mean (as pongrl train's) reaches this"
    )
    p.add_argument("--max-seconds", type=float, default=None, help="stop after this long")
    p.add_argument("--csv", default=None, help="learning curve: one row per iteration")
    p.add_argument("--save", default=None, help="write the final weights here (torch.save)")
    return p.parse_args()


# ----------------------------------------------------------------------------
# sparse inputs: [frame, frame - previous frame] as padded (index, weight) lists


def sparse_inputs(cur, prev, L):
    """cur, prev: uint8 (N, 80, 80) in {0, 1} -> idx int64 (N, L), w float32 (N, L).

    The non-zero bytes are found through the non-zero 8-byte words: 8x less to scan."""
    n = cur.shape[0]
    c = cur.reshape(n, D).view(np.int8)
    x = np.concatenate([c, c - prev.reshape(n, D).view(np.int8)], axis=1)  # (N, 12800)
    wr, wc = np.nonzero(x.view(np.uint64))  # non-zero words
    bytes8 = x.reshape(n, 2 * D // 8, 8)[wr, wc]  # (k, 8)
    kr, kb = np.nonzero(bytes8)
    rows, cols = wr[kr], wc[kr] * 8 + kb  # sorted by row
    starts = np.searchsorted(rows, np.arange(n))
    rank = np.arange(rows.size) - starts[rows]
    keep = rank < L
    idx = np.zeros((n, L), dtype=np.int64)
    w = np.zeros((n, L), dtype=np.float32)
    idx[rows[keep], rank[keep]] = cols[keep]
    w[rows[keep], rank[keep]] = x[rows[keep], cols[keep]]
    return idx, w


class Agent(nn.Module):
    def __init__(self, hidden, n_actions):
        super().__init__()
        self.W1 = nn.Parameter(torch.randn(2 * D, hidden) / np.sqrt(40.0))  # ~40 non-zeros a sample
        self.b1 = nn.Parameter(torch.zeros(hidden))
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.pi.weight, 0.01)
        nn.init.zeros_(self.pi.bias)
        nn.init.orthogonal_(self.v.weight, 1.0)
        nn.init.zeros_(self.v.bias)
        self.rows = None  # (the rows of W1 the last training forward used, their copy)

    def hidden(self, idx, w, train=False):
        """h = relu(sum over non-zeros of w * W1[idx] + b1). With train=True, W1's rows that
        the batch uses are copied into a small leaf tensor, so backward and the optimiser
        touch those rows only (about 2,000 of 12,800)."""
        keep = w != 0  # drop the padding
        offsets = torch.zeros(idx.shape[0], dtype=torch.int64)
        offsets[1:] = keep.sum(1).cumsum(0)[:-1]
        flat, fw = idx[keep], w[keep]
        if train:
            uniq, local_idx = torch.unique(flat, return_inverse=True)
            local = self.W1.detach()[uniq].requires_grad_()
            self.rows = (uniq, local)
            e = F.embedding_bag(local_idx, local, offsets, mode="sum", per_sample_weights=fw)
        else:
            e = F.embedding_bag(flat, self.W1, offsets, mode="sum", per_sample_weights=fw)
        return F.relu(e + self.b1)

    def get_value(self, idx, w):
        return self.v(self.hidden(idx, w)).squeeze(-1)

    def get_action_and_value(self, idx, w, action=None, train=False):
        h = self.hidden(idx, w, train)
        dist = torch.distributions.Categorical(logits=self.pi(h))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.v(h).squeeze(-1)


class RowAdam:
    """Adam on the rows of W1 a minibatch touched (lazy, like torch.optim.SparseAdam)."""

    def __init__(self, W, lr, betas=(0.9, 0.999), eps=1e-5):
        self.W, self.lr, self.betas, self.eps = W, lr, betas, eps
        self.m, self.v = torch.zeros_like(W), torch.zeros_like(W)
        self.t = 0

    @torch.no_grad()
    def step(self, rows, grad):
        b1, b2 = self.betas
        self.t += 1
        m = self.m[rows].mul_(b1).add_(grad, alpha=1 - b1)
        v = self.v[rows].mul_(b2).addcmul_(grad, grad, value=1 - b2)
        self.m[rows], self.v[rows] = m, v
        step = self.lr * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        self.W[rows] -= step * m / (v.sqrt() + self.eps)


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    N, T, L = args.num_envs, args.num_steps, args.max_nnz
    batch = N * T
    minibatch = batch // args.num_minibatches
    iterations = max(1, args.total_steps // batch)

    envs = pongrl.make_vec(args.env_id, N, num_threads=args.env_threads, obs_type="obs80", copy=False)
    agent = Agent(args.hidden, len(ACTIONS))
    dense = [p for n, p in agent.named_parameters() if n != "W1"]
    optimizer = torch.optim.Adam(dense, lr=args.lr, eps=1e-5)
    row_adam = RowAdam(agent.W1.data, args.lr)

    # rollout storage
    b_idx = torch.zeros((T, N, L), dtype=torch.int64)
    b_w = torch.zeros((T, N, L))
    actions = torch.zeros((T, N), dtype=torch.int64)
    logprobs = torch.zeros((T, N))
    rewards = torch.zeros((T, N))
    dones = torch.zeros((T, N))
    values = torch.zeros((T, N))

    obs, _ = envs.reset(seed=args.seed)
    prev = np.zeros_like(obs)
    idx, w = sparse_inputs(obs, prev, L)
    prev = obs.copy()
    next_done = torch.zeros(N)
    returns_seen = []
    running = float("nan")  # as pongrl train's: the first episode's return, then 0.99 x running + 0.01 x return
    global_step, t0 = 0, time.time()
    writer = None
    if args.csv:
        f = open(args.csv, "w", newline="")
        writer = csv.writer(f)
        writer.writerow(
            [
                "iteration",
                "agent_steps",
                "seconds",
                "episodes",
                "mean_return_100",
                "steps_per_sec",
                "policy_loss",
                "value_loss",
                "entropy",
                "running_mean",
            ]
        )
    print(
        "ppo_pong: %s, %d envs x %d steps, %d iterations, torch %s, %d+%d threads"
        % (args.env_id, N, T, iterations, torch.__version__, args.env_threads, args.torch_threads)
    )

    for it in range(1, iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = row_adam.lr = args.lr * (1.0 - (it - 1.0) / iterations)
        for step in range(T):
            global_step += N
            ti, tw = torch.from_numpy(idx), torch.from_numpy(w)
            b_idx[step], b_w[step], dones[step] = ti, tw, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(ti, tw)
            values[step], actions[step], logprobs[step] = value, action, logprob
            obs, reward, term, trunc, info = envs.step(ACTIONS[action.numpy()])
            done = np.logical_or(term, trunc)
            rewards[step] = torch.from_numpy(reward.astype(np.float32))
            next_done = torch.from_numpy(done.astype(np.float32))
            if done.any():  # SAME_STEP autoreset: obs is the new episode's first frame
                prev[done] = 0
                ep = info["final_info"]["episode"]
                for r in ep["r"][done].tolist():  # episodes in (step, env) order, as in C
                    running = r if not returns_seen else RUNNING_DECAY * running + (1 - RUNNING_DECAY) * r
                    returns_seen.append(r)
            idx, w = sparse_inputs(obs, prev, L)
            prev[:] = obs

        # GAE, as CleanRL
        with torch.no_grad():
            next_value = agent.get_value(torch.from_numpy(idx), torch.from_numpy(w))
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(T)):
                if t == T - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        f_idx, f_w = b_idx.reshape(batch, L), b_w.reshape(batch, L)
        f_act, f_logp = actions.reshape(-1), logprobs.reshape(-1)
        f_adv, f_ret, f_val = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)
        for epoch in range(args.update_epochs):
            perm = torch.randperm(batch)
            for start in range(0, batch, minibatch):
                mb = perm[start : start + minibatch]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(f_idx[mb], f_w[mb], f_act[mb], train=True)
                ratio = (newlogprob - f_logp[mb]).exp()
                adv = f_adv[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_clipped = f_val[mb] + (newvalue - f_val[mb]).clamp(-args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((newvalue - f_ret[mb]) ** 2, (v_clipped - f_ret[mb]) ** 2).mean()
                ent = entropy.mean()
                loss = pg_loss - args.ent_coef * ent + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                rows, local = agent.rows
                nn.utils.clip_grad_norm_(dense + [local], args.max_grad_norm)
                optimizer.step()
                row_adam.step(rows, local.grad)

        elapsed = time.time() - t0
        mean100 = float(np.mean(returns_seen[-100:])) if returns_seen else float("nan")
        sps = global_step / elapsed
        print(
            "iter %5d  steps %9d  %7.1f s  episodes %6d  mean return (last 100) %+6.2f  running %+6.2f  %6.0f steps/s"
            % (it, global_step, elapsed, len(returns_seen), mean100, running, sps),
            flush=True,
        )
        if writer:
            writer.writerow(
                [
                    it,
                    global_step,
                    "%.1f" % elapsed,
                    len(returns_seen),
                    "%.3f" % mean100,
                    "%.0f" % sps,
                    "%.4f" % pg_loss.item(),
                    "%.4f" % v_loss.item(),
                    "%.4f" % ent.item(),
                    "%.6f" % running,
                ]
            )
            f.flush()
        if args.target is not None and len(returns_seen) >= 100 and mean100 >= args.target:
            print(
                "reached mean return %+.2f >= %+.2f after %d agent steps, %d episodes, %.0f s"
                % (mean100, args.target, global_step, len(returns_seen), elapsed)
            )
            break
        if args.target_running is not None and returns_seen and running >= args.target_running:
            print(
                "reached running mean %+.2f >= %+.2f after %d agent steps, %d episodes, %.0f s"
                % (running, args.target_running, global_step, len(returns_seen), elapsed)
            )
            break
        if args.max_seconds is not None and elapsed >= args.max_seconds:
            print("stopped after %.0f s (--max-seconds)" % elapsed)
            break
    if args.save:
        torch.save(agent.state_dict(), args.save)
    envs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
