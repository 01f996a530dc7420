#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""docs/extending.md's compiled examples cannot shadow real code (label docs).

The docs tests link the guide's worked examples (two_choices, prefixed, ...) into their own
binary beside the libraries. A spec copied from the guide verbatim into core/ or sim/ would
define the same symbol: the linker takes the test's copy with no error, and the real file is
silently left out. So every spec identifier the guide's C++ blocks define (`kTwoChoicesSpec`,
`kPrefixedWorkload`, `kHotspotGroup`, ...) must be defined nowhere in the sources; a file that
does is named, with the advice to pick another name.

Usage: example_names.py ROOT
"""
import os
import re
import subprocess
import sys

GUIDE = "docs/extending.md"
BLOCK = re.compile(r"^```cpp\n(.*?)^```$", re.M | re.S)
# A spec defined at namespace scope: `extern const AlgorithmSpec kX{`, `constinit const ... kX =`,
# `constexpr MetricGroup kX{`.
DEFINES = re.compile(r"\b(?:extern\s+const|constinit\s+const|constexpr)\s+"
                     r"(?:AlgorithmSpec|WorkloadSpec|MetricGroup|ProfileSpec)\s+(k\w+)\s*[{=]")
SOURCES = ("core/", "sim/", "bench/")


def example_symbols(text):
    return {m.group(1) for b in BLOCK.finditer(text) for m in DEFINES.finditer(b.group(1))}


def sources(root):
    """Every C++ file under SOURCES that git tracks or would add (new files included)."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard", "--", *SOURCES], capture_output=True, check=True)
    for p in sorted(set(out.stdout.decode().split("\0"))):
        if p.endswith((".cc", ".h")) and os.path.isfile(os.path.join(root, p)):
            yield p


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    with open(os.path.join(root, GUIDE), encoding="utf-8") as f:
        symbols = example_symbols(f.read())
    if not symbols:
        print(f"{GUIDE}: no spec defined in its C++ examples; this check has nothing to hold")
        return 1
    errors = 0
    for path in sources(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = DEFINES.search(line)
                if m and m.group(1) in symbols:
                    print(f"{path}:{lineno}: defines {m.group(1)}, the name of {GUIDE}'s example; "
                          "pick another name (the docs tests link the example in its place)")
                    errors += 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
