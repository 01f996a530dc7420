#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The libFuzzer dictionary of fuzz_scenario, made from `chsim list --json`: every key,
tag and enum value of the scenario format's rows, every algorithm with its parameters and
their string values, every workload with its fields, "all" and "auto"; then a few syntax and
boundary tokens. No name is kept here, so a new algorithm or workload is in the dictionary
once it is in the catalog.

Usage: make_dict.py CHSIM                                  (prints it; scripts/regenerate
                                                           writes tests/fuzz/scenario.dict)
       make_dict.py CHSIM --check tests/fuzz/scenario.dict   (exit 1 when stale)
"""
import json
import subprocess
import sys

SYNTAX = ["{i}", "{i/256%256}", "{hex:8}", "user:{n}", "{bytes:8}", "{", "}", "[", "]", ":", ",",
          "true", "false", "null", "1e308", "-1", "0", "4294967296", "18446744073709551616"]


def walk_field(f, out):
    out.append(f.get("name", ""))
    out.extend(f.get("choices", []))
    if "object" in f:
        walk_object(f["object"], out)
    if "items" in f:
        walk_field(f["items"], out)
    for a in f.get("alternatives", []):
        walk_field(a, out)
    if "tag" in f:
        out.append(f["tag"])
        for v in f["variants"]:
            walk_object(v, out)


def walk_object(o, out):
    out.append(o.get("tag_value", ""))
    for f in o["fields"]:
        walk_field(f, out)


def tokens(catalog):
    out = []
    walk_object(catalog["scenario"], out)
    out += ["algorithm", "all"]
    for a in catalog["algorithms"]:
        out.append(a["name"])
        for p in a["parameters"]:
            out.append(p["name"])
            out.extend(p.get("choices", []))
            if "auto" in p:
                out.append("auto")
    for w in catalog["workloads"]:
        out.append(w["name"])
        for f in w["fields"]:
            walk_field(f, out)
    seen, unique = set(), []
    for t in out + SYNTAX:
        if t and t not in seen:
            seen.add(t)
            unique.append(t)
    return unique


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    catalog = json.loads(subprocess.run([sys.argv[1], "list", "--json"], check=True,
                                        capture_output=True, text=True).stdout)
    text = "# libFuzzer dictionary for fuzz_scenario, made by tests/fuzz/make_dict.py " \
           "from `chsim list --json`.\n" + "".join(json.dumps(t) + "\n" for t in tokens(catalog))
    if len(sys.argv) == 2:
        sys.stdout.write(text)
        return 0
    with open(sys.argv[3]) as f:
        if f.read() != text:
            print(f"{sys.argv[3]} differs from the catalog; run scripts/regenerate",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
