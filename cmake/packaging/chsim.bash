# SPDX-License-Identifier: Apache-2.0
# Bash completion for chsim. Nothing here is a copy: the subcommands and each one's flags are
# read from `chsim --help` and `chsim SUBCOMMAND --help`, the profiles, algorithms and hashers
# from `chsim list --json`, once per shell (the installed chsim answers for itself).

_chsim_help_words() {  # the subcommands (no argument) or the flags of subcommand $2
  local cmd=$1 sub=$2 section=""
  local line
  while IFS= read -r line; do
    case $line in
      Subcommands:) section=sub; continue ;;
      Options:) section=opt; continue ;;
      Positionals:) section=pos; continue ;;
      "") continue ;;
    esac
    if [[ -z $sub && $section == sub && $line =~ ^\ \ ([a-z][a-z-]*)\  ]]; then
      printf '%s\n' "${BASH_REMATCH[1]}"
    elif [[ -n $sub && $section == opt && $line =~ ^\ \ (-[a-zA-Z],)?(--[a-z0-9-]+) ]]; then
      printf '%s\n' "${BASH_REMATCH[2]}"
    fi
  done < <("$cmd" ${sub:+"$sub"} --help 2>/dev/null)
}

_chsim_catalog() {  # the names of `chsim list --json`'s profiles, algorithms, hashers
  "$1" list --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for kind in ("profiles", "algorithms", "hashers"):
    print(kind, " ".join(e["name"] if isinstance(e, dict) else str(e) for e in d.get(kind, [])))
' 2>/dev/null
}

_chsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[0]}
  local sub="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    [[ ${COMP_WORDS[i]} != -* ]] && { sub=${COMP_WORDS[i]}; break; }
  done
  if [[ -z ${_chsim_subcommands+x} ]]; then
    _chsim_subcommands=$(_chsim_help_words "$cmd" "")
    declare -gA _chsim_names=()
    local kind names
    while read -r kind names; do _chsim_names[$kind]=$names; done < <(_chsim_catalog "$cmd")
  fi
  case $prev in
    --profile) COMPREPLY=($(compgen -W "${_chsim_names[profiles]}" -- "$cur")); return ;;
    --algorithm) COMPREPLY=($(compgen -W "${_chsim_names[algorithms]}" -- "$cur")); return ;;
    --hasher|--key-hasher|--point-hasher)
      COMPREPLY=($(compgen -W "${_chsim_names[hashers]}" -- "$cur")); return ;;
    -o|--output|--json|--servers|--servers-new) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ -z $sub ]]; then
    COMPREPLY=($(compgen -W "$_chsim_subcommands --help --version" -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_chsim_help_words "$cmd" "$sub")" -- "$cur"))
  else  # scenario and result files: JSON files and folders
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur"))
  fi
}
complete -F _chsim chsim
