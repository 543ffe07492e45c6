"""The layers of src/ (docs/layout.md): a file includes only its own folder and the folders below
it, never one above; and no two files of a folder use each other (A.c includes B.h while B.c
includes A.h). Read from the #include lines, so it holds for every build."""
import os, re, sys

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")
# the rank of each folder: a file may include its own folder and any folder of a lower rank
RANK = {"util": 0, "pong": 1, "policy": 1, "media": 2, "env": 2, "rl": 3, "train": 4, "algo": 5, "cluster": 5, "cli": 6}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    bad, uses = [], {}
    for folder in sorted(os.listdir(SRC)):
        d = os.path.join(SRC, folder)
        if not os.path.isdir(d):
            continue
        if folder not in RANK:
            sys.exit(f"FAIL: src/{folder}/ has no place in the layers (tests/py/test_layers.py, docs/layout.md)")
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            text = open(os.path.join(d, name), encoding="utf-8").read()
            for inc in INC.findall(text):
                parts = os.path.normpath(os.path.join(folder, inc)).split(os.sep)
                target = parts[0] if len(parts) > 1 else folder
                if target not in RANK:
                    continue
                if RANK[target] > RANK[folder] or (RANK[target] == RANK[folder] and target != folder):
                    bad.append(f"src/{folder}/{name} includes {inc} (layer {target} is not below {folder})")
                if target == folder and name.endswith(".c"):
                    uses.setdefault((folder, name[:-2]), set()).add(parts[-1][:-2])
    for (folder, a), used in sorted(uses.items()):
        for b in sorted(used):
            if b != a and a in uses.get((folder, b), set()):
                if a < b:
                    bad.append(f"src/{folder}/{a}.c and {b}.c use each other")
    for line in bad:
        print("BAD", line)
    if bad:
        sys.exit(f"FAIL: {len(bad)} include(s) against the layers")
    print(f"OK: every include of src/ points to its own folder or one below; no two files use each other")


main()
