# hostile_common.sh: sourced by the hostile tests (not a test itself). Every check runs and each
# failure is named: bad counts it, one_line checks a refusal, and the test ends with
# `finish`. $tmp is the test's directory; bin the binary (after realpath).
failures=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }
# rc-wanted pattern command...: exit status and one stderr line matching pattern, within
# ONE_LINE_TIMEOUT seconds (10)
one_line() {
    local want=$1 pat=$2; shift 2
    timeout "${ONE_LINE_TIMEOUT:-10}" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ $rc = "$want" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q -- "$pat" "$tmp/err"; then
        echo "ok: $(echo "$*" | sed "s|$tmp/||g; s|$bin|pongrl|" | cut -c1-110 | cat -v) -> $(cut -c1-220 "$tmp/err")"
    else bad "$(echo "$*" | cat -v): rc $rc, want $want; stderr '$(head -c 400 "$tmp/err")', want '$pat'"; fi
}
finish() {
    [ $failures = 0 ] || { echo "FAIL: $failures of the checks above"; exit 1; }
    echo ok
}
