# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the Python module's tests: the chsim binary the CLI side runs
(CHSIM), the source tree (CHSIM_SOURCE), and helpers that run a command line and return its
output or its one-line error. The module under test is `chsim` on PYTHONPATH (the build's
python/ folder; tests.cmake sets it)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("CHSIM_SOURCE", os.path.dirname(os.path.dirname(HERE)))
CHSIM = os.environ.get("CHSIM", os.path.join(SOURCE, "build", "ci", "sim", "chsim"))
sys.path.insert(0, os.path.join(SOURCE, "notebooks"))  # chsim_results, as the notebooks load it


def cli(*args, check=True, stdin=None):
    """Runs chsim with args; returns stdout (bytes). check: a non-zero exit fails the test."""
    p = subprocess.run([CHSIM, *map(str, args)], input=stdin, capture_output=True, timeout=600)
    if check and p.returncode != 0:
        pytest.fail(f"chsim {' '.join(map(str, args))} exited {p.returncode}: "
                    f"{p.stderr.decode(errors='replace')}")
    return p.stdout


def cli_error(*args):
    """The one-line message of a command chsim refuses ("chsim: error: " removed); fails
    the test when the command succeeds."""
    p = subprocess.run([CHSIM, *map(str, args)], capture_output=True, timeout=600)
    if p.returncode == 0:
        pytest.fail(f"chsim {' '.join(map(str, args))} succeeded; expected a refusal")
    lines = [l for l in p.stderr.decode(errors="replace").splitlines()
             if l.startswith("chsim: error: ") and "files invalid" not in l]
    assert lines, p.stderr
    return lines[0][len("chsim: error: "):]


@pytest.fixture
def tmp(tmp_path):
    """A temporary directory (a pathlib.Path), also the working directory."""
    old = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(old)
