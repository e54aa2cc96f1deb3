"""What every bench module shares: its size (full, or tiny for the test suite) and how it says it cannot run.

``SURGE_BENCH_TINY=1`` (``bench/run_all.py --tiny``) runs each module at a size of seconds: every code
path once, so `make test` (tests/bench/test_bench_modules.py) breaks when a change breaks a bench. The
figures of a tiny run are not measurements: nothing reads them but that test.

A module that cannot run here (a tool, Docker or its images absent) raises ``Skip`` with what is
missing and how to get it; run_all reports the module as skipped with that reason, never as a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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


@contextmanager
def commands_share_one_api() -> Iterator[None]:
    """In a tiny run, the `surge` commands a module starts use one Prefect API, started here, each finding
    it in PREFECT_API_URL instead of starting its own. A command's own start (~3 CPU-s, ~8 s under this
    machine's usual load) is a fixed cost a full run measures, and all a tiny run would do is wait for
    it, once per command. A full run is left alone."""
    if not TINY or os.environ.get("PREFECT_API_URL"):
        yield
        return
    from flows.engine import Engine

    with Engine() as engine, engine.connected():
        assert engine.api is not None
        os.environ["PREFECT_API_URL"] = engine.api.url  # the benchmark's own process: its commands inherit it
        try:
            yield
        finally:
            del os.environ["PREFECT_API_URL"]


def timed_surge(argv: list[str], cwd: Path, timeout_s: float) -> tuple[float, dict]:
    """`surge ARGV` (ARGV asks for --json) to its end: its wall time and its JSON summary. A failure
    raises with the end of its output, so a benchmark never reports a figure of a command that failed."""
    from tests.surge_process import run_surge  # the repository root is on sys.path in every bench script

    started = time.perf_counter()
    done = run_surge(argv, cwd, timeout_s=timeout_s)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        output = f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        raise RuntimeError(f"surge {argv[0]} exited {done.returncode} after {elapsed:.0f} s:\n{output}")
    return elapsed, json.loads(done.stdout)
