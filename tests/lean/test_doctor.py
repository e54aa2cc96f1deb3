"""`surge doctor` reports the fl checker: missing (with the fix), or present and whether the pins hold."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline.stages.doctor import LEAN_PINS, lean_status
from tests.lean.conftest import FAKE_REPL


def project(tmp_path: Path, toolchain: str, mathlib: str, repl: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text(mathlib + "\n")
    (tmp_path / "lean-toolchain").write_text(toolchain + "\n")
    manifest = {"version": 7, "packages": [{"name": "REPL", "rev": repl, "type": "git"}]}
    (tmp_path / "lake-manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def point_at(monkeypatch: pytest.MonkeyPatch, project_dir: Path) -> None:
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", json.dumps([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setenv("SURGE_LEAN_PROJECT_DIR", str(project_dir))


def test_goedel_environment_is_recognised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    point_at(
        monkeypatch, project(tmp_path, LEAN_PINS["lean"], LEAN_PINS["mathlib"], LEAN_PINS["REPL"] + "00")
    )
    status = lean_status()
    assert status["available"] and status["matches_pins"] and "hint" not in status


def test_another_environment_is_flagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    point_at(monkeypatch, project(tmp_path, "leanprover/lean4:v4.15.0", LEAN_PINS["mathlib"], "abc"))
    status = lean_status()
    assert status["available"] and not status["matches_pins"]
    assert "lean, REPL differ" in status["hint"]


def test_missing_lake_names_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", '["surge-no-such-lake", "env", "repl"]')
    status = lean_status()
    assert not status["available"] and "surge-no-such-lake" in status["hint"]
    assert "dockerfiles/lean4/Dockerfile" in status["hint"]


def test_run_ids_change_with_the_lean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.records import EnvironmentProfile, Language, Program, RunRequest
    from sandboxes.identity import identify

    proof = RunRequest(
        program=Program.single(Language.LEAN4, "theorem t : True := trivial"),
        profile=EnvironmentProfile(name="t"),
    )
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", '["surge-no-such-lake", "env", "repl"]')
    missing = identify([proof], "bwrap")[0].run_id
    point_at(monkeypatch, project(tmp_path / "a", LEAN_PINS["lean"], LEAN_PINS["mathlib"], LEAN_PINS["REPL"]))
    goedel = identify([proof], "bwrap")[0].run_id
    point_at(monkeypatch, project(tmp_path / "b", "leanprover/lean4:v4.15.0", LEAN_PINS["mathlib"], "abc"))
    other = identify([proof], "bwrap")[0].run_id
    assert len({missing, goedel, other}) == 3
