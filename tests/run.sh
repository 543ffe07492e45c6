#!/usr/bin/env bash
# Runs every test: the C unit tests (Criterion, built with ASan+UBSan), the NumPy reference
# tests (tests/py, /usr/bin/python3) and the end-to-end tests of the binary (tests/sh).
# A script exits 0 for pass, 77 for skip (with a line saying why), anything else for fail.
# The last line is the summary: "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
export PONGRL_BIN="$PWD/build/pongrl" PONGRL_DUMP="$PWD/build/dump_episodes" PONGRL_HOOKS_BIN="$PWD/build/pongrl-testhooks" PONGRL_LEARNER_BIN="$PWD/build/pongrl-testlearner" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}
passed=0; failed=0; skipped=0; failures=()

filter=${1:-}
if [ -z "$filter" ] || [ "$filter" = unit ]; then
    echo "== unit tests (Criterion, ASan+UBSan)"
    out=$(build/test_unit -j2 --timeout 300 2>&1); rc=$?
    echo "$out" | grep -E '^\[(FAIL|----)\]|Synthesis' || true
    syn=$(echo "$out" | grep 'Synthesis' | tail -1)
    if [ -n "$syn" ]; then
        p=$(echo "$syn" | sed -E 's/.*Passing: ([0-9]+).*/\1/')
        f=$(echo "$syn" | sed -E 's/.*Failing: ([0-9]+).*/\1/')
        c=$(echo "$syn" | sed -E 's/.*Crashing: ([0-9]+).*/\1/')
        passed=$((passed + p)); failed=$((failed + f))
        [ "$f" -gt 0 ] && failures+=("unit tests: $f failing")
        # Criterion counts crashes among the failures; note them separately
        [ "$c" -gt 0 ] && failures+=("unit tests: $c crashing")
    else
        echo "$out" | tail -20
        failed=$((failed + 1)); failures+=("unit tests: no summary (rc=$rc)")
    fi
    [ $rc -ne 0 ] && [ ${#failures[@]} -eq 0 ] && { failed=$((failed + 1)); failures+=("unit tests rc=$rc"); }
fi

run_script() {  # $1: interpreter, $2: file
    local name=$2 t0=$SECONDS out rc
    out=$(timeout 600 $1 "$2" 2>&1); rc=$?
    local dt=$((SECONDS - t0))
    case $rc in
        0)  passed=$((passed + 1)); echo "[PASS] $name (${dt}s)";;
        77) skipped=$((skipped + 1)); echo "[SKIP] $name: $(echo "$out" | tail -1)";;
        *)  failed=$((failed + 1)); failures+=("$name"); echo "[FAIL] $name (rc=$rc, ${dt}s)"; echo "$out" | tail -25 | sed 's/^/    /';;
    esac
}
if [ -z "$filter" ] || [ "$filter" = py ]; then
    echo "== NumPy reference tests"
    for f in tests/py/test_*.py; do [ -e "$f" ] && run_script /usr/bin/python3 "$f"; done
fi
if [ -z "$filter" ] || [ "$filter" = sh ]; then
    echo "== end-to-end tests"
    for f in tests/sh/test_*.sh; do [ -e "$f" ] && run_script bash "$f"; done
fi
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
