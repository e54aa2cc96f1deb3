"""fl through the audit: the Lean checker (sandboxes/lean) behind the stand-in REPL that speaks the real
protocol (tests/lean/fake_repl.py), so the fl label (the checker's JSON) is produced and classified here.
On a machine with the pinned Lean image the same path runs `lake env repl` instead."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline.audit.convert import convert_all, load_dataset
from pipeline.audit.plan import plan_requests
from pipeline.audit.rows import AuditClass, Conversion
from pipeline.audit.verdicts import audit_rows, by_answer
from pipeline.records import EnvironmentProfile, Limits

FAKE_REPL = Path(__file__).resolve().parents[1] / "lean" / "fake_repl.py"


@pytest.fixture
def stand_in_lean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", json.dumps([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setenv("SURGE_LEAN_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("SURGE_LEAN_MAX_REPLS", "1")


def _fl(samples: Path) -> list[Conversion]:
    records, _ = load_dataset(samples / "surge-released" / "fl.json")
    conversions, _, _ = convert_all(records)
    return conversions


def test_fl_labels_are_checked_and_classified(stand_in_lean: None, samples: Path) -> None:
    from sandboxes.backends.sandbox import Sandbox

    passing = _fl(samples)[1]  # released label: {"errors": [], "pass": true, "complete": true}
    failing = passing.model_copy(
        update={
            "record": passing.record.model_copy(
                update={"gt": '{"errors": [], "pass": false, "complete": false}'}
            )
        }
    )
    profile = EnvironmentProfile(name="default")
    requests = plan_requests([passing], [profile], Limits(), 1)

    class NoOther:  # every request here is lean4: its checker takes them, never the batch's backend
        def run_batch(self, requests):  # noqa: ANN001, ANN201
            raise AssertionError("a proof reached the batch's backend")

    with Sandbox(NoOther()) as backend:
        results = by_answer(backend.run_batch(requests))
    # audited apart: together they would be the same program with two labels (a conflicting duplicate)
    (good,) = audit_rows([passing], [profile], results)
    (bad,) = audit_rows([failing], [profile], results)
    assert good.audit_class in (AuditClass.EXACT, AuditClass.NORMALISED), (good.observed, good.reason)
    assert json.loads(good.observed)["pass"] is True and good.metric == "fl_score"
    assert bad.audit_class is AuditClass.MISMATCH
