#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""README's opening figure: the first image in README.md's first 30 lines is a PNG in
docs/figures/, followed by a one-line caption in italics (on its line or the next), and its JSON sidecar beside it
(docs/figures/NAME.json, written with the PNG by scripts/make-report --reference) names that
figure and carries the PNG's SHA-256: a PNG redrawn without its sidecar, or the other way
round, fails here.

Usage: readme_figure_test.py SOURCE_DIR
"""
import hashlib
import json
import re
import sys
from pathlib import Path


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    root = Path(sys.argv[1])
    lines = (root / "README.md").read_text(encoding="utf-8").splitlines()[:30]
    at = next((i for i, l in enumerate(lines) if re.match(r"!\[[^\]]*\]\([^)]+\)", l)), None)
    if at is None:
        fail("no image in README.md's first 30 lines")
    rel = re.match(r"!\[[^\]]*\]\(([^)]+)\)", lines[at]).group(1)
    if not re.fullmatch(r"docs/figures/[\w.-]+\.png", rel):
        fail(f"README's figure {rel}: not a PNG in docs/figures/")
    png = root / rel
    if not png.is_file():
        fail(f"README's figure {rel}: no such file")
    after = lines[at][lines[at].index(")") + 1:].strip()
    caption = [after] if after else [l for l in lines[at + 1:at + 3] if l.strip()]
    if not caption or not re.fullmatch(r"\*[^*]+\*", caption[0]):
        fail(f"README's figure {rel}: no italic caption below it")
    side_path = png.with_suffix(".json")
    if not side_path.is_file():
        fail(f"{side_path.relative_to(root)}: no sidecar (scripts/make-report --reference)")
    side = json.loads(side_path.read_text(encoding="utf-8"))
    if side.get("figure") != png.stem:
        fail(f"{side_path.name}: sidecar of figure {side.get('figure')!r}, not {png.stem!r}")
    got = hashlib.sha256(png.read_bytes()).hexdigest()
    if side.get("png_sha256") != got:
        fail(f"{rel} is stale against its sidecar: SHA-256 {got}, the sidecar says "
             f"{side.get('png_sha256')} (redraw both: scripts/make-report --reference)")
    if not side.get("axes"):
        fail(f"{side_path.name}: no axes data")
    print(f"{rel}: '{side.get('title')}', sidecar matches ({got[:12]})")
    print("PASS")


if __name__ == "__main__":
    main()
