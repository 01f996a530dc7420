#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/regenerate rewrites exactly the documents the staleness tests check (label lint).

1. On the checkout, `--check` finds every document current: what it writes is what the tests
   (spec_docs_test.cc, results_test.cc, fuzz_dictionary_is_current) compare against.
2. On a copy with each document made stale (a section's body or a whole file changed),
   `--check` names that document and exits 1; a plain run rewrites it back to the checkout's
   text and keeps the rest of the file; then `--check` exits 0.

Usage: regenerate_test.py ROOT CHSIM
"""
import os
import shutil
import subprocess
import sys
import tempfile

STALE = {  # file -> (text to find, replacement) making it stale
    "README.md": ("<!-- end of algorithm table -->", "| stale | row |\n<!-- end of algorithm table -->"),
    "results/README.md": ("<!-- end of metric table -->", "stale\n<!-- end of metric table -->"),
    "docs/workloads.md": ("<!-- end of workload list -->", "stale\n<!-- end of workload list -->"),
    "scenarios/schema.json": ("{", "{\"stale\": 1,"),
    "tests/fuzz/scenario.dict": ("\n", "\n\"stale\"\n"),
}


def run(root, chsim, *args):
    return subprocess.run([sys.executable, os.path.join(root, "scripts", "regenerate"),
                           "--chsim", chsim, *args], capture_output=True, text=True)


def main():
    root, chsim = sys.argv[1], sys.argv[2]
    p = run(root, chsim, "--check")
    if p.returncode != 0:
        print(f"regenerate --check on the checkout: exit {p.returncode}\n{p.stdout}{p.stderr}")
        return 1
    with tempfile.TemporaryDirectory() as d:
        for path in STALE:
            os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
            shutil.copy(os.path.join(root, path), os.path.join(d, path))
        for path, (find, repl) in STALE.items():
            full = os.path.join(d, path)
            with open(full, encoding="utf-8") as f:
                text = f.read()
            with open(full, "w", encoding="utf-8") as f:
                f.write(text.replace(find, repl, 1))
            p = run(root, chsim, "--check", "--root", d)
            if p.returncode != 1 or path not in p.stdout or "run scripts/regenerate" not in p.stdout:
                print(f"a stale {path}: --check gave exit {p.returncode}: {p.stdout}{p.stderr}")
                return 1
            p = run(root, chsim, "--root", d)
            with open(full, encoding="utf-8") as f, open(os.path.join(root, path),
                                                         encoding="utf-8") as g:
                if p.returncode != 0 or f.read() != g.read():
                    print(f"regenerate did not restore {path}: exit {p.returncode} {p.stderr}")
                    return 1
        p = run(root, chsim, "--check", "--root", d)
        if p.returncode != 0:
            print(f"after regenerating, --check: exit {p.returncode}: {p.stdout}")
            return 1
    print("regenerate: --check and rewrite agree with the staleness tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
