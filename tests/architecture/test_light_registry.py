"""Loading the subset registry loads none of the heavy libraries its specs' build steps use.

Every command imports the registry to build its parser, and a spec holds its construction method as an
object, so the chain registry -> spec -> build step is imported with it: the steps type the store only
for annotations and reach the LLM client and git through pipeline/build/methods.py when a build runs."""

from __future__ import annotations

import subprocess
import sys

from tests.architecture.test_layers import ROOT

HEAVY = ("pyarrow", "httpx", "git", "sqlite3", "prefect")


def loaded_by(module: str) -> list[str]:
    probe = f"import sys, {module}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_the_subset_registry_loads_no_heavy_library() -> None:
    assert loaded_by("pipeline.subsets") == []


def test_the_probe_sees_a_heavy_library() -> None:
    assert loaded_by("pipeline.store") == ["pyarrow"]
