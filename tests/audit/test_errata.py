"""`surge audit --errata DIR` end to end on a synthetic release with wrong labels, then `surge score`
with the released and the corrected labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sandboxes
from pipeline import cli
from tests.audit.fakes import FakeBackend
from tests.audit.test_audit_command import _answer

RIGHT = "[[5, 4, 11, 2], [5, 8, 4, 5]]"


def _release(samples: Path, folder: Path) -> Path:
    """cl as released, with cl[1]'s label made wrong; ml as released (the fake gets its C label wrong)."""
    folder.mkdir()
    cl = json.loads((samples / "surge-released" / "cl.json").read_text())
    assert cl[1]["gt"] == RIGHT
    cl[1]["gt"] = "[[5, 4, 11, 2]]"
    (folder / "cl.json").write_text(json.dumps(cl, indent=4, ensure_ascii=True), encoding="ascii")
    (folder / "ml.json").write_bytes((samples / "surge-released" / "ml.json").read_bytes())
    return folder


def test_errata_corrected_dataset_and_score_moves(
    monkeypatch: pytest.MonkeyPatch, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sandboxes, "open_backend", lambda *a, **k: FakeBackend(_answer))
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    release = _release(samples, tmp_path / "release")
    errata = tmp_path / "errata"
    argv = ["audit", str(release), "--store", str(tmp_path / "s"), "--errata", str(errata), "--json"]
    assert cli.main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["errata"] == str(errata)

    entries = [json.loads(line) for line in (errata / "errata.jsonl").read_text().splitlines()]
    wrong = {(e["subset"], e["index"]): e for e in entries}
    assert ("cl", 1) in wrong and all(e["subset"] == "ml" for e in entries if e["index"] != 1)
    cl1 = wrong["cl", 1]
    assert cl1["audit_class"] == "mismatch" and cl1["corrected"] and cl1["our_label"] == RIGHT + "\n"
    assert cl1["environment"].startswith("default (run ") and cl1["item_id"] and cl1["evidence"]

    corrected = json.loads((errata / "dataset" / "cl.json").read_text())
    assert corrected[1]["gt"] == RIGHT  # ends as the released cl labels end: no newline
    assert corrected[1]["corrections"]["released"] == "[[5, 4, 11, 2]]"
    # the same layout as released: undo the correction and the file is the released one, byte for byte
    corrected[1]["gt"] = corrected[1].pop("corrections")["released"]
    assert json.dumps(corrected, indent=4, ensure_ascii=True).encode() == (release / "cl.json").read_bytes()
    note = (errata / "cl.md").read_text()
    assert note.startswith("# Errata of cl") and "cl.json[1] | mismatch | yes | " in note
    # every audited label has a status; errata.jsonl holds the ones not kept
    items = [json.loads(line) for line in (errata / "items.jsonl").read_text().splitlines()]
    statuses = {(e["subset"], e["index"]): e["status"] for e in items}
    assert statuses["cl", 1] == "corrected" and statuses["cl", 0] == "kept"
    assert {e["status"] for e in entries} <= {"corrected", "flagged"} and len(items) > len(entries)

    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"subset": "cl", "index": 1, "prediction": RIGHT}) + "\n")
    argv = ["score", str(predictions), "--dataset", str(release), "--dataset", str(errata / "dataset")]
    assert cli.main([*argv, "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    released, fixed = (scored["datasets"][str(p)]["cl"] for p in (release, errata / "dataset"))
    assert released["mean"] < fixed["mean"] == 1.0
