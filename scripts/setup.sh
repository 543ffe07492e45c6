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
[ "${1:-}" = test ] && PKGS+=(g++ libsdl2-dev ffmpeg xvfb x11-apps x11-utils xdotool python3-pygame python3-torch bc)
# the formatters: `make format` applies them, `make test` checks the tree follows them
[ "${1:-}" = test ] || [ "${1:-}" = format ] && PKGS+=(clang-format black)
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
# why each is wanted, said before anything is installed
why() {
    case $1 in
        gcc|make|pkg-config) echo "to build";;
        g++) echo "the test that builds a C++ program against the library";;
        zlib1g-dev) echo "checksums";;
        libgif-dev) echo "GIF recordings";;
        libcriterion-dev) echo "the C unit tests";;
        libopenmpi-dev|openmpi-bin) echo "training on several processes or machines (MPI)";;
        gnuplot-nox) echo "the learning curve, curve.png";;
        python3-numpy|libopenblas0-pthread) echo "the NumPy reference tests and the Python package";;
        iproute2) echo "the cluster tests' network namespaces";;
        python3-venv|python3-pip|python3-setuptools|python3-wheel) echo "pip install ./python";;
        clang|libclang-rt-14-dev) echo "make fuzz";;
        libsdl2-dev|xvfb|x11-apps|x11-utils|xdotool) echo "the watch window and its test";;
        ffmpeg) echo "MP4 recordings";;
        python3-pygame) echo "the Python window";;
        python3-torch) echo "the PyTorch PPO example";;
        bc) echo "the tests' arithmetic";;
        clang-format|black) echo "the format check";;
        *) echo "pongrl";;
    esac
}
echo "setup: installing ${#missing[@]} Debian package(s):"
for p in "${missing[@]}"; do echo "  $p ($(why "$p"))"; done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# Another program holding apt's or dpkg's lock (unattended upgrades, a second terminal) is waited
# for, up to LOCK_WAIT_S seconds, with a word, instead of failing at once (apt's own
# DPkg::Lock::Timeout covers dpkg's lock; the package lists' lock of `apt-get update` is retried).
LOCK_WAIT_S=${PONGRL_APT_LOCK_WAIT_S:-600}
apt_waiting() {
    local t0=$SECONDS said= out
    while :; do
        out=$($SUDO apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT_S" "$@" 2>&1) && return 0
        if grep -qE 'Could not get lock|Unable to acquire|is held by process' <<<"$out" &&
            [ $((SECONDS - t0)) -lt "$LOCK_WAIT_S" ]; then
            [ -n "$said" ] || { echo "setup: another program holds apt's lock: waiting (up to ${LOCK_WAIT_S} s)"; said=1; }
            sleep 3
            continue
        fi
        echo "$out" | tail -5 >&2
        echo "setup: apt-get $1 failed" >&2
        return 1
    done
}
apt_waiting update -qq
apt_waiting install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
