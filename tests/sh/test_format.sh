#!/usr/bin/env bash
# The tree follows its formatters: clang-format (.clang-format) for C, black (pyproject.toml)
# for Python; `make format` applies both. Fails naming each file that differs.
set -uo pipefail
cd "$(dirname "$0")/../.."
for t in clang-format black; do
    command -v $t >/dev/null || { echo "FAIL: $t missing (scripts/setup.sh test installs it)"; exit 1; }
done
mapfile -t c < <(find src tests examples tools bench -name '*.[ch]' | sort)
mapfile -t py < <(find python tests tools bench examples -name '*.py' -not -path '*/build/*' | sort)
bad=0
for f in "${c[@]}"; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || { echo "not as clang-format writes it: $f (make format)"; bad=1; }
done
out=$(black --check "${py[@]}" 2>&1) || { grep '^would reformat' <<<"$out" | sed 's/^would reformat /not as black writes it: /'; bad=1; }
[ $bad -eq 0 ] || { echo "FAIL: run make format"; exit 1; }
echo "OK: ${#c[@]} C files and ${#py[@]} Python files as their formatters write them"
