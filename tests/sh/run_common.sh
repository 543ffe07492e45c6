# run_common.sh: sourced by the end-to-end tests of training runs (not a test itself): the
# binary, a temporary directory removed at exit, fail, and what they compare: the closing
# weights crc32 and metrics.csv's rows without the wall time (its 4th column differs between runs).
bin=${PONGRL_BIN:-build/pongrl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
crc() { sed -n 's/.*weights crc32 \([0-9a-f]*\).*/\1/p'; }
rows() { cut -d, -f1-3,5- "$1/metrics.csv"; }
