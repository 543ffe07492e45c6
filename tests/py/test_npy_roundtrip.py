"""Weights in and out of Karpathy's NumPy layout: `pongrl export` writes W1 (H, 6400) and
W2 (H,) float64 that numpy.load reads, equal to what build/dump_episodes writes for the same seed;
arrays numpy saves (perturbed here, as a model trained by Karpathy's Python code would be)
are accepted by import and eval and exported back bit for bit; files numpy could write but
that are not Karpathy's model (float32, Fortran order, wrong shapes) are refused in one line."""
import os, subprocess, sys, tempfile
import numpy as np

BIN = os.environ.get("PONGRL_BIN", "build/pongrl")
DUMP = os.environ.get("PONGRL_DUMP", "build/dump_episodes")


def run(*args, ok=True):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
    return p


def load(d):
    return np.load(os.path.join(d, "W1.npy")), np.load(os.path.join(d, "W2.npy"))


def main():
    H = 16
    with tempfile.TemporaryDirectory() as t:
        j = lambda *p: os.path.join(t, *p)
        # a fresh run's first checkpoint is Karpathy's initialisation: compare with dump's W1/W2
        run(
            "train",
            "--hidden",
            str(H),
            "--batch-size",
            "2",
            "--seed",
            "3",
            "--iterations",
            "2",
            "--quiet",
            "--workers",
            "1",
            "--run-dir",
            j("run"),
        )
        run("export", j("run", "checkpoints", "ckpt-00000000.bin"), "--out", j("exp0"))
        os.mkdir(j("dump"))
        subprocess.run(
            [DUMP, "--seed", "3", "--hidden", str(H), "--episodes", "1", "--out", j("dump")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        W1, W2 = load(j("exp0"))
        D1, D2 = load(j("dump"))
        assert W1.shape == (H, 6400) and W2.shape == (H,), (W1.shape, W2.shape)
        assert W1.dtype == np.float64 and W2.dtype == np.float64 and W1.flags["C_CONTIGUOUS"]
        assert np.array_equal(W1, D1) and np.array_equal(W2, D2), "export differs from dump's layout"
        # Karpathy's scale: randn / sqrt(D) and randn / sqrt(H)
        print(f"OK export == dump: W1 {W1.shape} std*sqrt(D) {W1.std() * 80:.3f}, W2 {W2.shape}")

        # the trained weights: the run dir means its newest checkpoint
        run("export", j("run"), "--out", j("exp2"))
        T1, T2 = load(j("exp2"))
        assert not np.array_equal(T1, W1), "training changed nothing?"

        # numpy writes a model (perturbed), pongrl imports, evaluates and exports it back
        rng = np.random.default_rng(0)
        P1 = T1 + 0.01 * rng.standard_normal(T1.shape)
        P2 = T2 + 0.01 * rng.standard_normal(T2.shape)
        os.mkdir(j("np"))
        np.save(j("np", "W1.npy"), P1)
        np.save(j("np", "W2.npy"), P2)
        run("import", j("np"), "--out", j("model.bin"))
        e1 = run("eval", j("model.bin"), "--episodes", "3", "--workers", "2").stdout
        e2 = run("eval", j("np"), "--episodes", "3", "--workers", "2").stdout
        strip = lambda s: "\n".join(s.splitlines()[2:])  # the first two lines name the source
        assert strip(e1) == strip(e2) and "mean score:" in e1, (e1, e2)
        run("export", j("model.bin"), "--out", j("back"))
        B1, B2 = load(j("back"))
        assert np.array_equal(B1, P1) and np.array_equal(B2, P2), "import/export is not exact"
        print("OK numpy -> import -> eval -> export is exact;", strip(e1).splitlines()[0])

        # not Karpathy's model: refused with one line, no crash
        bad = {
            "float32": (P1.astype(np.float32), P2),
            "fortran": (np.asfortranarray(P1), P2),
            "wrong W1 shape": (P1[:, :100], P2),
            "W2 not matching": (P1, P2[:5]),
            "transposed": (P1.T.copy(), P2),
        }
        for name, (a, b) in bad.items():
            d = j("bad-" + name.replace(" ", "_"))
            os.mkdir(d)
            np.save(os.path.join(d, "W1.npy"), a)
            np.save(os.path.join(d, "W2.npy"), b)
            for cmd in (["import", d, "--out", j("x.bin")], ["eval", d, "--episodes", "1"]):
                p = run(*cmd, ok=False)
                lines = p.stderr.strip().splitlines()
                assert p.returncode == 1 and len(lines) == 1 and lines[0].startswith("pongrl: "), (
                    name,
                    p.returncode,
                    p.stderr,
                )
            print(f"OK refused {name}: {lines[0]}")
        # a truncated .npy
        os.mkdir(j("trunc"))
        data = open(j("np", "W1.npy"), "rb").read()
        open(j("trunc", "W1.npy"), "wb").write(data[: len(data) // 2])
        np.save(j("trunc", "W2.npy"), P2)
        p = run("eval", j("trunc"), ok=False)
        assert p.returncode == 1 and "truncated" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
        print("OK refused truncated:", p.stderr.strip())


if __name__ == "__main__":
    main()
