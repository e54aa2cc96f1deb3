"""`surge` as its own process, as a user starts it: the executable's entry (``python -m pipeline.cli``) with
this checkout first on the path, and the user's view of errors (one line, SURGE_DEBUG unset)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SURGE = [sys.executable, "-m", "pipeline.cli"]
COMMAND_TIMEOUT_S = 300


def surge_env(base: Mapping[str, str] | None = None, **changes: str) -> dict[str, str]:
    """``base`` (default: this process's environment) with ``changes``, this checkout on PYTHONPATH and no
    SURGE_DEBUG."""
    env = {**(os.environ if base is None else base), **changes, "PYTHONPATH": str(REPO_ROOT)}
    env.pop("SURGE_DEBUG", None)
    return env


def run_surge(
    argv: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout_s: float = COMMAND_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run `surge ARGV` to its end; stdout and stderr as text (undecodable bytes replaced)."""
    return subprocess.run(
        [*SURGE, *argv],
        cwd=cwd,
        env=surge_env(env),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout_s,
    )
