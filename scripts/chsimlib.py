# SPDX-License-Identifier: Apache-2.0
"""What the Python scripts share: finding the chsim binary and writing a file atomically.

Import it with the scripts folder on the path (``sys.path.insert(0, ROOT / "scripts")``).
"""
from __future__ import annotations

import os
import shutil
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# This checkout's build folders, most likely first: scripts/run-suite builds build/release,
# scripts/test-all build/ci.
BUILD_DIRS = ["build/release", "build/ci", "build/dev", "build/debug", "build"]


def _executable(path) -> bool:
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def find_chsim(given: str | None = None) -> str:
    """The chsim binary to run, as an absolute path: `given` (which must be executable),
    else ``$CHSIM``, else ``chsim`` on PATH (an installed chsim is a deliberate choice,
    e.g. on cluster nodes), else this checkout's build (BUILD_DIRS in order). Raises
    LookupError with a one-line message when there is none."""
    if given:
        if not _executable(given):
            raise LookupError(f"--chsim {given}: not an executable file")
        return os.path.abspath(given)
    env = os.environ.get("CHSIM")
    if env:
        if not _executable(env):
            raise LookupError(f"CHSIM={env}: not an executable file")
        return os.path.abspath(env)
    found = shutil.which("chsim")
    if found:
        return os.path.abspath(found)
    for d in BUILD_DIRS:
        c = os.path.join(ROOT, d, "sim", "chsim")
        if _executable(c):
            return c
    raise LookupError("no chsim binary: give --chsim PATH, set CHSIM, put chsim on PATH, or "
                      "build it (cmake --build build/release --target chsim)")


def write_atomically(path, text: str, mode: int | None = None) -> None:
    """Writes `text` to `path` through a temporary file in the same folder and a rename:
    readers see the old file or the whole new one, never a part. The folder is created
    when missing; `mode` sets the permissions (else the temporary file's 0600 is widened to
    0644)."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{os.path.basename(path)}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644 if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
