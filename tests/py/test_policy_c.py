"""test_policy_c.py: pongrl.load plays a model through the C library (algo/actor.h) as the learners'
NumPy forward passes (python/pongrl/learners/), the reference, play it.

For Karpathy's model (models/pong-v5) and the PPO model (models/pong-v5-ppo), on a few hundred
steps of real games (RGB and obs80, across an episode's start): every action's probability
equals the reference's to 1e-12, and the same seed draws the same actions, sampled and greedy;
a batch gives each row what a policy of its own gives that row's env, reset(rows) included;
after close() every method is a RuntimeError; a second thread is refused (a RuntimeError, never
a crash) and a close() from another thread waits for the running call; act is many times
faster than the reference (the figures: bench/policy_bench.py). Exit 0 pass, 77 skip.
"""
import os
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import ROOT, pongrl, raises, run, run_race  # noqa: E402
from pongrl.learners.pg import PgPolicy  # noqa: E402

MODELS = {"pg": os.path.join(ROOT, "models", "pong-v5"), "ppo": os.path.join(ROOT, "models", "pong-v5-ppo")}
STEPS, RESET_AT = 400, 250


def every_probability(ref, obs):
    """The reference's probabilities of every action, in the order of its action_names."""
    if isinstance(ref, PgPolicy):
        p = ref.probability(obs)
        return np.stack([p, 1.0 - p], axis=-1)
    return ref.probabilities(obs)


def play(algo, obs_type):
    """STEPS steps of one game, the C policy acting, a fresh game from RESET_AT; the worst
    difference of the probabilities from the reference's, and their spread."""
    model = MODELS[algo]
    c, c_act = pongrl.load(model), pongrl.load(model, seed=11)
    ref, ref_act = c.reference(), c.reference(seed=11)
    assert c.algo == algo and c.action_names == ref.action_names and c.action_ids == ref.action_ids
    env = pongrl.make("ALE/Pong-v5", obs_type=obs_type)
    obs, _ = env.reset(seed=4)
    worst, seen = 0.0, []
    for t in range(STEPS):
        if t == RESET_AT:
            obs, _ = env.reset(seed=5)
            for p in (c, c_act, ref, ref_act):
                p.reset()
        pc, pr = c.probabilities(obs), every_probability(ref, obs)
        assert pc.shape == (len(c.action_ids),) and abs(pc.sum() - 1.0) < 1e-12
        worst = max(worst, float(np.abs(pc - pr).max()))
        seen.append(pc)
        a = c_act.act(obs)
        assert a == ref_act.act(obs), "step %d: C and NumPy drew different actions" % t
        assert type(a) is int
        obs, reward, terminated, truncated, _ = env.step(a)
        assert not (terminated or truncated)
    spread = float(np.std(seen, axis=0).max())
    print("%s %s: %d steps, worst |p_C - p_NumPy| %.2e, spread of p %.3f" % (algo, obs_type, STEPS, worst, spread))
    assert worst < 1e-12, worst
    assert spread > 0.01, "the probabilities hardly moved: the observations are not exercised"
    for p in (c, c_act):
        p.close()


def test_probabilities_match_numpy():
    for algo in MODELS:
        for obs_type in ("rgb", "obs80"):
            play(algo, obs_type)


def test_greedy_and_probability():
    for algo, model in MODELS.items():
        c = pongrl.load(model, greedy=True)
        ref = c.reference()
        assert ref.greedy
        env = pongrl.make("ALE/Pong-v5")
        obs, _ = env.reset(seed=2)
        for t in range(150):
            a = c.act(obs)
            assert a == ref.act(obs), (algo, t)
            obs, *_ = env.step(a)
        # p(RIGHT), Karpathy's probability(), for any learner
        pr = pongrl.load(model)
        p = pr.probability(obs)
        assert abs(p - every_probability(pr.reference(), obs)[pr.action_names.index("RIGHT")]) < 1e-12
        for x in (c, pr):
            x.close()


def test_batch_equals_single():
    for algo, model in MODELS.items():
        envs = [pongrl.make("ALE/Pong-v5", obs_type="obs80") for _ in range(3)]
        singles = [pongrl.load(model) for _ in envs]
        batch, greedy = pongrl.load(model), pongrl.load(model, greedy=True)
        greedy_ref = greedy.reference()
        obs = [e.reset(seed=20 + i)[0] for i, e in enumerate(envs)]
        for t in range(120):
            if t == 60:  # one row's episode starts anew
                obs[1], _ = envs[1].reset(seed=99)
                singles[1].reset()
                batch.reset([1])
                for g in (greedy, greedy_ref):
                    g.reset(np.array([False, True, False]))
            pb = batch.probabilities(np.stack(obs))
            ga = greedy.act(np.stack(obs))
            assert pb.shape == (3, len(batch.action_ids)) and ga.shape == (3,)
            assert np.array_equal(ga, greedy_ref.act(np.stack(obs))), (algo, t)
            for i in range(3):
                assert np.array_equal(pb[i], singles[i].probabilities(obs[i])), (algo, t, i)
            acts = [2 if (t + i) % 3 else 3 for i in range(3)]
            obs = [e.step(a)[0] for e, a in zip(envs, acts)]
        # a batch of another size starts every row afresh, as the reference does
        ref = batch.reference()
        two = np.stack(obs[:2])
        assert np.abs(batch.probabilities(two) - every_probability(ref, two)).max() < 1e-12
        for p in singles + [batch, greedy]:
            p.close()


def test_closed():
    for model in MODELS.values():
        p = pongrl.load(model)
        obs = np.zeros((80, 80), np.uint8)
        p.act(obs)
        p.close()
        p.close()  # again: nothing
        assert "closed" in repr(p) and p.closed
        for fn, args in (
            (p.act, (obs,)),
            (p.probabilities, (obs,)),
            (p.probability, (obs,)),
            (p.reset, ()),
            (p.reset, ([0],)),
            (p.use_action_meanings, (pongrl.ACTION_MEANINGS,)),
            (p.reference, ()),
            (p.__enter__, ()),
        ):
            assert "the policy is closed" in raises(RuntimeError, fn, *args), fn.__name__
        with pongrl.load(model) as q:
            q.act(obs)
        assert q.closed and "closed" in raises(RuntimeError, q.act, obs)


def test_another_thread():
    """While one thread is inside a call, another's is a RuntimeError at once, and its close()
    waits for the call to end."""
    p = pongrl.load(MODELS["ppo"])
    obs = np.zeros((80, 80), np.uint8)
    got = []

    def other():
        for fn in (p.act, p.probabilities):
            try:
                fn(obs)
                got.append("ran")
            except RuntimeError as e:
                got.append(str(e))

    with p._h:  # this thread is "inside a step"
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert len(got) == 2 and all("in use by another thread" in g for g in got), got
        closer = threading.Thread(target=p.close)
        closer.start()
        time.sleep(0.2)
        assert closer.is_alive()  # close() waits for the running call
    closer.join(5)
    assert not closer.is_alive() and p.closed


RACE = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
from pongrl_under_test import pongrl, race_close
obs = np.random.default_rng(0).integers(0, 2, (4, 80, 80), dtype=np.uint8)
def act(p, k):
    p.act(obs if k % 2 else obs[0])          # the batch changes size under the other thread
# until close() stops them
print("survived", race_close(lambda round: pongrl.load(sys.argv[2 + round % 2]), act, rounds=8, calls=10**6))
"""


def test_threads_racing_close():
    """Two threads acting with one policy while a third closes it: the process survives and
    every error speaks."""
    errors = run_race(RACE, MODELS["pg"], MODELS["ppo"], timeout=120)
    for msg in errors:
        assert msg in ("pongrl: the policy is closed", "pongrl: the policy is in use by another thread"), msg
    assert "pongrl: the policy is closed" in errors


def test_faster_than_numpy():
    """A loose floor on a shared machine (the figures: bench/policy_bench.py)."""
    env = pongrl.make("ALE/Pong-v5")
    obs, _ = env.reset(seed=0)
    for algo, model in MODELS.items():
        c = pongrl.load(model, seed=0)
        ref = c.reference(seed=0)
        times = {}
        for name, p in (("C", c), ("NumPy", ref)):
            runs = []
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(30):
                    p.act(obs)
                runs.append((time.perf_counter() - t0) / 30)
            times[name] = sorted(runs)[2]
        print(
            "%s: act %.1f us in C, %.1f us in NumPy (x%.0f)"
            % (algo, 1e6 * times["C"], 1e6 * times["NumPy"], times["NumPy"] / times["C"])
        )
        assert times["NumPy"] > 5 * times["C"], times
        c.close()


if __name__ == "__main__":
    sys.exit(
        run(
            [
                test_probabilities_match_numpy,
                test_greedy_and_probability,
                test_batch_equals_single,
                test_closed,
                test_another_thread,
                test_threads_racing_close,
                test_faster_than_numpy,
            ]
        )
    )
