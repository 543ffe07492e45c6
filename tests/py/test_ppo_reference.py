"""PPO in C (src/algo/ppo/: ppo_grad.c, acnet.c, ...) against NumPy: one batch played and exported
by build/ppo_dump (tests/reference/ppo_dump.c), then in float64 here: the input's coarse views
(recomputed from its frames), the network's forward pass (the logp and value recorded while playing), GAE, the minibatch's losses and gradient
(CleanRL's ppo_atari.py loss, differentiated by hand and checked by central differences), and
one step of global-norm clipping and Adam (torch.optim.Adam's formula; on W1 only the rows the
minibatch touches, as torch.optim.SparseAdam), with 1, 2 and 3 threads (which must give the same
bits). W1, its Adam moments and its gradient are float32 in C, and so is their arithmetic (a
float32 first layer's, as torch trains one): the first layer's sum is emulated here as C adds it
(first_layer: float32, in the input's order), so the forward pass, the losses and the tail's
gradient are held to 1e-10; W1's gradient (summed in float32 from dh rounded to float32) and its
Adam step to float32's precision (F32_TOL), and that step is also torch's float32 Adam from C's
own gradient to the bit. Also a separate value network (--value-hidden): the same network with
Wpi's last V columns and wv's first H - V entries at zero, whose gradient is the shared
network's with those entries left out."""
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from relcheck import RelCheck  # noqa: E402

# acnet.c's first layer in NumPy (each sample's float32 rows added in the input's order in float32,
# then b1 in float64: C's bits), from python/pongrl/learners/ppo.py loaded from its path as
# tools/play_npy.py loads the networks (load_nets: a package whose __init__.py is not run, NumPy
# only), not through the package and its C library
_PKG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "pongrl")
_spec = importlib.util.spec_from_file_location(
    "pongrl_nets", os.path.join(_PKG, "__init__.py"), submodule_search_locations=[_PKG]
)
sys.modules.setdefault("pongrl_nets", importlib.util.module_from_spec(_spec))
first_layer = importlib.import_module("pongrl_nets.learners.ppo").first_layer

check = RelCheck(1e-10)
# what W1's float32 gradient and step are held to (float32 has 24 bits: 6e-8 a rounding; a
# row's sum has up to a few hundred of them), where the float64 parts are held to 1e-10
F32_TOL = 1e-6


class Net:
    """The acnet.h layout: W1 (D, H) | b1 (H) | Wpi (A, H) | bpi (A) | wv (H) | bv (1)."""

    def __init__(self, D, H, A, f32=True):
        self.D, self.H, self.A = D, H, A
        self.n = D * H + H + A * H + A + H + 1
        self.f32 = f32  # the first layer as C sums it (first_layer), else in float64

    def unpack(self, w):
        D, H, A = self.D, self.H, self.A
        o = D * H
        W1 = w[:o].reshape(D, H)
        b1 = w[o : o + H]
        o += H
        Wpi = w[o : o + A * H].reshape(A, H)
        o += A * H
        bpi = w[o : o + A]
        o += A
        wv = w[o : o + H]
        o += H
        bv = w[o]
        return W1, b1, Wpi, bpi, wv, bv

    def pack(self, W1, b1, Wpi, bpi, wv, bv):
        return np.concatenate([W1.ravel(), b1, Wpi.ravel(), bpi, wv, [bv]])

    def forward(self, w, X):
        W1, b1, Wpi, bpi, wv, bv = self.unpack(w)
        pre = first_layer(X, W1.astype(np.float32), b1) if self.f32 else X @ W1 + b1
        h = np.maximum(pre, 0.0)
        return h, h @ Wpi.T + bpi, h @ wv + bv


def log_softmax(z):
    m = z.max(axis=1, keepdims=True)
    return z - (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True)))


def coarse_views(frames):
    """(B, 6400) binary frames -> (B, 1040): 20x20 cells of 4x4 pixels (any lit), then for each
    of 4 bands of 20 columns the lit rows (80), then for each of 4 bands of 20 rows the lit columns."""
    f = frames.reshape(-1, 80, 80) > 0
    cells = f.reshape(-1, 20, 4, 20, 4).any(axis=(2, 4)).reshape(-1, 400)
    rows = f.reshape(-1, 80, 4, 20).any(axis=3).transpose(0, 2, 1).reshape(-1, 320)  # (band, y)
    cols = f.reshape(-1, 4, 20, 80).any(axis=2).reshape(-1, 320)  # (band, x)
    return np.concatenate([cells, rows, cols], axis=1).astype(np.float64)


def gae(reward, done, value, next_value, N, T, gamma, lam):
    r, d, v = (a.reshape(N, T) for a in (reward, done, value))
    adv = np.zeros((N, T))
    last = np.zeros(N)
    for t in reversed(range(T)):
        nonterminal = 1.0 - d[:, t]
        nxt = next_value if t == T - 1 else v[:, t + 1]
        delta = r[:, t] + gamma * nxt * nonterminal - v[:, t]
        last = delta + gamma * lam * nonterminal * last
        adv[:, t] = last
    return adv.ravel(), (adv + v).ravel()


def loss_terms(net, w, X, a, old_logp, old_v, adv_n, ret, clip, ent_coef, vf_coef):
    """CleanRL's loss of one minibatch: (loss, [pg, v, entropy, approx_kl, clipfrac])."""
    _, logits, v = net.forward(w, X)
    logp_all = log_softmax(logits)
    p = np.exp(logp_all)
    ent = -(p * logp_all).sum(axis=1)
    logratio = logp_all[np.arange(len(a)), a] - old_logp
    ratio = np.exp(logratio)
    pg = np.maximum(-adv_n * ratio, -adv_n * np.clip(ratio, 1 - clip, 1 + clip)).mean()
    v_clipped = old_v + np.clip(v - old_v, -clip, clip)
    vl = 0.5 * np.maximum((v - ret) ** 2, (v_clipped - ret) ** 2).mean()
    loss = pg - ent_coef * ent.mean() + vf_coef * vl
    stats = [pg, vl, ent.mean(), ((ratio - 1) - logratio).mean(), (np.abs(ratio - 1) > clip).mean()]
    return loss, stats


def loss_grad(net, w, X, a, old_logp, old_v, adv_n, ret, clip, ent_coef, vf_coef):
    """The gradient of loss_terms' loss, by hand (backpropagation in matrix form)."""
    W1, b1, Wpi, bpi, wv, bv = net.unpack(w)
    M = len(a)
    h, logits, v = net.forward(w, X)
    logp_all = log_softmax(logits)
    p = np.exp(logp_all)
    ent = -(p * logp_all).sum(axis=1)
    ratio = np.exp(logp_all[np.arange(M), a] - old_logp)
    pg1, pg2 = -adv_n * ratio, -adv_n * np.clip(ratio, 1 - clip, 1 + clip)
    dlogp = np.where(pg1 >= pg2, -adv_n * ratio, 0.0) / M
    onehot = np.eye(net.A)[a]
    dlogits = dlogp[:, None] * (onehot - p) + (ent_coef / M) * p * (logp_all + ent[:, None])
    dvv = v - old_v
    vc = old_v + np.clip(dvv, -clip, clip)
    l1, l2 = (v - ret) ** 2, (vc - ret) ** 2
    inside = (dvv >= -clip) & (dvv <= clip)
    dv = vf_coef * np.where(l1 >= l2, v - ret, np.where(inside, vc - ret, 0.0)) / M
    gWpi, gbpi = dlogits.T @ h, dlogits.sum(0)
    gwv, gbv = h.T @ dv, dv.sum()
    dh = (dlogits @ Wpi + dv[:, None] * wv[None, :]) * (h > 0)
    gW1, gb1 = X.T @ dh, dh.sum(0)
    return net.pack(gW1, gb1, gWpi, gbpi, gwv, gbv)


def adam(w, m, v, g, lr, t, b1=0.9, b2=0.999, eps=1e-5):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    step = lr / (1 - b1**t)
    denom = np.sqrt(v) / np.sqrt(1 - b2**t) + eps
    return w - step * (m / denom), m, v


def run_dump(d, threads, coarse=1, value_hidden=0, ent_coef=None):
    dump = os.environ.get("PONGRL_PPO_DUMP", os.path.join(os.path.dirname(__file__), "..", "..", "build", "ppo_dump"))
    if not os.path.exists(dump):
        print(f"skip: {dump} not built (make build/ppo_dump)")
        sys.exit(77)
    subprocess.run(
        [
            dump,
            "--seed",
            "5",
            "--threads",
            str(threads),
            "--coarse",
            str(coarse),
            "--value-hidden",
            str(value_hidden),
            "--out",
            d,
        ]
        + ([] if ent_coef is None else ["--ent-coef", repr(ent_coef)]),
        check=True,
    )
    return lambda name: np.load(os.path.join(d, name + ".npy"))


def main():
    results = {}
    for threads in (1, 2, 3):
        with tempfile.TemporaryDirectory() as d:
            L = run_dump(d, threads)
            results[threads] = {k: L(k) for k in ("grad", "w_new", "m_new", "v_new")}
            if threads == 2:
                verify(L)
    with tempfile.TemporaryDirectory() as d:
        print("without the coarse views:")
        verify(run_dump(d, 2, coarse=0))
    with tempfile.TemporaryDirectory() as d:
        print("a separate value network (--value-hidden 6, H = 16):")
        verify(run_dump(d, 2, value_hidden=6))
    with tempfile.TemporaryDirectory() as d:
        print("an entropy penalty (--ent-coef -0.05):")
        L = run_dump(d, 2, ent_coef=-0.05)
        assert L("hyper")[4] == -0.05, "ppo_dump did not take --ent-coef"
        verify(L)
    for threads in (1, 3):
        for k in results[2]:
            if not np.array_equal(results[threads][k].view(np.uint64), results[2][k].view(np.uint64)):
                print(f"BAD {k}: {threads} threads and 2 threads give different bits")
                sys.exit(1)
        print(f"OK  1, 2, 3 threads: the same bits ({threads} vs 2)")
    print(f"overall okay: {check.summary()}; W1's gradient and step to {F32_TOL:g}")


def verify(L):
    D, H, A, adam_t, M, V = (int(s) for s in L("shape"))
    lr, gamma, lam, clip, ent_coef, vf_coef, max_norm, c_norm = L("hyper")
    net = Net(D, H, A)
    w, m, v = L("w"), L("m"), L("v")
    assert w.shape == (net.n,)
    X = L("x").astype(np.float64)
    B = X.shape[0]
    N = L("next_value").shape[0]
    T = B // N
    a = L("action").astype(np.int64)
    print(
        f"batch: {N} envs x {T} steps, H = {H}, {np.count_nonzero(X) / B:.1f} non-zeros a sample, "
        f"{int(L('done').sum())} episode ends, Adam step {adam_t}"
    )
    assert np.count_nonzero(m) > 0, "Adam's moments are still zero: the test would not see them"
    # W1 and its moments are stored float32 (acnet.h): the dumps are their float64 widening
    for name in ("w", "m", "v", "w_new", "m_new", "v_new"):
        W = L(name)[: D * H]
        if not np.array_equal(W.astype(np.float32).astype(np.float64), W):
            print(f"BAD {name}: W1's part is not float32 numbers")
            sys.exit(1)
    print("OK  W1 and its moments are float32 numbers, before and after the step")
    assert L("done").sum() > 0, "no episode ends in the batch: GAE's cut would go untested"
    # the input (ppo.h): the 80x80 frame (binary), its difference from the previous frame, and,
    # recomputed here from those two frames, the coarse views of each and their difference
    P = 6400
    cur, diff = X[:, :P], X[:, P : 2 * P]
    prev = cur - diff
    assert set(np.unique(cur)) <= {0, 1} and set(np.unique(prev)) <= {0, 1}
    if D > 2 * P:
        cc, pc = coarse_views(cur), coarse_views(prev)
        check("coarse views", X[:, 2 * P :], np.concatenate([cc, cc - pc], axis=1))

    # forward, as played
    _, logits, value = net.forward(w, X)
    check("value (played)", L("value"), value)
    check("logp (played)", L("logp"), log_softmax(logits)[np.arange(B), a])

    adv, ret = gae(L("reward"), L("done").astype(np.float64), L("value"), L("next_value"), N, T, gamma, lam)
    check("advantages", L("adv"), adv)
    check("returns", L("ret"), ret)

    mb = L("mb")
    Xm, am = X[mb], a[mb]
    advm = L("adv")[mb]
    adv_n = (advm - advm.mean()) / (advm.std(ddof=1) + 1e-8)
    args = (Xm, am, L("logp")[mb], L("value")[mb], adv_n, L("ret")[mb], clip, ent_coef, vf_coef)
    loss, stats = loss_terms(net, w, *args)
    check("losses", L("stats"), np.array(stats))
    g = loss_grad(net, w, *args)
    # a separate value network: the policy reads units [0, H - V), the value [H - V, H); the
    # entries that join them are zero and are not trained (their gradient is left out)
    split = np.zeros(net.n, dtype=bool)
    if V > 0:
        o = D * H + H
        split[o : o + A * H] = np.tile(np.arange(H) >= H - V, A)  # Wpi's last V columns
        o += A * H + A
        split[o : o + H] = np.arange(H) < H - V  # wv's first H - V entries
        for name, arr in (("before", w), ("after the step", L("w_new"))):
            if np.count_nonzero(arr[split]):
                print(
                    f"BAD separate value network: {np.count_nonzero(arr[split])} of its {split.sum()} zero entries "
                    f"are not zero {name}"
                )
                sys.exit(1)
        print(
            f"OK  separate value network: Wpi's last {V} columns and wv's first {H - V} entries are zero before and "
            f"after the step ({split.sum()} entries)"
        )
    gs = np.where(split, 0.0, g)
    # W1's gradient is summed in float32 from the samples' dh rounded to float32 (ppo_grad.c):
    # held to float32's precision; the tail's is float64
    o = D * H
    check("gradient of W1", L("grad")[:o], gs[:o], tol=F32_TOL)
    check("gradient of tail", L("grad")[o:], gs[o:])

    # the hand-written gradient against central differences of the loss, on a few weights of
    # each part (W1's on rows the minibatch uses), both in float64 (a float32 first layer would
    # round the differences' steps away)
    net64 = Net(D, H, A, f32=False)
    g64 = loss_grad(net64, w, *args)
    rng = np.random.default_rng(0)
    used = np.flatnonzero(np.abs(Xm).sum(0))
    picks = [r * H + rng.integers(H) for r in rng.choice(used, 6, replace=False)]
    picks += list(D * H + rng.choice(net.n - D * H, 10, replace=False))
    fd_worst = 0.0
    for k in picks:
        eps = 1e-6
        wp, wm = w.copy(), w.copy()
        wp[k] += eps
        wm[k] -= eps
        fd = (loss_terms(net64, wp, *args)[0] - loss_terms(net64, wm, *args)[0]) / (2 * eps)
        fd_worst = max(fd_worst, abs(fd - g64[k]) / max(np.abs(g64).max(), 1e-12))
    print(
        f"{'OK ' if fd_worst < 1e-6 else 'BAD'} finite differences: max rel diff {fd_worst:.3e} on {len(picks)} weights"
    )
    if fd_worst >= 1e-6:
        sys.exit(1)

    # clip the global norm, then Adam; W1 rows the minibatch does not touch stay as they were
    norm = np.sqrt((gs * gs).sum())
    check("grad norm", [c_norm], [norm], tol=F32_TOL)
    touched = np.zeros(net.n, dtype=bool)
    touched[(used[:, None] * H + np.arange(H)).ravel()] = True
    touched[D * H :] = True
    untouched = ~touched
    for name, ours, before in (("W1", L("w_new"), w), ("m of W1", L("m_new"), m), ("v of W1", L("v_new"), v)):
        if not np.array_equal(ours[untouched], before[untouched]):
            print(f"BAD Adam: {name} moved on rows the minibatch does not touch")
            sys.exit(1)
    # the step from the reference's gradient, in float64: close to C's (whose gradient is float32)
    coef = min(1.0, max_norm / (norm + 1e-6))
    w_new, m_new, v_new = w.copy(), m.copy(), v.copy()
    w_new[touched], m_new[touched], v_new[touched] = adam(
        w[touched], m[touched], v[touched], gs[touched] * coef, lr, adam_t
    )
    # W1 and its moments are float32: the moments to float32's precision, each weight to its
    # float32 rounding (half a float32 step of it) plus float32's precision of the largest step
    check("Adam: m of W1", L("m_new")[:o], m_new[:o], tol=F32_TOL)
    check("Adam: v of W1", L("v_new")[:o], v_new[:o], tol=F32_TOL)
    step_max = np.abs(w_new[:o] - w[:o]).max()
    err = np.abs(L("w_new")[:o] - w_new[:o])
    room = np.spacing(np.abs(w_new[:o]).astype(np.float32)).astype(np.float64) + F32_TOL * step_max
    worst = (err / room).max()
    print(
        f"{'OK ' if worst <= 1 else 'BAD'} Adam: W1 within its float32 rounding and 1e-6 of the largest step: worst {worst:.3f} of the room"
    )
    if worst > 1:
        sys.exit(1)
    # and from C's own gradient and clip: W1's step is torch's Adam on float32 parameters, every
    # operation in float32 (NumPy's float32 arithmetic is IEEE's, as C's), so to the bit; the
    # tail's is float64, to 1e-10
    gc = L("grad")
    coef_c = min(1.0, max_norm / (c_norm + 1e-6))
    f = np.float32
    t1, t2 = f(0.9), f(0.999)
    g32 = gc[:o][touched[:o]].astype(f) * f(coef_c)
    m32 = t1 * m[:o][touched[:o]].astype(f) + f(1 - 0.9) * g32
    v32 = t2 * v[:o][touched[:o]].astype(f) + f(1 - 0.999) * (g32 * g32)
    m32[np.abs(m32) < np.finfo(f).tiny] = 0  # adam.h: a subnormal moment is stored as 0
    v32[v32 < np.finfo(f).tiny] = 0
    step32, ib32 = f(lr / (1 - 0.9**adam_t)), f(1 / np.sqrt(1 - 0.999**adam_t))
    w32 = w[:o][touched[:o]].astype(f) - step32 * (m32 / (np.sqrt(v32) * ib32 + f(1e-5)))
    for name, ours, ref in (("W1", L("w_new"), w32), ("m of W1", L("m_new"), m32), ("v of W1", L("v_new"), v32)):
        differ = np.count_nonzero(ours[:o][touched[:o]] != ref.astype(np.float64))
        print(f"{'OK ' if differ == 0 else 'BAD'} Adam in float32: {name:8s} {differ} of {len(ref)} entries differ")
        if differ:
            sys.exit(1)
    wt, mt, vt = adam(w[o:], m[o:], v[o:], gc[o:] * coef_c, lr, adam_t)
    check("Adam: step of tail (C's gradient)", L("w_new")[o:] - w[o:], wt - w[o:])
    check("Adam: m of tail", L("m_new")[o:], mt)
    check("Adam: v of tail", L("v_new")[o:], vt)


if __name__ == "__main__":
    main()
