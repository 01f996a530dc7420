#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs pytest on the given arguments for CTest. pytest exits 5 when it collects no test (a
test file renamed, emptied or skipped as a whole): that is reported as a failure with its
reason, never passed silently."""
import sys

import pytest

rc = pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]])
if rc == pytest.ExitCode.NO_TESTS_COLLECTED:
    print(f"pytest collected no tests from {' '.join(sys.argv[1:])}", file=sys.stderr)
    sys.exit(1)
sys.exit(int(rc))
