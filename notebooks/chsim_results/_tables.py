# SPDX-License-Identifier: Apache-2.0
"""The Python module's ``chsim.tables`` (sim/python/chsim/tables.py), where a result file's
pandas tables are built for both the module and this package.

In a checkout, the source file itself, so that the notebooks need no built module and never
mix a checkout's package with another build's or an installed module; where this package is
installed or copied beside ``chsim`` (``cmake --install``, the .deb, <build>/python), that
``chsim``'s copy. The file imports nothing of chsim, so it loads without the compiled part.
"""
import importlib.util
import sys
from pathlib import Path

_SOURCE = Path(__file__).resolve().parent.parent.parent / "sim" / "python" / "chsim" / "tables.py"

if _SOURCE.is_file():
    _NAME = "chsim_results._chsim_tables"
    if _NAME not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_NAME, _SOURCE)
        _mod = importlib.util.module_from_spec(_spec)
        sys.modules[_NAME] = _mod
        _spec.loader.exec_module(_mod)
    tables = sys.modules[_NAME]
else:
    from chsim import tables  # noqa: F401 - installed beside chsim_results
