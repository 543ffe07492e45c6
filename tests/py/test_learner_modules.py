"""A learner's forward pass is its own module, python/pongrl/learners/NAME.py (NAME its --algo
name), and nothing else of the package knows it:
  - no module of python/pongrl outside learners/NAME.py names NAME (read from the code: its
    identifiers, split at _ and capitals (PpoPolicy: ppo, policy), and its strings as words, not
    a model's name (pong-v5-ppo); comments and docstrings may name one as an example);
  - a module dropped into learners/ is found by nets.read_export with nothing else changed
    (a copy of nets.py, netbase.py and learners/ loaded as tools/play_npy.py loads them, NumPy
    alone);
  - a tiny learner that a program registers (pongrl.learners.register: a linear softmax over the
    80x80 frame) is played by pongrl.load from a folder whose model.txt says algo= its name, as
    its own NumPy says, greedy and sampled."""
import ast
import importlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.join(HERE, "..", "..", "python", "pongrl")
LEARNERS = os.path.join(PY, "learners")


def learner_names():
    return sorted(f[:-3] for f in os.listdir(LEARNERS) if f.endswith(".py") and not f.startswith("_"))


def words(identifier):
    """PpoPolicy -> ppo, policy; ppo_input -> ppo, input; QR2 -> qr, 2."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", identifier)]


def docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def named(path, names):
    """(line, what) of each place the module at path names one of names in its code."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    skip, out = docstrings(tree), []
    said = {n: re.compile(r"(?<![\w-])%s(?![\w-])" % re.escape(n), re.I) for n in names}
    for node in ast.walk(tree):
        ids = []
        if isinstance(node, ast.Name):
            ids = [node.id]
        elif isinstance(node, ast.Attribute):
            ids = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            ids = [node.name]
        elif isinstance(node, ast.arg):
            ids = [node.arg]
        elif isinstance(node, ast.keyword) and node.arg:
            ids = [node.arg]
        elif isinstance(node, ast.alias):
            ids = node.name.split(".") + ([node.asname] if node.asname else [])
        elif isinstance(node, ast.ImportFrom) and node.module:
            ids = node.module.split(".")
        for i in ids:
            for n in names:
                if n in words(i):
                    out.append((getattr(node, "lineno", 0), "%s (the identifier %s)" % (n, i)))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            for n in names:
                if said[n].search(node.value):
                    out.append((node.lineno, "%s (the string %r)" % (n, node.value[:60])))
    return out


def names_outside(root=PY):
    """Each place a module of root names a learner that is not its own: 'path:line: name (...)'."""
    names, bad = learner_names(), []
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            own = f[:-3] if os.path.samefile(d, LEARNERS) else None
            for line, what in named(path, [n for n in names if n != own]):
                bad.append("%s:%d: %s" % (os.path.relpath(path, os.path.join(PY, "..", "..")), line, what))
    return bad


def test_no_learner_named_outside_its_module():
    names = learner_names()
    assert {"pg", "ppo", "qrdqn"} <= set(names), names
    bad = names_outside()
    for line in bad:
        print("BAD", line)
    assert not bad, "%d place(s) name a learner outside its module of python/pongrl/learners/" % len(bad)
    # the check can fail: nets.py with the table it had, and a learner naming another's input
    probe = tempfile.mkdtemp(prefix="pongrl-learner-names-")
    try:
        with open(os.path.join(probe, "nets.py"), "w") as f:
            f.write('"""pg, ppo, qrdqn may be named here."""\n# and here: ppo\nmodel = "pong-v5-ppo"\n')
            f.write('from .learners.ppo import PpoPolicy\nPOLICIES = {"pg": 1, "qrdqn": 2}\nx = ppo_input\n')
        got = sorted(w.split(": ", 1)[1].split(" ")[0] for w in names_outside(probe))
        assert got == ["pg", "ppo", "ppo", "ppo", "qrdqn"], got
    finally:
        shutil.rmtree(probe)
    print("%d learners (%s), each named only in its own module" % (len(names), ", ".join(names)))


def load_package(pkg_dir, name):
    """pkg_dir's nets.py as tools/play_npy.py loads it (a package called name, __init__.py not run)."""
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(pkg_dir, "__init__.py"), submodule_search_locations=[pkg_dir]
    )
    sys.modules[name] = importlib.util.module_from_spec(spec)
    return importlib.import_module(name + ".nets")


# a learner of this test: one linear layer over the 80x80 frame, softmax over Pong's three actions
LINEAR_MODULE = """
import numpy as np

from ..netbase import prepro


class LinearPolicy:
    @classmethod
    def from_export(cls, path, settings, algo="linear", greedy=False, seed=None, source=""):
        return cls(np.load(path + "/linear_W.npy"), settings["actions"].split(","), algo, greedy, seed)

    def __init__(self, W, names, algo, greedy, seed):
        self.W, self.action_names, self.action_ids, self.algo = W, tuple(names), (0, 2, 3), algo
        self.greedy, self.rng = greedy, np.random.default_rng(seed)

    def reset(self, rows=None):
        pass

    def probabilities(self, obs):
        z = self.W @ prepro(obs).reshape(-1).astype(np.float64)
        e = np.exp(z - z.max())
        return e / e.sum()

    def act(self, obs, greedy=None):
        p = self.probabilities(obs)
        greedy = self.greedy if greedy is None else greedy
        k = int(p.argmax()) if greedy else int((self.rng.random() >= np.cumsum(p[:-1])).sum())
        return self.action_ids[k]


POLICY = LinearPolicy
"""


def linear_export(name, W):
    d = tempfile.mkdtemp(prefix="pongrl-learner-%s-" % name)
    np.save(os.path.join(d, "linear_W.npy"), W)
    crc = zlib.crc32(open(os.path.join(d, "linear_W.npy"), "rb").read())
    with open(os.path.join(d, "model.txt"), "w") as f:
        f.write("# a learner of test_learner_modules.py\nformat=1\nalgo=%s\n" % name)
        f.write("actions=NOOP,RIGHT,LEFT\naction_ids=0,2,3\ncrc32=linear_W.npy:%08x\n" % crc)
    return d


def test_module_dropped_into_learners_is_found():
    """A copy of the NumPy networks with learners/linear.py added: read_export finds it by model.txt."""
    tmp = tempfile.mkdtemp(prefix="pongrl-learner-module-")
    d = linear_export("linear", np.zeros((3, 6400)))
    try:
        pkg = os.path.join(tmp, "pongrl")
        os.makedirs(os.path.join(pkg, "learners"))
        for f in ("nets.py", "netbase.py"):
            shutil.copy(os.path.join(PY, f), pkg)
        for f in os.listdir(LEARNERS):
            if f.endswith(".py"):
                shutil.copy(os.path.join(LEARNERS, f), os.path.join(pkg, "learners"))
        with open(os.path.join(pkg, "learners", "linear.py"), "w") as f:
            f.write(LINEAR_MODULE)
        nets = load_package(pkg, "pongrl_copy_under_test")
        assert set(nets.learners.names()) == set(learner_names()) | {"linear"}, nets.learners.names()
        p = nets.read_export(d, greedy=True)
        assert type(p).__name__ == "LinearPolicy" and p.algo == "linear", p
        assert np.allclose(p.probabilities(np.zeros((80, 80), np.uint8)), 1 / 3)
    finally:
        shutil.rmtree(tmp)
        shutil.rmtree(d)
        for m in [m for m in sys.modules if m.startswith("pongrl_copy_under_test")]:
            del sys.modules[m]


def test_registered_learner_played_by_load():
    sys.path.insert(0, HERE)
    from pongrl_under_test import pongrl, raises  # noqa: E402 (exits 77 without the C library)
    import pongrl.learners  # noqa: E402

    ns = {}
    exec(
        compile(
            LINEAR_MODULE.replace("from ..netbase import prepro", "from pongrl.netbase import prepro"), "t", "exec"
        ),
        ns,
    )
    Linear = ns["LinearPolicy"]
    rng = np.random.default_rng(3)
    W = rng.standard_normal((3, 6400)) / 20
    d = linear_export("linear-of-a-test", W)
    try:
        assert "--algo linear-of-a-test" in raises(ValueError, pongrl.load, d)
        pongrl.learners.register("linear-of-a-test", Linear)
        try:
            env = pongrl.make("ALE/Pong-v5", obs_type="rgb")
            obs, _ = env.reset(seed=5)
            greedy, sampled = pongrl.load(d, greedy=True), pongrl.load(d, seed=9)
            assert isinstance(greedy, Linear) and greedy.algo == "linear-of-a-test"
            twin = Linear(W, ("NOOP", "RIGHT", "LEFT"), "linear-of-a-test", False, 9)
            for t in range(60):
                x = pongrl.netbase.prepro(obs).reshape(-1).astype(np.float64)
                z = W @ x
                p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
                assert np.allclose(greedy.probabilities(obs), p, rtol=0, atol=1e-15)
                assert greedy.act(obs) == (0, 2, 3)[int(p.argmax())]
                a = sampled.act(obs)
                assert a == twin.act(obs), t
                obs, _, term, trunc, _ = env.step(a)
                if term or trunc:
                    obs, _ = env.reset()
            env.close()
        finally:
            pongrl.learners.unregister("linear-of-a-test")
        assert "--algo linear-of-a-test" in raises(ValueError, pongrl.load, d)
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    test_no_learner_named_outside_its_module()
    print("ok test_no_learner_named_outside_its_module")
    test_module_dropped_into_learners_is_found()
    print("ok test_module_dropped_into_learners_is_found")
    test_registered_learner_played_by_load()
    print("ok test_registered_learner_played_by_load")
