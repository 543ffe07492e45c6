"""pip install ./python (from the repository root): the metadata is pyproject.toml's; this builds
libpongrl.so and the pongrl program with the repository's Makefile and installs them inside the
pongrl package, with the shipped models, so that `import pongrl`, `pongrl.load("pong-v5-ppo")` and
the `pongrl` command work from any directory. Offline on Debian 12 (python3-pip,
python3-setuptools, python3-venv), where pip cannot fetch a build environment of its own:

    /usr/bin/python3 -m venv --system-site-packages ~/.venv/pongrl
    ~/.venv/pongrl/bin/pip install --no-build-isolation ./python

The package's library and program are built for
the x86-64-v2 baseline in build/python/ (PONGRL_NATIVE=1: for this CPU, in build/python-native/);
PONGRL_MAKE_ARGS passes more flags to make.

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


class BuildWithLibrary(build_py):
    """build_py, plus libpongrl.so and the pongrl program built by `make` in the repository and
    copied in (the `pongrl` command runs that program: pongrl/_cli.py), and the shipped models
    (models/NAME, 25 MB) as package data, so that pongrl.load("pong-v5-ppo") finds them from
    any directory."""

    def run(self):
        super().run()
        # a portable baseline (x86-64-v2) in a build folder of its own, so that the package runs on
        # any x86-64 machine of that baseline and the checkout's `make` stays native; the same
        # bits either way (-ffp-contract=off). PONGRL_NATIVE=1: this CPU's instructions instead.
        native = os.environ.get("PONGRL_NATIVE") == "1"
        build = os.path.join(ROOT, "build", "python-native" if native else "python")
        built = [os.path.join(build, f) for f in ("libpongrl.so", "pongrl")]
        if os.path.exists(os.path.join(ROOT, "Makefile")):
            args = ["BUILD=" + build] + ([] if native else ["ARCH=x86-64-v2"])
            args += shlex.split(os.environ.get("PONGRL_MAKE_ARGS", ""))
            make = ["make", "-C", ROOT, "--no-print-directory", "-j2"]
            subprocess.check_call(make + args + [build + "/libpongrl.so", build + "/pongrl"])
        for f in built:
            if not os.path.exists(f):
                raise RuntimeError("pongrl: %s was not built; run `make` in %s" % (f, ROOT))
        dest = os.path.join(self.build_lib, "pongrl")
        os.makedirs(os.path.join(dest, "_bin"), exist_ok=True)
        shutil.copy2(built[0], os.path.join(dest, "libpongrl.so"))
        shutil.copy2(built[1], os.path.join(dest, "_bin", "pongrl"))
        models = os.path.join(ROOT, "models")
        if os.path.isdir(models):
            shutil.copytree(models, os.path.join(dest, "models"), dirs_exist_ok=True)


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: tag it for this platform, not as pure Python."""

    def has_ext_modules(self):
        return True


# The metadata is pyproject.toml's; this adds the library, the program and the models to the build.
setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
