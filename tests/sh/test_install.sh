#!/usr/bin/env bash
# make install into a temporary PREFIX, then a C user's program against what it installed and
# nothing else: examples/c/random_agent.c built with pkg-config's line (the shared library, found
# at run time without LD_LIBRARY_PATH) and with the static one (--static: its Libs.private carry
# zlib and giflib); both play the same games. DESTDIR stages under a root and keeps PREFIX in
# pongrl.pc; uninstall takes back what install put. Needs pkg-config (Debian's pkg-config).
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v pkg-config >/dev/null || { echo "skip: pkg-config not installed (Debian: apt-get install pkg-config)"; exit 77; }
cc=${CC:-cc}

p=$tmp/prefix
out=$(make --no-print-directory install PREFIX="$p" 2>&1) || { echo "$out" | tail; fail "make install"; }
for f in bin/pongrl lib/libpongrl.a lib/libpongrl.so lib/pkgconfig/pongrl.pc \
         include/pongrl/env.h include/pongrl/vecenv.h include/pongrl/abi.h; do
    [ -s "$p/$f" ] || fail "make install left no $f"
done
grep -rq '"\.\./' "$p/include/pongrl" && fail "an installed header still includes a path of the source tree"
"$p/bin/pongrl" --version >/dev/null || fail "the installed binary does not run"

export PKG_CONFIG_PATH=$p/lib/pkgconfig
[ "$(pkg-config --modversion pongrl)" = "$("$p/bin/pongrl" --version | awk '{print $NF}')" ] \
    || fail "pongrl.pc's version $(pkg-config --modversion pongrl) is not the binary's: $("$p/bin/pongrl" --version)"
# the shared library, as a user types it (the source tree's headers are not on the path: a copy
# of the example in the temporary folder, compiled there)
cp examples/c/random_agent.c "$tmp/"
(cd "$tmp" && $cc -std=c11 -Wall -Wextra -Werror random_agent.c $(pkg-config --cflags --libs pongrl) -o ra_shared) \
    || fail "the example does not build against the installed shared library"
grep -q "$p/lib/libpongrl.so" <<<"$(ldd "$tmp/ra_shared")" || fail "ra_shared does not load the installed library: $(ldd "$tmp/ra_shared")"
shared=$(env -u LD_LIBRARY_PATH "$tmp/ra_shared" 7) || fail "ra_shared failed"
echo "$shared"
echo "$shared" | grep -Eq '^game: agent [0-9]+, cpu [0-9]+ after [0-9]+ steps' || fail "no game line"
echo "$shared" | grep -Eq '^game: agent (21, cpu [0-9]|[0-9]+, cpu 21) ' || fail "the game did not end at 21"
a=$(echo "$shared" | sed -n 's/^game: agent \([0-9]*\), cpu \([0-9]*\) .*return \(-*[0-9]*\)$/\1 \2 \3/p')
set -- $a; [ $(($1 - $2)) = "$3" ] || fail "the return $3 is not agent - cpu ($1 - $2)"
echo "$shared" | grep -Eq '^vector: 4 envs x 1000 steps, [1-9][0-9]* points played' || fail "no vector line"

# the shared library's SONAME and the links install lays down: -lpongrl finds libpongrl.so, the
# program asks for libpongrl.so.0, which is libpongrl.so.VERSION
v=$(pkg-config --modversion pongrl)
grep -q 'SONAME *libpongrl\.so\.0$' <<<"$(objdump -p "$p/lib/libpongrl.so.$v")" || fail "no SONAME libpongrl.so.0: $(objdump -p "$p/lib/libpongrl.so.$v" | grep SONAME)"
[ "$(readlink "$p/lib/libpongrl.so")" = libpongrl.so.0 ] && [ "$(readlink "$p/lib/libpongrl.so.0")" = "libpongrl.so.$v" ] ||
    fail "the library's links: $(ls -l "$p/lib" | grep libpongrl.so)"
grep -q 'NEEDED.*\[libpongrl\.so\.0\]' <<<"$(readelf -d "$tmp/ra_shared")" || fail "ra_shared does not ask for libpongrl.so.0"
# the same program as C++ (the headers declare C linkage): it links and plays the same games
if command -v g++ >/dev/null; then
    (cd "$tmp" && g++ -x c++ -std=c++20 -Wall -Werror random_agent.c $(pkg-config --cflags --libs pongrl) -o ra_cpp) \
        || fail "the example does not build as C++ against the installed headers"
    [ "$(env -u LD_LIBRARY_PATH "$tmp/ra_cpp" 7)" = "$shared" ] || fail "the C++ build plays differently"
else
    echo "note: no g++ here (make test installs it): the C++ build not tried"
fi

# the README's C program, as a user copies it into main.c: built as C and as C++ by pkg-config's
# line against the installed prefix, and run: the same score
awk '/^```c$/{f=1;next} /^```$/{if(f){f=0;exit}} f' README.md > "$tmp/main.c"
grep -q 'int main' "$tmp/main.c" || fail "the README has no C block with a main"
(cd "$tmp" && $cc -std=c11 -Wall -Wextra -Werror main.c $(pkg-config --cflags --libs pongrl) -o readme_c) ||
    fail "the README's C block does not build"
readme=$(env -u LD_LIBRARY_PATH "$tmp/readme_c") || fail "the README's C program failed"
grep -Eqx '[-+][0-9]+' <<<"$readme" || fail "the README's C program printed '$readme'"
if command -v g++ >/dev/null; then
    (cd "$tmp" && g++ -x c++ -std=c++20 -Wall -Werror main.c $(pkg-config --cflags --libs pongrl) -o readme_cpp) ||
        fail "the README's C block does not build as C++"
    [ "$(env -u LD_LIBRARY_PATH "$tmp/readme_cpp")" = "$readme" ] || fail "the README's program as C++ printed otherwise"
fi

# the static library: pongrl's objects copied in, zlib, giflib and libm from Libs.private
(cd "$tmp" && $cc -std=c11 random_agent.c $(pkg-config --cflags pongrl) "$p/lib/libpongrl.a" \
    $(pkg-config --static --libs-only-l pongrl | sed 's/-lpongrl//') -o ra_static) \
    || fail "the example does not build against the installed static library"
grep -q libpongrl <<<"$(ldd "$tmp/ra_static")" && fail "ra_static loads the shared library"
static=$("$tmp/ra_static" 7) || fail "ra_static failed"
[ "$static" = "$shared" ] || fail "static and shared builds play differently: '$static'"

# DESTDIR: everything under the staging root, pongrl.pc still saying PREFIX
make --no-print-directory install DESTDIR="$tmp/stage" PREFIX=/opt/pongrl >/dev/null 2>&1 || fail "make install DESTDIR"
[ -s "$tmp/stage/opt/pongrl/lib/libpongrl.so" ] && [ -s "$tmp/stage/opt/pongrl/include/pongrl/env.h" ] \
    || fail "DESTDIR: files not under the staging root"
grep -qx 'prefix=/opt/pongrl' "$tmp/stage/opt/pongrl/lib/pkgconfig/pongrl.pc" || fail "DESTDIR leaked into pongrl.pc"

make --no-print-directory uninstall PREFIX="$p" >/dev/null 2>&1 || fail "make uninstall"
left=$(find "$p" -type f); [ -z "$left" ] || fail "uninstall left: $left"
echo "ok"
