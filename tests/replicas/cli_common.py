# SPDX-License-Identifier: Apache-2.0
"""What the replica and topology script tests share: running chsim, collecting failures, and
checking a refusal (one line on stderr, exit 2, nothing on stdout, the fragments said).
The scripts take CHSIM as their first argument."""
import subprocess
import sys
import tempfile

CHSIM = sys.argv[1]
FAILURES = []


def fail(message):
    FAILURES.append(message)
    print("FAIL: " + message)


def chsim(*args, stdin=None, expect=0):
    p = subprocess.run([CHSIM, *map(str, args)], input=stdin, capture_output=True, timeout=300)
    if p.returncode != expect:
        fail(f"chsim {' '.join(map(str, args))}: exit {p.returncode}, expected {expect}: "
             f"{p.stderr.decode().strip()}")
    return p


def lines(p):
    out = p.stdout.split(b"\n")
    return out[:-1] if out and out[-1] == b"" else out


def refused(args, *fragments, stdin=b"k\n"):
    """The refusal's message (validate's tally line, "N of M files invalid", left out)."""
    p = chsim(*args, stdin=stdin, expect=2)
    err = p.stderr.decode().strip()
    if args[0] == "validate":
        err = err.rsplit("\n", 1)[0]
    if "\n" in err or not err:
        fail(f"chsim {' '.join(map(str, args))}: refusal not one line: {err!r}")
    for f in fragments:
        if f not in err:
            fail(f"chsim {' '.join(map(str, args))}: {err!r} does not say {f!r}")
    if p.stdout:
        fail(f"chsim {' '.join(map(str, args))}: refused but printed {p.stdout[:80]!r}")
    return err


def main(tests):
    """Runs the test sys.argv[2] names in a scratch folder; exit 1 on any failure."""
    test = sys.argv[2]
    if test not in tests:
        sys.exit(f"unknown test {test!r}; accepted: {', '.join(tests)}")
    with tempfile.TemporaryDirectory() as folder:
        tests[test](folder)
    sys.exit(1 if FAILURES else 0)
