#!/usr/bin/env bash
# test_pip_install.sh: `pip install ./python` into a fresh venv (offline: --no-index, Debian's
# python3-venv/pip/setuptools), then `import pongrl` from another directory uses the installed
# package and its own copy of libpongrl.so; the venv's `pongrl` command runs the same program as
# build/pongrl; the shipped models load by name from the package's own data; `pip show` gives the
# licence. Exit 0 pass, 77 skip, anything else fail.
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
if ! env -u PYTHONPATH "$tmp/venv/bin/pip" install --no-index --no-build-isolation -q ./python > "$tmp/pip.log" 2>&1; then
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
# the shipped models by name, from the package's own data (not the checkout's models/)
names = pongrl.models()
assert set(names) >= {"pong-v5", "pong-v5-ppo"}, names
assert all(p.startswith(venv) for p in names.values()), names
p = pongrl.load("pong-v5-ppo")
assert p.act(np.zeros((210, 160, 3), np.uint8)) in (0, 1, 2, 3, 4, 5)
print("installed pongrl %s from %s works (lib %s; models %s)" % (pongrl.__version__, os.getcwd(), lib, ", ".join(names)))
PYEOF
# the pongrl command in the venv: the same program as build/pongrl, from any directory
grep -qx "pongrl $("$ROOT/build/pongrl" --version | awk '{print $NF}')" <<<"$("$tmp/venv/bin/pongrl" --version)" ||
    { echo "FAIL: the venv's pongrl --version: $("$tmp/venv/bin/pongrl" --version 2>&1)"; exit 1; }
help=$("$tmp/venv/bin/pongrl" train --help) && grep -q -- '--algo' <<<"$help" || { echo "FAIL: the venv's pongrl train --help"; exit 1; }
out=$(env -u PYTHONPATH "$tmp/venv/bin/pongrl" eval "$tmp/venv/lib/python3"*/site-packages/pongrl/models/pong-v5 --episodes 1 --workers 1) &&
    grep -q '^mean score: ' <<<"$out" || { echo "FAIL: the venv's pongrl eval of the packaged pong-v5: $out"; exit 1; }
# its metadata: the licence
show=$(env -u PYTHONPATH "$tmp/venv/bin/pip" show pongrl) && grep -qx 'License: MIT' <<<"$show" ||
    { echo "FAIL: pip show pongrl: $show"; exit 1; }
# built for the x86-64-v2 baseline, not this CPU: no AVX register in the packaged library or program
site=$(echo "$tmp/venv/lib/python3"*/site-packages/pongrl)
if command -v objdump >/dev/null; then
    for f in "$site/libpongrl.so" "$site/_bin/pongrl"; do
        n=$(objdump -d "$f" | grep -cE '%[yz]mm[0-9]') ; [ "$n" = 0 ] ||
            { echo "FAIL: $f uses AVX registers ($n instructions): not the x86-64-v2 baseline"; exit 1; }
    done
fi
echo "pongrl command, models by name, licence, x86-64-v2 baseline: ok"
