"""The layers of src/ (docs/layout.md): a file uses only its own folder and the folders below
it, never one above; and no files of a folder use each other in a circle (A uses B uses A, or a
longer round). A learner is a folder of algo/ (algo/pg/, ...): it uses no other learner's folder
(only algo/'s own files, the list of learners, use them). Checked twice:
  - from the #include lines, so it holds for every build;
  - from the calls the compiler left in the objects (`nm` on build/obj/src/**/*.o: a symbol one
    object needs and another defines), which an include check cannot see: a function declared
    in a shared header and defined in the file that calls in (identity.c calling cluster_die in
    cluster.c, which calls identity.c) is a circle all the same. A call of a static inline
    function of X.h counts as a call of X.c, which the objects do not show (npy.c calling pg.h's
    pg_state while pg.c called npy.c: a circle they missed). Skipped, said, when nothing has
    been built.
And the Python package (python/pongrl/) is layered as ale-py's: no two modules import each
other in a circle, counting the imports inside functions (env.py's ALEInterface once called
back into env.py from a function: a circle all the same), learners/ counted with it; and the
NumPy networks (nets.py, netbase.py, learners/) import nothing of pongrl but each other
(tools/play_npy.py loads them from their paths, without the package's door and its C library)."""
import ast, os, re, shutil, subprocess, sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SRC = os.path.join(ROOT, "src")
PY = os.path.join(ROOT, "python", "pongrl")
OBJ = os.environ.get("PONGRL_OBJ_DIR", os.path.join(ROOT, "build", "obj", "src"))
# the rank of each folder: a file may use its own folder and any folder of a lower rank
RANK = {"util": 0, "pong": 1, "media": 2, "env": 2, "rl": 3, "train": 4, "algo": 5, "cluster": 5, "cli": 6}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def below(target, folder):
    return RANK[target] < RANK[folder] or target == folder


def layer(folder):
    """src/algo/pg's layer is algo."""
    return folder.split("/")[0]


def other_learner(target, folder):
    """target (a folder) is a learner's folder that folder, in another learner's, may not use."""
    t, f = target.split("/"), folder.split("/")
    return t[0] == "algo" and f[0] == "algo" and len(t) > 1 and len(f) > 1 and t[1] != f[1]


def folders(top):
    """Every folder under top that holds files, as paths relative to top ("algo", "algo/pg")."""
    out = []
    for d, _, files in os.walk(top):
        rel = os.path.relpath(d, top)
        if rel != "." and files:
            out.append(rel.replace(os.sep, "/"))
    return sorted(out)


def circles(edges):
    """The circles of a graph {node: set(nodes)}, each once (Tarjan's strongly connected parts
    of more than one node, and nodes that use themselves)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def includes():
    bad, uses = [], {}
    for folder in folders(SRC):
        d = os.path.join(SRC, folder)
        if layer(folder) not in RANK:
            sys.exit(f"FAIL: src/{folder}/ has no place in the layers (tests/py/test_layers.py, docs/layout.md)")
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            text = open(os.path.join(d, name), encoding="utf-8").read()
            for inc in INC.findall(text):
                parts = os.path.normpath(os.path.join(folder, inc)).split(os.sep)
                target = "/".join(parts[:-1]) if len(parts) > 1 else folder
                if layer(target) not in RANK:
                    continue
                if not below(layer(target), layer(folder)):
                    bad.append(
                        f"src/{folder}/{name} includes {inc} (layer {layer(target)} is not below {layer(folder)})"
                    )
                if other_learner(target, folder):
                    bad.append(f"src/{folder}/{name} includes {inc} (another learner's folder)")
                if target == folder and name.endswith(".c") and parts[-1][:-2] != name[:-2]:
                    uses.setdefault(f"src/{folder}/{name[:-2]}", set()).add(f"src/{folder}/{parts[-1][:-2]}")
    for part in circles(uses):
        bad.append("files that include each other's headers in a circle: " + ", ".join(part))
    return bad


def calls():
    """(bad lines, number of calls read), or None when there are no objects to read."""
    objs = []
    if os.path.isdir(OBJ):
        for folder in folders(OBJ):
            d = os.path.join(OBJ, folder)
            objs += [(folder, f[:-2], os.path.join(d, f)) for f in sorted(os.listdir(d)) if f.endswith(".o")]
    if not objs or not shutil.which("nm"):
        return None
    defined, needed = {}, {}
    for folder, name, path in objs:
        if layer(folder) not in RANK:
            sys.exit(f"FAIL: {path}: src/{folder}/ has no place in the layers")
        node = f"src/{folder}/{name}"
        out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                needed.setdefault(node, set()).add(f[1])
            elif len(f) == 3 and f[1] in "TDBRVWGS":  # a global this object defines
                defined[f[2]] = node
    bad, edges, n = [], {}, 0
    for node, syms in sorted(needed.items()):
        folder = node[len("src/") : node.rindex("/")]
        for sym in sorted(syms):
            where = defined.get(sym)
            if not where or where == node:
                continue  # the C library, MPI, zlib, ...
            n += 1
            target = where[len("src/") : where.rindex("/")]
            if not below(layer(target), layer(folder)):
                bad.append(f"{node}.c calls {sym} of {where}.c (layer {layer(target)} is not below {layer(folder)})")
            if other_learner(target, folder):
                bad.append(f"{node}.c calls {sym} of {where}.c (another learner's folder)")
            if target == folder:
                edges.setdefault(node, set()).add(where)
    for part in circles(edges):
        bad.append("files that call each other in a circle: " + ", ".join(f"{p}.c" for p in part))
    return bad, n, edges


INLINE = re.compile(r"^\s*static\s+inline\b[^(;{=]*?\b(\w+)\s*\(", re.M)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def inline_uses():
    """{file: files} of a folder: a .c that calls a static inline function of another file's
    header (X.h's belongs to X.c). The objects cannot show these calls (the compiler copies the
    function in): without them npy.c, calling pg.h's pg_state while pg.c called npy.c, was no
    circle to the objects' reading."""
    uses = {}
    for folder in folders(SRC):
        d = os.path.join(SRC, folder)
        names = os.listdir(d)
        owner = {}  # inline function -> its header's file, where that file has a .c
        for h in sorted(n for n in names if n.endswith(".h") and n[:-2] + ".c" in names):
            for fn in INLINE.findall(COMMENT.sub("", open(os.path.join(d, h), encoding="utf-8").read())):
                owner[fn] = f"src/{folder}/{h[:-2]}"
        if not owner:
            continue
        call = re.compile(r"\b(%s)\s*\(" % "|".join(map(re.escape, sorted(owner))))
        for c in sorted(n for n in names if n.endswith(".c")):
            node = f"src/{folder}/{c[:-2]}"
            for fn in call.findall(COMMENT.sub("", open(os.path.join(d, c), encoding="utf-8").read())):
                if owner[fn] != node:
                    uses.setdefault(node, set()).add(owner[fn])
    return uses


def inline_circles(edges):
    """Circles of a folder's files, counting the calls of static inline functions (inline_uses)
    with the objects' calls; each not already said."""
    both = {k: set(v) for k, v in edges.items()}
    for node, targets in inline_uses().items():
        both.setdefault(node, set()).update(targets)
    seen = {tuple(p) for p in circles(edges)}
    return [
        "files that call each other in a circle (counting a header's static inline functions): "
        + ", ".join(f"{p}.c" for p in part)
        for part in circles(both)
        if tuple(part) not in seen
    ]


# the modules that NumPy alone runs (tools/play_npy.py): they import nothing of pongrl but these
NUMPY_ONLY = ("nets", "netbase", "learners")


def py_modules():
    """{dotted name in the package: path} of every module of python/pongrl/ and its subpackages
    ("env", "learners" for learners/__init__.py, "learners.pg"); __init__.py of the top is "__init__"."""
    out = {}
    for d, _, files in os.walk(PY):
        rel = os.path.relpath(d, PY)
        pkg = [] if rel == "." else rel.split(os.sep)
        for f in sorted(files):
            if f.endswith(".py"):
                name = pkg + ([] if f == "__init__.py" and pkg else [f[:-3]])
                out[".".join(name)] = os.path.join(d, f)
    return out


def py_imports(path, name, known, package="pongrl"):
    """The modules of the package (names of known) that module name (at path) imports, anywhere
    in it (inside functions too)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    here = name.split(".") if path.endswith("__init__.py") and name != "__init__" else name.split(".")[:-1]
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # from .env import Env, from . import env, from ..netbase import D
                base = here[: len(here) - (node.level - 1)] if node.level - 1 <= len(here) else []
            elif node.module and node.module.split(".")[0] == package:
                base, node_module = [], node.module.split(".")[1:]
                targets.update(".".join(node_module + [a.name]) for a in node.names)
                targets.add(".".join(node_module))
                continue
            else:
                continue
            mod = base + (node.module.split(".") if node.module else [])
            targets.add(".".join(mod))
            targets.update(".".join(mod + [a.name]) for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == package and len(parts) > 1:
                    targets.add(".".join(parts[1:]))
    mods = set()
    for t in targets:
        parts = t.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts:
            mods.add(".".join(parts))
    return mods


def numpy_only(name):
    return name.split(".")[0] in NUMPY_ONLY


def python_layers():
    mods = py_modules()
    uses, bad = {}, []
    for name, path in sorted(mods.items()):
        got = py_imports(path, name, mods)
        got.discard(name)
        if name != "__init__":  # the package's door imports everything; nothing imports it
            uses[name] = {m for m in got if m != "__init__"}
            if numpy_only(name):
                for m in sorted(uses[name]):
                    if not numpy_only(m):
                        bad.append(
                            "python/pongrl/%s imports %s (the NumPy networks stand alone: tools/play_npy.py loads "
                            "them from their paths)" % (os.path.relpath(path, PY), m)
                        )
    bad += ["python modules that import each other in a circle: " + ", ".join(part) for part in circles(uses)]
    return bad, len(uses)


def main():
    bad = includes()
    pybad, npy = python_layers()
    bad += pybad
    got = calls()
    if got is not None:
        bad += got[0] + inline_circles(got[2])
    for line in bad:
        print("BAD", line)
    if bad:
        sys.exit(f"FAIL: {len(bad)} use(s) against the layers")
    print(
        "OK: every include of src/ points to its own folder or one below, and no files of a folder include "
        "each other in a circle"
    )
    if got is None:
        print("note: no objects in build/obj (make first): the calls were not read")
    else:
        print(
            f"OK: the {got[1]} calls between the objects of build/obj do the same, "
            "with the calls of the headers' static inline functions"
        )
    print(f"OK: the {npy} modules of python/pongrl import each other in no circle")


main()
