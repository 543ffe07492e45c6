"""Every function the installed headers declare with a pointer parameter is called with NULL in
tests/unit/test_capi_null.c: a function added to the C API without a NULL check shows here."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def installed_headers():
    m = re.search(r"^PUB_HDRS\s*:=\s*(.*)$", (ROOT / "Makefile").read_text(), re.M)
    return [ROOT / h for h in m.group(1).split()]


def pointer_functions(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"static inline[^{;]*\{[^}]*\}", "", text)  # inline helpers: not exported
    names = set()
    for m in re.finditer(r"^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\(([^;{)]*)\)\s*;", text, re.M):
        name, params = m.group(1), m.group(2)
        if name in ("if", "while", "for", "return", "sizeof") or "typedef" in m.group(0):
            continue
        if "*" in params or "[" in params:
            names.add(name)
    return names


def main():
    test = (ROOT / "tests/unit/test_capi_null.c").read_text()
    missing, total = [], 0
    for h in installed_headers():
        for name in sorted(pointer_functions(h.read_text())):
            total += 1
            if not re.search(r"\b%s\(" % re.escape(name), test):
                missing.append("%s (%s)" % (name, h.relative_to(ROOT)))
    if total < 40:
        print("FAIL: only %d functions with pointer parameters found: the parser is wrong" % total)
        return 1
    for m in missing:
        print("FAIL: %s takes a pointer but test_capi_null.c never calls it with NULL" % m)
    if missing:
        return 1
    print("ok: the %d functions with pointer parameters of the installed headers are all called" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
