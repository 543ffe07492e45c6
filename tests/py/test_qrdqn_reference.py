"""QR-DQN in C (src/algo/qrdqn/: qr_update.c, qr_net.c, rl/sparse_input.c, rl/adam.c) against
NumPy: one update exported by build/qrdqn_dump (tests/reference/qrdqn_dump.c), then in float64
here: each sampled state's input rebuilt from its frames (the frame, its difference and their
coarse views), the n-step targets from the window's rewards and ends (R + gamma^n times the
target network's quantiles of its greedy action, R alone past an episode's end), the quantile
Huber loss (Dabney et al.; Dopamine's: sum over the online quantiles of the mean over the
targets), its gradient by hand (checked by central differences on a few weights), and one step
of Adam (torch.optim.Adam's formula; on W1 only the rows the minibatch's inputs touch, as
torch.optim.SparseAdam). Agreement within 1e-12 relative, for n = 3 and n = 1."""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from relcheck import RelCheck  # noqa: E402

check = RelCheck(1e-12)
DUMP = os.environ.get("PONGRL_QRDQN_DUMP", os.path.join(os.path.dirname(__file__), "..", "..", "build", "qrdqn_dump"))


def coarse(f):
    """The coarse view of a binary 80x80 frame (1040,): 20x20 cells of 4x4, rows lit in each band
    of 20 columns, columns lit in each band of 20 rows."""
    f = f.reshape(80, 80)
    c = np.zeros(1040)
    c[:400] = f.reshape(20, 4, 20, 4).max(axis=(1, 3)).ravel()
    for b in range(4):
        c[400 + b * 80 : 400 + (b + 1) * 80] = f[:, b * 20 : (b + 1) * 20].max(axis=1)
        c[720 + b * 80 : 720 + (b + 1) * 80] = f[b * 20 : (b + 1) * 20, :].max(axis=0)
    return c


def state_input(cur, prev):
    cur, prev = cur.ravel().astype(np.float64), prev.ravel().astype(np.float64)
    cc, pc = coarse(cur), coarse(prev)
    return np.concatenate([cur, cur - prev, cc, cc - pc])


def unpack(w, D, H, O):
    W1 = w[: D * H].reshape(D, H)
    b1 = w[D * H : D * H + H]
    W2 = w[D * H + H : D * H + H + O * H].reshape(O, H)
    b2 = w[D * H + H + O * H :]
    return W1, b1, W2, b2


def forward(w, X, D, H, O):
    W1, b1, W2, b2 = unpack(w, D, H, O)
    h = np.maximum(X @ W1 + b1, 0.0)
    return h, h @ W2.T + b2


def loss_and_grad(w, X, targets, action, D, H, A, N, kappa):
    """The minibatch's mean loss and its gradient wrt every weight."""
    O = A * N
    W1, b1, W2, b2 = unpack(w, D, H, O)
    pre = X @ W1 + b1
    h = np.maximum(pre, 0.0)
    q = (h @ W2.T + b2).reshape(-1, A, N)
    B = X.shape[0]
    qa = q[np.arange(B), action]  # (B, N)
    tau = (2 * np.arange(N) + 1) / (2.0 * N)
    u = targets[:, None, :] - qa[:, :, None]  # (B, i, j)
    wgt = np.abs(tau[None, :, None] - (u < 0))
    au = np.abs(u)
    hub = np.where(au <= kappa, 0.5 * u * u, kappa * (au - 0.5 * kappa))
    loss = (wgt * hub / kappa).mean(axis=2).sum(axis=1).mean()
    dhub = np.where(au <= kappa, u, kappa * np.sign(u))
    dqa = -(wgt * dhub / kappa).mean(axis=2) / B  # (B, N)
    dq = np.zeros((B, A, N))
    dq[np.arange(B), action] = dqa
    dq = dq.reshape(B, O)
    gW2 = dq.T @ h
    gb2 = dq.sum(axis=0)
    dh = (dq @ W2) * (pre > 0)
    gb1 = dh.sum(axis=0)
    gW1 = X.T @ dh
    return loss, np.concatenate([gW1.ravel(), gb1, gW2.ravel(), gb2])


def run(nstep, out):
    subprocess.run([DUMP, "--nstep", str(nstep), "--out", out], check=True)
    L = lambda name: np.load(os.path.join(out, name + ".npy"))  # noqa: E731
    D, H, A, N, n, t = (int(v) for v in L("shape"))
    assert n == nstep
    gamma, lr, eps, kappa, c_loss = L("hyper")
    w, target, m, v = L("w"), L("target"), L("m"), L("v")
    action, reward, flags = L("action"), L("reward"), L("flags")
    frames = L("frames").reshape(-1, 4, 6400)
    B, O = len(action), A * N
    X = np.stack([state_input(f[0], f[1]) for f in frames])
    Xn = np.stack([state_input(f[2], f[3]) for f in frames])
    # n-step targets
    _, qn = forward(target, Xn, D, H, O)
    qn = qn.reshape(B, A, N)
    targets = np.zeros((B, N))
    for b in range(B):
        R, disc, ended = 0.0, 1.0, False
        for k in range(n):
            R += disc * reward[b, k]
            disc *= gamma
            if flags[b, k] & 1:
                ended = True
                break
        if ended:
            targets[b] = R
        else:
            a_star = int(np.argmax(qn[b].mean(axis=1)))
            targets[b] = R + disc * qn[b, a_star]
    loss, g = loss_and_grad(w, X, targets, action, D, H, A, N, kappa)
    check(f"loss n={n}", c_loss, loss)
    # the hand gradient against central differences on a few weights (b2, W2, b1, W1 rows used)
    rows = np.flatnonzero(np.abs(X).sum(axis=0))
    probe = [D * H + H + O * H + 1, D * H + H + 5, D * H + 3, rows[0] * H + 2, rows[-1] * H + 7]
    for k in probe:
        e = 1e-6
        wp, wm = w.copy(), w.copy()
        wp[k] += e
        wm[k] -= e
        fd = (
            loss_and_grad(wp, X, targets, action, D, H, A, N, kappa)[0]
            - loss_and_grad(wm, X, targets, action, D, H, A, N, kappa)[0]
        ) / (2 * e)
        assert abs(fd - g[k]) <= 1e-6 * max(1.0, abs(g[k])), f"gradient {k}: hand {g[k]}, differences {fd}"
    # Adam: the touched W1 rows and the whole tail move; the other rows keep their weights and moments
    b1_, b2_ = 0.9, 0.999
    touched = np.zeros(D, bool)
    touched[rows] = True
    mask = np.concatenate([np.repeat(touched, H), np.ones(len(w) - D * H, bool)])
    m_new, v_new, w_new = m.copy(), v.copy(), w.copy()
    m_new[mask] = b1_ * m[mask] + (1 - b1_) * g[mask]
    v_new[mask] = b2_ * v[mask] + (1 - b2_) * g[mask] ** 2
    w_new[mask] = w[mask] - (lr / (1 - b1_**t)) * m_new[mask] / (np.sqrt(v_new[mask]) / np.sqrt(1 - b2_**t) + eps)
    check(f"m after n={n}", L("m_new"), m_new)
    check(f"v after n={n}", L("v_new"), v_new)
    check(f"w after n={n}", L("w_new") - w, w_new - w)
    check(f"w after (all) n={n}", L("w_new"), w_new)
    ended = int((flags & 1).any(axis=1).sum())
    print(f"n={n}: {B} transitions, {int((reward != 0).any(axis=1).sum())} with a reward, {ended} with an end")


def main():
    if not os.path.exists(DUMP):
        print(f"skip: {DUMP} not built (make build/qrdqn_dump)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as d3, tempfile.TemporaryDirectory() as d1:
        run(3, d3)
        run(1, d1)
    print(check.summary())


if __name__ == "__main__":
    main()
