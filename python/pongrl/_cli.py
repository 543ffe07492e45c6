"""The `pongrl` command of an installed package: the same program as the checkout's build/pongrl
(built by `make` and installed inside the package, pongrl/_bin/pongrl), run with the arguments
given. In a checkout without an install, the checkout's build/pongrl."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def program():
    """The pongrl program this package runs, or None."""
    for p in (os.path.join(HERE, "_bin", "pongrl"), os.path.join(HERE, "..", "..", "build", "pongrl")):
        if os.access(p, os.X_OK):
            return os.path.normpath(p)
    return None


def main():
    p = program()
    if p is None:
        sys.stderr.write(
            "pongrl: the pongrl program is not in this package (reinstall it: pip install --no-build-isolation ./python)\n"
        )
        return 1
    os.execv(p, ["pongrl"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
