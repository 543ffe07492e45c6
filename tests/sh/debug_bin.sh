# debug_bin.sh: sourced by end-to-end tests (not a test itself) that run the binary under
# ASan+UBSan where build/debug/pongrl exists: sets bin, py and fail().
bin=${PONGRL_BIN:-build/pongrl}
dbg="$(dirname "$bin")/debug/pongrl"
[ -x "$dbg" ] && bin=$dbg && echo "using $dbg (ASan+UBSan)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
