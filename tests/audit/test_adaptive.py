"""The adaptive plan: the classes of the exhaustive matrix with fewer runs; rows kept when killed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sandboxes
from pipeline import cli
from pipeline.audit.convert import convert_all, load_dataset
from pipeline.audit.feed import LabelFeed
from pipeline.audit.plan import first_profiles
from pipeline.audit.rows import AuditClass, AuditRow
from pipeline.audit.stage import run_audit
from pipeline.audit.summary import AuditOptions, Executed
from pipeline.records import RunRequest, Verdict
from pipeline.store import Store
from sandboxes.profiles import PROFILES
from tests.audit.fakes import FakeBackend, result_for


def _answer(request: RunRequest) -> tuple[str, Verdict]:
    """cl[1] reproduces only under the C locale; cl[2] nowhere (a wrong label); cl[0] everywhere."""
    source = request.program.files[0].content
    if "pathSum" in source:
        return ("[[5, 4, 11, 2], [5, 8, 4, 5]]\n" if request.profile.locale == "C" else "[]\n"), Verdict.OK
    return ("4\n" if "maximumSum" in source else "wrong\n"), Verdict.OK


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeBackend:
    backend = FakeBackend(_answer)
    monkeypatch.setattr(sandboxes, "open_backend", lambda *a, **k: backend)
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    return backend


def _audit(samples: Path, store: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    argv = ["audit", str(samples / "surge-released" / "cl.json"), "--profile", "all", *extra]
    assert cli.main([*argv, "--store", str(store), "--report", str(store / "r.html"), "--json"]) == 0
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)
    return summary


def _best(store: Path) -> dict[str, str]:
    rows = Store(store).table("audit", AuditRow, "audit_id").records()
    best: dict[str, AuditClass] = {}
    order = list(AuditClass)
    for row in rows:
        kept = best.get(row.location)
        if kept is None or order.index(row.audit_class) < order.index(kept):
            best[row.location] = row.audit_class
    return {location: klass.value for location, klass in best.items()}


def test_adaptive_gives_the_exhaustive_classes_with_fewer_runs(
    fake: FakeBackend, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matrix = _audit(samples, tmp_path / "exhaustive", capsys, "--exhaustive")
    matrix_runs = len(fake.ran)
    adaptive = _audit(samples, tmp_path / "adaptive", capsys)
    adaptive_runs = len(fake.ran) - matrix_runs
    assert _best(tmp_path / "adaptive") == _best(tmp_path / "exhaustive")
    assert sorted(_best(tmp_path / "adaptive").values()) == ["mismatch", *["reproduced_exact"] * 2]
    for key in ("labels", "reproduced", "unexplained"):
        assert adaptive[key] == matrix[key]
    # Every repeat is a request of its own (RunRequest.part): the matrix runs each label twice under each
    # profile; the adaptive plan runs 3 labels once under `default`, then the 2 that disagree twice under
    # each profile, but for the run under `default` it made already
    assert (matrix_runs, adaptive_runs) == (2 * 3 * len(PROFILES), 3 + 2 * (2 * len(PROFILES) - 1))
    assert adaptive["executions_planned"] < adaptive["executions_exhaustive"] == 2 * 3 * len(PROFILES)
    assert adaptive["executions_saved"] == adaptive["executions_exhaustive"] - adaptive["executions_planned"]


def test_the_first_profile_is_learned_from_the_stored_rows(
    fake: FakeBackend, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _audit(samples, tmp_path, capsys, "--exhaustive")
    assert first["first_profiles"] == {"cl": "default"}  # nothing stored: the first profile asked for
    again = _audit(samples, tmp_path, capsys)  # the C-locale profiles reproduced 2 labels, default 1
    assert again["first_profiles"]["cl"] in {n for n, p in PROFILES.items() if p.locale == "C"}


def test_fallback_order_prefers_the_profile_named_after_the_subset() -> None:
    profiles = list(PROFILES.values())
    chosen = first_profiles(["dr", "cl"], profiles, [])
    assert (chosen["dr"].name, chosen["cl"].name) == ("surge-dr", profiles[0].name)


class Killed(Exception):
    pass


def test_a_killed_audit_keeps_the_rows_it_finished(
    samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One run per batch, rows written as each lands; the engine dies at the third batch: the two labels
    finished are in the table."""
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    store = Store(tmp_path)
    calls: list[int] = []
    dataset = samples / "surge-released" / "ml.json"
    conversions, _, _ = convert_all(load_dataset(dataset)[0])
    label = {c.program.program_id: c.record.gt for c in conversions}  # every label reproduces

    def execute(feed: LabelFeed) -> Executed:
        written = 0
        while (batch := feed.take()) is not None:
            calls.append(len(batch))
            if len(calls) == 3:
                raise Killed
            for request in batch:
                store.runs.append([result_for(request, label[request.program.program_id])])
                store.runs.flush()
                feed.landed([request.run_id])
                written += 1
        return Executed(planned_runs=feed.planned, already_stored=feed.found_stored, written=written)

    options = AuditOptions(dataset=dataset, store=tmp_path, profile=["default"], batch_size=1)
    with pytest.raises(Killed):
        run_audit(options, execute, rows_every_s=0)
    table = Store(tmp_path).table("audit", AuditRow, "audit_id")
    assert table.count() == 2  # each finished label, reproduced or not, written as its run landed
    calls.clear()
    summary = run_audit(options, execute, rows_every_s=0)  # resumes: the rest runs, nothing written twice
    assert (summary.labels, summary.reproduced, summary.runs_reused, summary.runs_executed) == (3, 3, 2, 1)
    assert table.count() == 3
