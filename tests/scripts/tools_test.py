# SPDX-License-Identifier: Apache-2.0
"""The scripts' shared helpers (scripts/chsimlib.py), and that no script keeps its own copy.

Usage: tools_test.py SOURCE_DIR
  1. find_chsim: a given path wins, then $CHSIM, then chsim on PATH, then the checkout's build; a
     given path that is not an executable file and no chsim at all are LookupErrors.
  2. write_atomically: the file is whole, its mode as asked, no temporary left beside it; a write
     that fails midway leaves the old file as it was.
  3. No script under scripts/ defines find_chsim by hand or renames files over others itself.
Exits 1 with FAIL lines, 0 with "ok".
"""

import os
import re
import stat
import sys
import tempfile

SOURCE = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
import chsimlib  # noqa: E402

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def fake_chsim(folder):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "chsim")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(path, 0o755)
    return path


def find_order(tmp):
    given, env, on_path = (fake_chsim(os.path.join(tmp, d)) for d in ("given", "env", "path"))
    saved = dict(os.environ)
    try:
        os.environ["CHSIM"] = env
        os.environ["PATH"] = os.path.dirname(on_path)
        check(chsimlib.find_chsim(given) == given, "a given --chsim does not win")
        check(chsimlib.find_chsim() == env, "$CHSIM does not win over PATH")
        del os.environ["CHSIM"]
        check(chsimlib.find_chsim() == on_path, "chsim on PATH does not win over the build")
        for bad in (os.path.join(tmp, "missing"), tmp):
            try:
                chsimlib.find_chsim(bad)
                failures.append(f"--chsim {bad} accepted")
            except LookupError as e:
                check(str(e).startswith(f"--chsim {bad}:"), f"message does not name it: {e}")
        os.environ["PATH"] = os.path.join(tmp, "empty")
        saved_root, chsimlib.ROOT = chsimlib.ROOT, tmp
        try:
            chsimlib.find_chsim()
            failures.append("no chsim anywhere, yet one was found")
        except LookupError as e:
            check("--chsim PATH" in str(e), f"the message does not say what to do: {e}")
        built = fake_chsim(os.path.join(tmp, "build", "ci", "sim"))
        check(chsimlib.find_chsim() == built, "the checkout's build is not found")
        chsimlib.ROOT = saved_root
    finally:
        os.environ.clear()
        os.environ.update(saved)


def atomic_writes(tmp):
    path = os.path.join(tmp, "out", "doc.json")
    chsimlib.write_atomically(path, "old\n", 0o600)
    check(open(path).read() == "old\n", "the text written is not the file's")
    check(stat.S_IMODE(os.stat(path).st_mode) == 0o600, "the mode asked for is not the file's")

    try:
        chsimlib.write_atomically(path, b"bytes, not text")  # fails once the file is open
        failures.append("a failing write did not raise")
    except TypeError:
        pass
    check(open(path).read() == "old\n", "a failed write changed the old file")
    check(os.listdir(os.path.dirname(path)) == ["doc.json"],
          f"temporaries left: {os.listdir(os.path.dirname(path))}")


def no_copies():
    folder = os.path.join(SOURCE, "scripts")
    for name in sorted(os.listdir(folder)) + ["../bench/peers/run"]:
        path = os.path.join(folder, name)
        if name == "chsimlib.py" or not os.path.isfile(path):
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        if not text.startswith("#!/usr/bin/python3") and not name.endswith(".py"):
            continue
        for pattern in (r"os\.replace\(", r"os\.rename\(", r"shutil\.which\(\"chsim\"\)"):
            check(not re.search(pattern, text),
                  f"scripts/{name}: {pattern} by hand; use chsimlib (scripts/chsimlib.py)")


with tempfile.TemporaryDirectory() as tmp:
    find_order(tmp)
with tempfile.TemporaryDirectory() as tmp:
    atomic_writes(tmp)
no_copies()
for message in failures:
    print(f"FAIL: {message}")
print("ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
