#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package: cpack -G DEB in BUILD_DIR (after a full build), then the .deb unpacked
# into a scratch root (dpkg -x, no root needed) and used from there:
#  - its name is chsim_VERSION_amd64.deb and it depends on libssl3, libxxhash0, libzstd1
#    (found by dpkg-shlibdeps) and python3-numpy;
#  - chsim --version prints the version and the commit; chsim list works;
#  - Debian's python3 imports chsim from the root's /usr/lib/python3/dist-packages, and
#    the package's chsim_results builds a result's tables with that chsim.tables;
#  - tests/install/install_test.sh's find_package(chsim) consumer builds against the root;
#  - the man page and the bash completion cover every subcommand and flag of the binary
#    (tests/install/docs_cover.sh).
# Usage: package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package_test: $*" >&2; exit 1; }

(cd "$build_dir" && cpack -G DEB -B "$tmp/pkg" > "$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
version=$(sed -nE 's/^project\(chsim VERSION ([0-9.]+).*/\1/p' "$src/CMakeLists.txt")
deb=$tmp/pkg/chsim_${version}_amd64.deb
[[ -f $deb ]] || fail "no $deb; cpack wrote: $(ls "$tmp/pkg")"
depends=$(dpkg-deb -f "$deb" Depends)
for d in libssl3 libxxhash0 libzstd1 python3-numpy; do
  [[ ", $depends," == *", $d"[\ ,]* ]] || fail "Depends lacks $d: $depends"
done
echo "package_test: $(basename "$deb"), $(stat -c %s "$deb") bytes, Depends: $depends"

root=$tmp/root
dpkg -x "$deb" "$root"
chsim=$root/usr/bin/chsim
for f in usr/share/man/man1/chsim.1 usr/share/bash-completion/completions/chsim \
         usr/share/chsim/scenario-schema.json usr/lib/cmake/chsim/chsimConfig.cmake \
         usr/include/chsim/ring.h; do
  [[ -f $root/$f ]] || fail "the package lacks /$f"
done
got=$("$chsim" --version)
[[ $got =~ ^chsim\ ${version//./\\.}\+[0-9a-f]{12} ]] ||
  fail "chsim --version: '$got'; wanted 'chsim $version+<commit>'"
"$chsim" list > "$tmp/list.txt" || fail "chsim list failed"
grep -q ketama "$tmp/list.txt" || fail "chsim list names no ketama"
where=$(cd "$tmp" && PYTHONPATH=$root/usr/lib/python3/dist-packages /usr/bin/python3 -c \
  'import chsim; print(chsim.__file__)') || fail "python3 -c 'import chsim' failed"
[[ $where == "$root"/usr/lib/python3/dist-packages/chsim/* ]] ||
  fail "import chsim found $where, not the package's"
same=$(cd "$tmp" && PYTHONPATH=$root/usr/lib/python3/dist-packages /usr/bin/python3 -c \
  'import chsim.tables, chsim_results; print(chsim_results._tables.tables is chsim.tables)') ||
  fail "python3 -c 'import chsim.tables, chsim_results' failed"
[[ $same == True ]] || fail "the package's chsim_results does not build tables with its chsim.tables"

cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root/usr" -DCHSIM_INCLUDE_ROOT="$root/usr/include" > "$tmp/cfg.log" 2>&1 ||
  { cat "$tmp/cfg.log"; fail "the consumer does not configure against the package"; }
cmake --build "$tmp/consumer" > "$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail "the consumer does not build against the package"; }
printf '%s\n' 10.0.0.1:11211 10.0.0.2:11211 10.0.0.3:11211 > "$tmp/servers.txt"
printf 'user:42\n' > "$tmp/key.txt"
want=$("$chsim" locate --servers "$tmp/servers.txt" "$tmp/key.txt")
got=$("$tmp/consumer/consumer" user:42 10.0.0.1:11211 10.0.0.2:11211 10.0.0.3:11211)
[[ $got == "$want" ]] || fail "consumer says '$got', the package's chsim locate '$want'"

"$src/tests/install/docs_cover.sh" "$chsim" "$root/usr/share/man/man1/chsim.1" \
  "$root/usr/share/bash-completion/completions/chsim"
echo "package_test: the package installs and works from $root"
