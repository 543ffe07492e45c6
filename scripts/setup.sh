#!/usr/bin/env bash
# Installs the Debian packages pongrl needs that this machine lacks. Idempotent, and quiet
# when nothing is missing. `scripts/setup.sh fuzz` adds clang and libFuzzer for `make fuzz`;
# `scripts/setup.sh test` what `make test` checks beyond the product (below).
set -euo pipefail
PKGS=(gcc make pkg-config zlib1g-dev libgif-dev libcriterion-dev libopenmpi-dev openmpi-bin
      gnuplot-nox python3-numpy libopenblas0-pthread iproute2
      python3-venv python3-pip python3-setuptools python3-wheel)   # the last four: pip install ./python
[ "${1:-}" = fuzz ] && PKGS+=(clang libclang-rt-14-dev)
# `make test` also runs what is optional for a user: the window (SDL2, under Xvfb, keys by
# xdotool), MP4 (ffmpeg), the Python window (pygame), the PPO example (PyTorch)
[ "${1:-}" = test ] && PKGS+=(libsdl2-dev ffmpeg xvfb x11-apps x11-utils xdotool python3-pygame python3-torch bc)
# the formatters: `make format` applies them, `make test` checks the tree follows them
[ "${1:-}" = test ] || [ "${1:-}" = format ] && PKGS+=(clang-format black)
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
