"""The C policy gradient and RMSProp step against Karpathy's NumPy code (tests/reference/),
on real episodes played and exported by build/dump_episodes (tests/reference/dump_episodes.c). Agreement within 1e-9 relative."""
import os, subprocess, sys, tempfile
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
import karpathy_model as sm
from relcheck import RelCheck

check = RelCheck(1e-9)


def main():
    dump = os.environ.get("PONGRL_DUMP", "build/dump_episodes")
    with tempfile.TemporaryDirectory() as d:
        n = 3
        subprocess.run([dump, "--seed", "7", "--episodes", str(n), "--out", d], check=True)
        L = lambda name: np.load(os.path.join(d, name + ".npy"))
        W1, W2 = L("W1"), L("W2")
        assert W1.shape == (sm.H, sm.D) and W2.shape == (sm.H,)
        # Karpathy's initialisation scale: randn(H, D) / sqrt(D), randn(H) / sqrt(H)
        print(f"init std W1*sqrt(D) = {W1.std() * np.sqrt(sm.D):.4f}, W2*sqrt(H) = {W2.std() * np.sqrt(sm.H):.4f}")
        assert abs(W1.std() * np.sqrt(sm.D) - 1) < 0.01 and abs(W2.std() * np.sqrt(sm.H) - 1) < 0.2
        model = sm.Model(W1, W2)
        grad_buffer = {k: np.zeros_like(v) for k, v in model.weights.items()}
        for e in range(n):
            x = L(f"x_{e}").astype(np.float64)
            actions, rewards = L(f"action_{e}"), L(f"reward_{e}")
            T = len(actions)
            assert set(np.unique(actions)) <= {2, 3}
            assert abs(rewards.sum()) <= 21 and np.count_nonzero(rewards) >= 21
            print(
                f"episode {e}: {T} steps, score {rewards.sum():+.0f}, "
                f"{np.count_nonzero(x) / T:.1f} non-zeros per frame"
            )
            grad, played = sm.episode_gradient(model, list(x), actions, list(rewards))
            check(f"y-p ep {e}", L(f"dlogp_{e}"), played)
            check(f"dW1 ep {e}", L(f"grad_W1_{e}"), grad["W1"])
            check(f"dW2 ep {e}", L(f"grad_W2_{e}"), grad["W2"])
            for k in model.weights:
                grad_buffer[k] += grad[k]
        check("batch dW1", L("grad_W1"), grad_buffer["W1"])
        check("batch dW2", L("grad_W2"), grad_buffer["W2"])
        cache = {k: np.zeros_like(v) for k, v in model.weights.items()}
        model.update(grad_buffer, cache, sm.learning_rate, sm.decay_rate)
        # compare the steps taken, not the weights (the step is 1e-4 of them)
        check("W1 step", L("W1_new") - W1, model.weights["W1"] - W1)
        check("W2 step", L("W2_new") - W2, model.weights["W2"] - W2)
        check("cache W1", L("cache_W1"), cache["W1"])
        check("cache W2", L("cache_W2"), cache["W2"])
    print(f"overall okay: {check.summary()}")


if __name__ == "__main__":
    main()
