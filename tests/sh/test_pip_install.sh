#!/usr/bin/env bash
# test_pip_install.sh: `pip install ./python` into a fresh venv (offline: --no-index, Debian's
# python3-venv/pip/setuptools), then `import pongrl` from another directory uses the installed
# package and its own copy of libpongrl.so. Exit 0 pass, 77 skip, anything else fail.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PY=/usr/bin/python3
$PY -c "import venv, ensurepip" 2>/dev/null || { echo "skip: python3-venv not installed"; exit 77; }
$PY -c "import setuptools" 2>/dev/null || { echo "skip: python3-setuptools not installed"; exit 77; }
tmp=$(mktemp -d)
had_build=0; [ -e python/build ] && had_build=1
had_egg=0; [ -e python/pongrl.egg-info ] && had_egg=1
cleanup() {
    rm -rf "$tmp"
    [ $had_build = 1 ] || rm -rf python/build
    [ $had_egg = 1 ] || rm -rf python/pongrl.egg-info
}
trap cleanup EXIT
$PY -m venv --system-site-packages "$tmp/venv" || exit 1
t0=$SECONDS
if ! env -u PYTHONPATH "$tmp/venv/bin/pip" install --no-index -q ./python > "$tmp/pip.log" 2>&1; then
    echo "pip install ./python failed:"; tail -20 "$tmp/pip.log"; exit 1
fi
echo "pip install ./python: $((SECONDS - t0)) s"
cd "$tmp" || exit 1
env -u PYTHONPATH -u PONGRL_LIB "$tmp/venv/bin/python" - "$tmp/venv" <<'PYEOF' || exit 1
import os, sys
import numpy as np
import pongrl
venv = sys.argv[1]
assert pongrl.__file__.startswith(venv), pongrl.__file__
lib = pongrl._lib.library_path()
assert lib == os.path.join(os.path.dirname(pongrl.__file__), "libpongrl.so"), lib
env = pongrl.make("ALE/Pong-v5", obs_type="obs80")
obs, info = env.reset(seed=0)
assert obs.shape == (80, 80)
envs = pongrl.make_vec("ALE/Pong-v5", 4, num_threads=2)
obs, info = envs.reset(seed=0)
obs, r, term, trunc, info = envs.step(envs.action_space.sample())
assert obs.shape == (4, 210, 160, 3)
print("installed pongrl %s from %s works (lib %s)" % (pongrl.__version__, os.getcwd(), lib))
PYEOF
