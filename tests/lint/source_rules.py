#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Source rules that keep the layout honest (label lint). Usage: source_rules.py ROOT

1. sim/ includes name its headers from the repository root ("sim/run/runner.h"),
   and each such header exists; no bare or relative include of a sim header.
2. A header named *_internal.h under sim/ is private to its folder: only files in
   that folder include it (tests, benchmarks and bindings use the other headers). A
   Markdown code block whose first line names its file (`// sim/run/group_x.cc`) is
   held to the rules of that file.
3. Comments and docs cite only files in the repository: no "../shared/" paths and
   no design file outside it; every "docs/design.md#anchor" names a heading that
   docs/design.md has.
Prints each violation as FILE:LINE: what is wrong; exit 1 if any, else 0.
"""
import os
import re
import subprocess
import sys

# Files the sim build generates into its private include directory.
GENERATED = {"results_schema.inc", "results_tune_schema.inc", "results_diff_schema.inc",
             "chsim_build_info.h", "chsim_configure_info.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
BLOCK_FILE = re.compile(r"^// ([\w./-]+\.(?:cc|h))$")  # a docs example's first line
CITE = re.compile(r"docs/design\.md#([A-Za-z0-9_-]+)")
OUTSIDE = re.compile(r"\.\./shared/|\bDESIGN\.md\b")


def tracked_texts(root):
    """(path, lines) of every file git tracks under root that reads as UTF-8 text."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
    for path in (p for p in out.stdout.decode().split("\0") if p):
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                yield path, f.read().split("\n")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue


def anchors(root):
    """GitHub-style anchors of docs/design.md's headings."""
    found = set()
    with open(os.path.join(root, "docs", "design.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#+\s+(.*)", line)
            if m:
                slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
                found.add(slug)
    return found


def check_include(root, path, lineno, name, errors, as_path=None):
    """as_path: the file the include is written for (a docs example's), default path."""
    folder = os.path.dirname(as_path or path)
    if name.startswith("sim/"):
        if not os.path.isfile(os.path.join(root, name)):
            errors.append(f"{path}:{lineno}: includes \"{name}\", which does not exist")
        elif name.endswith("_internal.h") and os.path.dirname(name) != folder:
            errors.append(f"{path}:{lineno}: includes \"{name}\", private to "
                          f"{os.path.dirname(name)}/ (a *_internal.h header)")
    elif path.startswith("sim/") and not name.startswith("chsim/") and name not in GENERATED:
        errors.append(f"{path}:{lineno}: includes \"{name}\"; name sim headers from the "
                      "repository root (\"sim/<part>/<header>.h\")")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    errors = []
    heads = anchors(root)
    for path, lines in tracked_texts(root):
        if "/corpus/" in path or "/golden/" in path:
            continue
        code = path.endswith((".h", ".cc", ".c", ".md"))
        as_path = None  # in a Markdown code block that names its file: that file
        for i, line in enumerate(lines, 1):
            if path.endswith(".md") and line.startswith("```"):
                head = BLOCK_FILE.match(lines[i]) if i < len(lines) else None
                as_path = head.group(1) if line.startswith("```cpp") and head else None
            m = INCLUDE.match(line)
            if m and code:
                check_include(root, path, i, m.group(1), errors, as_path)
            if path == "tests/lint/source_rules.py":
                continue  # its own doc names the patterns
            if OUTSIDE.search(line):
                errors.append(f"{path}:{i}: cites a file outside the repository "
                              f"({OUTSIDE.search(line).group(0)}); cite docs/design.md#section")
            for a in CITE.findall(line):
                if a not in heads:
                    errors.append(f"{path}:{i}: docs/design.md#{a}: no such heading "
                                  f"(headings: {', '.join(sorted(heads))})")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
