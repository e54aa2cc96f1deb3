"""What every bench module shares: its size (full, or tiny for the test suite) and how it says it cannot run.

``SURGE_BENCH_TINY=1`` (``bench/run_all.py --tiny``) runs each module at a size of seconds: every code
path once, so `make test` (tests/bench/test_bench_modules.py) breaks when a change breaks a bench. The
figures of a tiny run are not measurements: nothing reads them but that test.

A module that cannot run here (a tool, Docker or its images absent) raises ``Skip`` with what is
missing and how to get it; run_all reports the module as skipped with that reason, never as a failure.
"""

from __future__ import annotations

import os
import shutil

TINY_VARIABLE = "SURGE_BENCH_TINY"
TINY = os.environ.get(TINY_VARIABLE, "") not in ("", "0")


class Skip(Exception):
    """This module cannot run on this machine; the message names what is missing."""


def size(full: int, tiny: int, variable: str | None = None) -> int:
    """``variable`` (an environment variable) when set, else the tiny or the full size."""
    if variable and os.environ.get(variable):
        return int(os.environ[variable])
    return tiny if TINY else full


def require_tools(*names: str) -> None:
    """Skip unless every named executable is on PATH."""
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        raise Skip(f"needs {', '.join(f'`{name}`' for name in missing)} (install with `make setup`)")
