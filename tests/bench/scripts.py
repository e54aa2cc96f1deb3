"""A script of bench/ as a module, for the tests that call its functions: bench/ is not a package."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from tests.conftest import REPO_ROOT

BENCH = REPO_ROOT / "bench"


def load_bench_script(stem: str) -> ModuleType:
    """bench/<stem>.py, imported under its stem."""
    spec = importlib.util.spec_from_file_location(stem, BENCH / f"{stem}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
