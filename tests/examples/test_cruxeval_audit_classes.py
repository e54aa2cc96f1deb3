"""The audit classes a CRUXEval label by CRUXEval's own metric (``literal_equal``, an equality): a label
written `"a"` where our run prints `'a'` is the same literal, so it is reproduced, and the reason and the
evidence say that only the text differs; a label of another value is still a mismatch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.audit.convert import convert
from pipeline.audit.rows import AuditClass, AuditRow, Conversion
from pipeline.audit.verdicts import audit_row
from pipeline.cli import main
from pipeline.records import EnvironmentProfile, RunRequest
from pipeline.store import Store
from pipeline.subsets import load_release
from tests.audit.fakes import result_for
from tests.examples.cruxeval_files import write_lines

pytestmark = pytest.mark.usefixtures("cruxeval")

NOTE = "equal under cruxeval's metric (literal_equal), text differs"
IDENTITY = {"code": "def f(text):\n    return text", "input": "'a'", "id": "sample_a"}
LABELS = {"double quotes": '"a"', "another value": '"b"', "as printed": "'a'"}


def conversion(tmp_path: Path, gt: str) -> Conversion:
    path = write_lines(tmp_path / "cruxeval.jsonl", [{**IDENTITY, "output": gt}])
    (record,), _ = load_release(path)
    converted = convert(record)
    assert isinstance(converted, Conversion), converted
    return converted


def row_for(tmp_path: Path, gt: str, ours: str = "'a'\n") -> AuditRow:
    converted, profile = conversion(tmp_path, gt), EnvironmentProfile(name="fake")
    request = RunRequest(program=converted.program, profile=profile)
    return audit_row(converted, profile, result_for(request, ours))


def test_a_label_in_other_quotes_is_reproduced_and_says_the_text_differs(tmp_path: Path) -> None:
    row = row_for(tmp_path, LABELS["double quotes"])
    assert (row.audit_class, row.score, row.reason) == (AuditClass.NORMALISED, 1.0, NOTE)
    first, *diff = row.evidence.splitlines()
    assert first == NOTE and '-"a"' in diff and "+'a'" in diff  # the diff still shows both texts


def test_a_label_of_another_value_is_still_a_mismatch(tmp_path: Path) -> None:
    row = row_for(tmp_path, LABELS["another value"])
    assert (row.audit_class, row.score, row.reason) == (AuditClass.MISMATCH, 0.0, "")
    assert "equal under" not in row.evidence


def test_a_label_as_printed_is_exact_without_a_note(tmp_path: Path) -> None:
    row = row_for(tmp_path, LABELS["as printed"])
    assert (row.audit_class, row.reason, row.evidence) == (AuditClass.EXACT, "", "")


@pytest.mark.slow
@pytest.mark.usefixtures("require_bwrap")
def test_surge_audit_runs_them_and_classes_them_by_the_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one program each (another input): labels of one program that disagree are a conflicting duplicate
    calls = {"'a'": '"a"', "'b'": '"c"', "'d'": "'d'"}
    lines = [
        {**IDENTITY, "id": f"sample_{i}", "input": call, "output": gt}
        for i, (call, gt) in enumerate(calls.items())
    ]
    data = write_lines(tmp_path / "cruxeval.jsonl", lines)
    store = tmp_path / "store"
    argv = ["audit", str(data), "--subset", "cruxeval", "--store", str(store), "--repeats", "1", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["classes"] == {"reproduced_exact": 1, "reproduced_normalised": 1, "mismatch": 1}
    rows = {row.index: row for row in Store(store).table("audit", AuditRow, "audit_id").records()}
    assert (rows[0].audit_class, rows[0].reason) == (AuditClass.NORMALISED, NOTE)
    assert rows[1].audit_class is AuditClass.MISMATCH and rows[2].audit_class is AuditClass.EXACT
