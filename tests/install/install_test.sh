#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs chsim from BUILD_DIR into a temporary prefix, then configures and
# builds tests/install/consumer (find_package(chsim) + chsim::core only, every
# installed header compiled alone) and checks that its answer for a key is the
# one `chsim locate` gives for the same servers.
# Usage: install_test.sh BUILD_DIR CHSIM_BINARY
set -euo pipefail
build_dir=$1
chsim=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build_dir" --prefix "$tmp/prefix" > "$tmp/install.log"
cmake -S "$here/consumer" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCHSIM_INCLUDE_ROOT="$tmp/prefix/include" > "$tmp/configure.log"
cmake --build "$tmp/build" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }

servers=(10.0.0.1:11211 10.0.0.2:11211 10.0.0.3:11211 10.0.0.4:11211)
printf '%s\n' "${servers[@]}" > "$tmp/servers.txt"
fail=0
for key in user:1 user:42 session-abc ""; do
  printf '%s\n' "$key" > "$tmp/key.txt"
  want=$("$chsim" locate --servers "$tmp/servers.txt" "$tmp/key.txt")
  got=$("$tmp/build/consumer" "$key" "${servers[@]}")
  if [[ "$got" != "$want" ]]; then
    echo "install_test: key '$key': consumer says '$got', chsim locate says '$want'" >&2
    fail=1
  fi
done
((fail == 0)) && echo "install_test: the installed chsim::core builds a consumer that agrees with chsim locate"
exit $fail
