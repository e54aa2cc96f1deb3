"""`surge audit` end to end with a fake backend: conversion, the flow, the tables, resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sandboxes
from pipeline import cli
from pipeline.audit.rows import AuditRow
from pipeline.records import Language, RunRequest, Verdict
from pipeline.store import Store
from tests.audit.fakes import FakeBackend
from tests.audit.test_report import expected_headline, headline_of


def _answer(request: RunRequest) -> tuple[str, Verdict]:
    """cl: the right answers; ml: the C one wrong; Python reproduces everything else; Lean is missing."""
    source = request.program.files[0].content
    if request.program.language is Language.LEAN4:
        return "", Verdict.TOOLCHAIN_MISSING
    if "maximumSum" in source:
        return "4\n", Verdict.OK
    if "pathSum" in source:
        return "[[5, 4, 11, 2], [5, 8, 4, 5]]\n", Verdict.OK
    if "twoSum" in source:
        return "[0, 1]\n", Verdict.OK
    return "wrong\n", Verdict.OK


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeBackend:
    backend = FakeBackend(_answer)
    monkeypatch.setattr(sandboxes, "open_backend", lambda *a, **k: backend)
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    return backend


def test_audit_scores_classifies_and_resumes(
    fake: FakeBackend, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released = samples / "surge-released"
    store = tmp_path / "store"
    argv = [
        "audit",
        str(released),
        "--subset",
        "cl",
        "--subset",
        "fl",
        "--subset",
        "sc",
        "--limit",
        "2",
        "--store",
        str(store),
        "--report",
        str(tmp_path / "r.html"),
        "--json",
    ]
    assert cli.main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["by_subset"]["cl"]["counts"] == {"reproduced_exact": 2}
    assert summary["by_subset"]["cl"]["mean_score"] == 1.0
    assert summary["by_subset"]["fl"]["counts"] == {"not_run": 2}
    assert summary["by_subset"]["fl"]["mean_score"] is None
    assert summary["by_subset"]["sc"]["counts"] == {"mismatch": 2}
    assert summary["leaks"] == ["surge-released/cl.json[0]"]
    assert (summary["by_subset"]["fl"]["labels"], summary["by_subset"]["fl"]["not_run"]) == (2, 2)
    assert (summary["labels"], summary["reproduced"], summary["unexplained"]) == (6, 2, 2)
    # adaptive: each label once; only sc's two mismatches repeated (fl's missing Lean is no disagreement),
    # their first run counted as the first of their 2 repeats
    assert len(fake.ran) == 8 and summary["runs_executed"] == 8
    assert (summary["executions_planned"], summary["executions_exhaustive"]) == (8, 12)
    assert "_text" not in summary

    rows = list(Store(store).table("audit", AuditRow, "audit_id").records())
    assert len(rows) == 6
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    # the page prints the figures --json printed, each label at its best profile
    figures = headline_of(page)
    assert figures["all subsets"] == expected_headline(summary)
    for subset, expected in summary["by_subset"].items():
        assert figures[subset] == expected_headline(expected)
    # and says what was audited, by what, with which toolchain (from the runs' provenance)
    assert f"{released.resolve()} (" in page and "<b>default</b>: backend fake" in page

    # Rerun: every run id is in the store, nothing executes again and no row is written twice.
    assert cli.main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert len(fake.ran) == 8 and again["runs_reused"] == 8
    assert Store(store).table("audit", AuditRow, "audit_id").count() == 6


def test_a_timeout_is_not_served_under_higher_limits(
    monkeypatch: pytest.MonkeyPatch, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backend = FakeBackend(lambda request: ("", Verdict.CPU_TIME_LIMIT))
    monkeypatch.setattr(sandboxes, "open_backend", lambda *a, **k: backend)
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    argv = ["audit", str(samples / "surge-released" / "tc.json"), "--limit", "1", "--store", str(tmp_path)]
    argv += ["--report", str(tmp_path / "r.html"), "--json"]
    assert cli.main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["by_subset"]["tc"]["explained"] == {"timeout": 1}
    assert (
        "SURGE recorded 0 s"
        in next(iter(Store(tmp_path).table("audit", AuditRow, "audit_id").records())).reason
    )
    backend.answer = lambda request: ("13.23\n", Verdict.OK)
    assert cli.main([*argv, "--cpu-s", "20"]) == 0  # the run id hashes the limits: a new run
    again = json.loads(capsys.readouterr().out)
    # the first audit ran the label once, then repeated the timeout; the new limits make a new run
    assert len(backend.ran) == 3 and again["runs_reused"] == 0
    assert again["by_subset"]["tc"]["reproduced"] == 1  # the new result, not the stored timeout
