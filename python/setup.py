"""pip install ./python (from the repository root): builds libpongrl.so with the repository's
Makefile and installs it inside the pongrl package, so that `import pongrl` works from any
directory. Offline on Debian 12 (python3-pip, python3-setuptools, python3-venv):

    /usr/bin/python3 -m venv --system-site-packages ~/.venv/pongrl && ~/.venv/pongrl/bin/pip install ./python

There is deliberately no pyproject.toml: pip would then build in an isolated environment and
try to download setuptools, which fails offline. Set PONGRL_MAKE_ARGS (e.g. "PORTABLE=1") to
pass flags to make.

Gymnasium is optional: tried with 0.29.1, 1.0.0, 1.1.1, 1.2.3, 1.3.0 and 1.4.0 (their tags'
sources, tests/py/test_gym_api.py with PONGRL_GYMNASIUM_DIRS); without it pongrl uses stand-ins.
"""
import os
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(HERE, "pongrl", "__init__.py")) as f:
        for line in f:
            if line.startswith("__version__"):
                return line.split("=")[1].strip().strip("\"'")
    raise RuntimeError("no __version__ in pongrl/__init__.py")


class BuildWithLibrary(build_py):
    """build_py, plus libpongrl.so built by `make` in the repository and copied in."""

    def run(self):
        super().run()
        lib = os.path.join(ROOT, "build", "libpongrl.so")
        if os.path.exists(os.path.join(ROOT, "Makefile")):
            args = shlex.split(os.environ.get("PONGRL_MAKE_ARGS", ""))
            subprocess.check_call(["make", "-C", ROOT, "--no-print-directory", "build/libpongrl.so"] + args)
        if not os.path.exists(lib):
            raise RuntimeError("pongrl: %s was not built; run `make` in %s" % (lib, ROOT))
        dest = os.path.join(self.build_lib, "pongrl")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(lib, os.path.join(dest, "libpongrl.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: tag it for this platform, not as pure Python."""

    def has_ext_modules(self):
        return True


setup(
    name="pongrl",
    version=version(),
    description="Atari Pong as a native C environment with Gymnasium's API and a vectorised env",
    packages=["pongrl", "pongrl.learners"],
    python_requires=">=3.8",
    install_requires=["numpy"],
    extras_require={"gymnasium": ["gymnasium>=0.29.1"], "ppo": ["torch"]},
    cmdclass={"build_py": BuildWithLibrary},
    distclass=BinaryDistribution,
    zip_safe=False,
)
