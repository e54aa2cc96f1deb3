"""open_backend sends lean4 requests to their language's checker and keeps the batch's order."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline.records import Language, Program, RunRequest, Verdict
from sandboxes import open_backend
from sandboxes.lean.backend import close_shared_pools
from tests.lean.conftest import FAKE_REPL, PROFILE, lean_file, request


def test_mixed_batch_keeps_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", json.dumps([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setenv("SURGE_LEAN_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("SURGE_LEAN_MAX_REPLS", "2")
    python = RunRequest(program=Program.single(Language.PYTHON, "print('hi')"), profile=PROFILE)
    proof = request(lean_file("theorem t : True := by\n  trivial\n-- fake: error 3 2 boom"))
    try:
        with open_backend("bwrap", unsafe=True) as backend:
            results = list(backend.run_batch([proof, python, proof]))
        with open_backend("bwrap", unsafe=True) as again:  # the next batch finds the REPLs warm
            (later,) = list(again.run_batch([proof]))
    finally:
        close_shared_pools()
    assert [r.language for r in results] == [Language.LEAN4, Language.PYTHON, Language.LEAN4]
    assert results[1].label.strip() == "hi" and results[1].provenance.backend != "lean-repl"
    for lean in (results[0], results[2]):
        assert lean.verdict is Verdict.COMPILE_ERROR and lean.provenance.backend == "lean-repl"
        assert json.loads(lean.label)["errors"][0]["pos"] == {"line": 9, "column": 2}
    assert json.loads(later.compile.detail if later.compile else "{}")["reused_repl"]


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandboxes.lean.settings import LeanSettings

    monkeypatch.setenv("SURGE_LEAN_TIMEOUT_S", "12.5")
    monkeypatch.setenv("SURGE_LEAN_MAX_USES", "7")
    settings = LeanSettings()
    assert (settings.timeout_s, settings.max_uses) == (12.5, 7)
