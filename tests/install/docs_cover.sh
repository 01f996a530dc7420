#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The man page and the bash completion cover every subcommand and flag that CHSIM's help
# lists: the page names each subcommand and each of its flags; the completion offers each
# subcommand after `chsim `, each flag after `chsim SUB -`, and the catalog's profiles and
# algorithms (chsim list --json) after --profile and --algorithm.
# Usage: docs_cover.sh CHSIM MAN_PAGE COMPLETION
set -euo pipefail
chsim=$1
man=$2
completion=$3
fail=0
miss() { echo "docs_cover: $*" >&2; fail=1; }
page=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man")
complete_words() {  # the completion's answer for the words "$@" (the last being completed)
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _chsim
           printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$chsim" "$@"
}
subs=$("$chsim" --help | sed -n '/^Subcommands:/,$p' | sed -nE 's/^  ([a-z][a-z-]*) .*/\1/p')
[[ -n $subs ]] || miss "no subcommands in chsim --help"
offered=$(complete_words "")
n_flags=0
for s in $subs; do
  grep -qx "$s" <<< "$offered" || miss "completion does not offer subcommand '$s'"
  grep -q "chsim $s" <<< "$page" || miss "man page has no section for 'chsim $s'"
  flags=$("$chsim" "$s" --help | sed -nE 's/^  (-[a-zA-Z],)?(--[a-z0-9-]+).*/\2/p')
  got=$(complete_words "$s" "--")
  for f in $flags; do
    n_flags=$((n_flags + 1))
    grep -qx -- "$f" <<< "$got" || miss "completion of 'chsim $s --' lacks $f"
    grep -q -- "$f" <<< "$page" || miss "man page lacks $s's flag $f"
  done
done
catalog=$("$chsim" list --json)
for kind in profiles:--profile algorithms:--algorithm; do
  names=$(/usr/bin/python3 -c 'import json, sys; print("\n".join(e["name"] for e in json.load(sys.stdin)[sys.argv[1]]))' \
          "${kind%%:*}" <<< "$catalog")
  got=$(complete_words locate "${kind#*:}" "")
  for n in $names; do
    grep -qx -- "$n" <<< "$got" || miss "completion after ${kind#*:} lacks '$n'"
  done
done
((fail == 0)) || exit 1
echo "docs_cover: man page and completion cover $(wc -w <<< "$subs") subcommands and $n_flags flags"
