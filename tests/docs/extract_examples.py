#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a guide's worked examples out as source files, so the build compiles them.

Every fenced ```cpp block of the Markdown file whose first line is a comment
naming a path (`// core/src/algorithms/two_choices.cc`) is written to OUT_DIR
under that path's file name. A named file missing from the Markdown is an
error (the example was renamed or dropped while the test still expects it).

Usage: extract_examples.py GUIDE.md OUT_DIR NAME...
"""
import os
import re
import sys

BLOCK = re.compile(r"^```cpp\n// ([\w./-]+)\n(.*?)^```$", re.M | re.S)


def main():
  if len(sys.argv) < 4:
    print(__doc__.strip().splitlines()[-1], file=sys.stderr)
    return 2
  readme, out_dir, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
  with open(readme, encoding="utf-8") as f:
    text = f.read()
  found = {os.path.basename(m.group(1)): "// " + m.group(1) + "\n" + m.group(2)
           for m in BLOCK.finditer(text)}
  os.makedirs(out_dir, exist_ok=True)
  for name in wanted:
    if name not in found:
      print("%s: no ```cpp block starting with a '// .../%s' line (found: %s)" %
            (readme, name, ", ".join(sorted(found)) or "none"), file=sys.stderr)
      return 1
    with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
      f.write(found[name])
  return 0


if __name__ == "__main__":
  sys.exit(main())
