#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Algorithm names live in one place (label lint). Usage: algorithm_names.py ROOT

Every registered algorithm (each `constinit const AlgorithmSpec kXSpec` in
core/src/algorithms/ named by core/src/algorithms/registry.cc) is named, as a
quoted string ("anchor", 'anchor', "anchor(...)", "anchor/...") or by its spec's
identifier, only in:
- its own file and its registry row;
- tests (tests/), which pick the algorithms they exercise;
- what users write or read rather than code that lists algorithms: scenarios/
  (inputs), docs/ (prose and measured data), README.md and results/README.md, and any
  JSON or Markdown file (a scenario or a note kept elsewhere);
- the files in EXCEPTIONS below, each for the names and the reason it gives.
Everything else that needs the algorithms reads them from the registry (C++:
AllAlgorithms(); Python and scripts: `chsim list --json`, or chsim.algorithms()).
A name found elsewhere prints FILE:LINE: names algorithm 'X' ...; exit 1 if any.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from source_rules import tracked_texts  # noqa: E402

ALGORITHMS = "core/src/algorithms/"
REGISTRY = ALGORITHMS + "registry.cc"
FREE = ("tests/", "scenarios/", "docs/", "README.md", "results/README.md")
FREE_KINDS = (".json", ".md")
EXCEPTIONS = {
    "core/src/profile.cc": ({"ring", "ketama"},
                            "the compatibility profiles build Ketama rings; the research "
                            "profile is named after the ring algorithm"),
    "sim/python/placement.cc": ({"ring", "jump", "maglev", "ketama"},
                                "Placement.points() is the ketama spec's ring; docstring examples"),
    "sim/python/catalog.cc": ({"ring"}, "docstring examples of a case id"),
    "sim/scenario/case_id.h": ({"ring"}, "a comment's example of a case label"),
    "sim/cli/placement_options.cc": ({"ketama"},
                                     "--points-per-weight is the ketama parameter of that name, "
                                     "checked by its spec for the profiles' options"),
    "sim/cli/cmd_locate.cc": ({"ring", "ketama"},
                              "the `chsim ring` command, which prints a Ketama ring; `locate "
                              "--replicas` over a peer profile locates with the ketama "
                              "algorithm, which builds that same ring"),
    "notebooks/balance.ipynb": ({"ring"}, "the per-node figure prefers the Ketama ring's case "
                                "when the results have one"),
    "notebooks/chsim_results/load.py": ({"ring"}, "a tune request's research-profile name"),
    "notebooks/python_api.ipynb": ({"ketama"}, "the notebook compares the ketama clients"),
    "notebooks/chsim_results/style.py": ({"ketama"}, "OWN_SETTINGS: python_api's two clients, "
                                         "shaded alike in every notebook of a report"),
    "bench/algorithm_benchmark.cc": ({"jump", "modulo", "power"},
                                     "interface-cost rows time jump and modulo, the cheapest "
                                     "lookups; power_mix64 rows time power with level_hash "
                                     "mix64 beside the reference engine"),
    "bench/replay_benchmark.cc": ({"ring"}, "the replay is timed over one ring"),
    "bench/replay-vs-libcachesim": ({"ring"}, "chsim's side of the replay runs over one ring"),
    "bench/python_locate.py": ({"ring", "jump", "maglev", "ketama"},
                               "the Python binding's cost over a few algorithms; uhashring's "
                               "own hash_fn name"),
    "bench/peers/": ({"ketama"}, "the peer libraries' own names"),
    "scripts/compare-reference": ({"anchor", "dx", "power"},
                                  "the algorithms the outside reference engines implement"),
    "scripts/performance": ({"ring", "modulo"},
                            "the runner scenario's ring and the speed table's baseline"),
    "scripts/run-suite": ({"ketama"}, "a comment on the ketama clients' scenario"),
    "core/src/crush/text.cc": ({"straw2"}, "crushtool's map text names its bucket algorithm "
                               "straw2, which the reader accepts"),
    "sim/scenario/haproxy_config.cc": ({"ring"}, "HAProxy's own `ring` section keyword"),
}
# `constinit const AlgorithmSpec kXSpec{ .name = "x", ...` (or `= Maker({ ...`), as
# docs/extending.md writes a spec; a bare `extern` declaration does not match.
SPEC = re.compile(r'AlgorithmSpec\s+(\w+)\s*(?:=\s*[\w:]*\(\s*)?\{[^;]*?\.name\s*=\s*"([\w.-]+)"', re.S)


def registered(root):
    """{name: (own file, spec identifier)} of the specs registry.cc lists."""
    specs = {}
    for f in sorted(os.listdir(os.path.join(root, ALGORITHMS))):
        if f.endswith(".cc"):
            with open(os.path.join(root, ALGORITHMS, f), encoding="utf-8") as src:
                for ident, name in SPEC.findall(src.read()):
                    specs[ident] = (name, ALGORITHMS + f)
    with open(os.path.join(root, REGISTRY), encoding="utf-8") as f:
        rows = re.search(r"kRegistry\[\]\s*=\s*\{(.*?)\};", f.read(), re.S)
    listed = set(re.findall(r"&(\w+)", rows.group(1) if rows else ""))
    missing = listed - specs.keys()
    if missing or len(listed) < 15:
        sys.exit(f"{REGISTRY}: lists {sorted(listed)}; no spec definition found for "
                 f"{sorted(missing)} (this test reads `constinit const AlgorithmSpec kXSpec"
                 f"{{ .name = \"x\" ...` in {ALGORITHMS}, as docs/extending.md writes it)")
    return {specs[i][0]: (specs[i][1], i) for i in listed}


def allowed(path, name, own):
    if path in (own, REGISTRY) or path.startswith(FREE) or path.endswith(FREE_KINDS):
        return True
    for prefix, (names, _) in EXCEPTIONS.items():
        if path.startswith(prefix) and name in names:
            return True
    return False


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    algos = registered(root)
    patterns = {n: re.compile(rf"[\"']{n}[\"'(/]|\b{ident}\b") for n, (_, ident) in algos.items()}
    errors = []
    for path, lines in tracked_texts(root):
        if path == "tests/lint/algorithm_names.py":
            continue
        for name, pattern in patterns.items():
            if allowed(path, name, algos[name][0]):
                continue
            for i, line in enumerate(lines, 1):
                if pattern.search(line):
                    errors.append(f"{path}:{i}: names algorithm '{name}'; outside its own file "
                                  f"({algos[name][0]}), its registry row and tests, read the "
                                  "algorithms from the registry (chsim list --json)")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
