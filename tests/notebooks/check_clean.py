#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a committed notebook carries outputs, execution counts or a kernel other than
Debian's python3 ("python3" kernelspec), so notebooks stay diffable and reproducible.

Usage: check_clean.py NOTEBOOK_DIR [--expect NAME ...]
"""
import json
import sys
from pathlib import Path


def problems(path):
    out = []
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        return [f"{path}: line {e.lineno}: not valid JSON ({e.msg})"]
    ks = nb.get("metadata", {}).get("kernelspec", {}).get("name")
    if ks != "python3":
        out.append(f"{path}: /metadata/kernelspec/name: found {ks!r}; accepted: 'python3'")
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            out.append(f"{path}: /cells/{i}/outputs: {len(cell['outputs'])} output(s); accepted: "
                       "none (clear them: jupyter nbconvert --clear-output --inplace)")
        if cell.get("execution_count") is not None:
            out.append(f"{path}: /cells/{i}/execution_count: found {cell['execution_count']}; "
                       "accepted: null")
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    expect = argv[argv.index("--expect") + 1:] if "--expect" in argv else []
    books = sorted(root.glob("*.ipynb"))
    errs = [p for b in books for p in problems(b)]
    names = {b.stem for b in books}
    errs += [f"{root}/{e}.ipynb: missing" for e in expect if e not in names]
    for e in errs:
        print(e, file=sys.stderr)
    print(f"check_clean: {len(books)} notebooks, {len(errs)} problem(s)")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
