"""The stand-in REPL (tests/lean/fake_repl.py) behind real settings, pools and backends."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.records import EnvironmentProfile, Language, Program, RunRequest, RunResult
from sandboxes.lean.backend import LeanBackend
from sandboxes.lean.settings import LeanSettings

FAKE_REPL = Path(__file__).resolve().parent / "fake_repl.py"
HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen BigOperators Real Nat Topology Rat"
)
PROFILE = EnvironmentProfile(name="test")


def fake_settings(project_dir: Path, **overrides: Any) -> LeanSettings:
    values: dict[str, Any] = {
        "repl_command": [sys.executable, str(FAKE_REPL)],
        "project_dir": project_dir,
        "max_repls": 2,
        "max_wait_s": 5.0,
        "timeout_s": 5.0,
        "header_timeout_s": 10.0,
        "memory_mib": 512,
        "max_output_bytes": 4 << 20,
    }
    values.update(overrides)
    return LeanSettings(**values)


def lean_file(body: str, header: str = HEADER) -> str:
    return f"{header}\n\n{body}"


def request(text: str) -> RunRequest:
    return RunRequest(program=Program.single(Language.LEAN4, text, filename="Main.lean"), profile=PROFILE)


def check_all(backend: LeanBackend, *texts: str) -> list[RunResult]:
    return list(backend.run_batch([request(t) for t in texts]))


@pytest.fixture
def make_backend(tmp_path: Path) -> Iterator[Any]:
    opened: list[LeanBackend] = []

    def make(**overrides: Any) -> LeanBackend:
        workers = overrides.pop("workers", None)
        backend = LeanBackend(fake_settings(tmp_path, **overrides), workers=workers)
        opened.append(backend)
        return backend

    yield make
    for backend in opened:
        backend.close()
