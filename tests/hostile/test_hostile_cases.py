"""The hostile-input suite: every case in ``cases/`` through the real ``surge`` command (see README.md)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from tests.surge_process import run_surge, surge_env, without_progress

CASES = Path(__file__).parent / "cases"
BUG_EXIT_CODE = 70
KNOWN_KEYS = {"why", "argv", "files", "links", "before", "exit_code", "stderr", "stdout", "quarantine"}


def case_files() -> list[Path]:
    return sorted(CASES.rglob("*.yaml"))


def load_case(path: Path) -> dict[str, Any]:
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    unknown = set(case) - KNOWN_KEYS
    assert not unknown, f"{path}: unknown keys {sorted(unknown)} (README.md lists the format)"
    assert {"why", "argv", "exit_code"} <= set(case), f"{path}: needs why, argv and exit_code"
    return case


def fill(argv: list[Any], places: dict[str, str]) -> list[str]:
    return [str(arg).format(**places) for arg in argv]


def surge(argv: list[str], cwd: Path, prefect: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_surge(argv, cwd, surge_env(**prefect))


def quarantine_reasons(store: Path) -> list[str]:
    parts = sorted((store / "quarantine").glob("*.parquet"))
    return [
        reason for part in parts for reason in pq.read_table(part, columns=["reason"]).column(0).to_pylist()
    ]


@pytest.fixture(scope="module")
def prefect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The cases' Prefect settings: a home of their own, and one API for all of them, as a user's own
    server (PREFECT_API_URL). What a case tests is how a command takes its input; each flow command
    starting an API of its own cost ~7 CPU-s, some 30 times over. A command's own API is tested in
    tests/flows."""
    from flows.runtime import LocalApi
    from flows.settings import choose_settings

    api = LocalApi(choose_settings())
    try:
        api.wait_ready(timeout_s=120)
        yield {"PREFECT_HOME": str(tmp_path_factory.mktemp("hostile-prefect")), "PREFECT_API_URL": api.url}
    finally:
        api.stop()


def test_the_suite_has_cases() -> None:
    assert case_files(), f"no cases under {CASES}"


@pytest.mark.parametrize("path", case_files(), ids=lambda p: str(p.relative_to(CASES).with_suffix("")))
def test_hostile_case(path: Path, tmp_path: Path, prefect: dict[str, str]) -> None:
    case = load_case(path)
    case_dir, work_dir = tmp_path / "case", tmp_path / "work"
    case_dir.mkdir()
    work_dir.mkdir()
    for name, text in (case.get("files") or {}).items():
        target = case_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    places = {"case": str(case_dir), "store": str(tmp_path / "store"), "tmp": str(work_dir)}
    for name, pointing_at in (case.get("links") or {}).items():
        (case_dir / name).symlink_to(str(pointing_at).format(**places))
    for before in case.get("before") or []:
        done = surge(fill(before, places), work_dir, prefect)
        assert done.returncode == 0, f"setup command {before} failed:\n{done.stderr}"
    result = surge(fill(case["argv"], places), work_dir, prefect)
    shown = f"why: {case['why']}\nexit {result.returncode}\nout:\n{result.stdout}\nerr:\n{result.stderr}"
    assert "Traceback" not in result.stderr, shown
    assert result.returncode != BUG_EXIT_CODE, shown
    assert result.returncode == case["exit_code"], shown
    # A case's stderr is the command's own lines: the progress bar's plain line (a pipe's) is left out.
    own_lines = "".join(f"{line}\n" for line in without_progress(result.stderr))
    said = {"stderr": own_lines, "stdout": result.stdout}
    for stream in ("stderr", "stdout"):
        if case.get(stream):
            assert re.search(case[stream], said[stream]), f"{stream} !~ {case[stream]!r}\n{shown}"
    if case.get("quarantine"):
        reasons = quarantine_reasons(Path(places["store"]))
        assert any(re.search(case["quarantine"], r) for r in reasons), f"quarantine: {reasons}\n{shown}"
