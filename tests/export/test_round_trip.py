"""The round trip `surge build` -> `surge export` -> `surge audit` of that export, each
subset under the profile its build ran (dr: surge-dr, bg: surge-bg, the rest default), reproduces every
label: the pipeline agrees with itself.

Real parts throughout: the build runs its templates and the bundled upstream samples in the bubblewrap
sandbox (ml, cl, bg, rl and fl's prover through the recorded LLM responses served by the local
chat-completions stand-in, auto-approved and recorded as such), the export writes SURGE's files, and the
audit reads them back as it reads the release and runs every program again. fl's proofs are checked, at
build and at audit, by the warm REPL pool talking to tests/lean/fake_repl.py (Lean's JSON protocol).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline.audit.rows import AuditRow
from pipeline.build.spread import time_bin
from pipeline.cli import main
from pipeline.dataset import read_rows
from pipeline.store import Store

SUBSETS = ("sc", "tc", "dr", "ml", "cl", "bg", "rl", "fl")
FAKE_REPL = Path(__file__).resolve().parents[1] / "lean" / "fake_repl.py"


@pytest.mark.slow
def test_build_export_audit_reproduces_every_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fl's checker: the stand-in REPL speaking Lean's JSON protocol (no Lean toolchain can exist here)
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", json.dumps([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setenv("SURGE_LEAN_PROJECT_DIR", str(tmp_path))
    store, out = tmp_path / "store", tmp_path / "out"
    build = ["build", *SUBSETS, "--n", "2", "--batch-size", "2", "--store", str(store)]
    assert main([*build, "--language", "python", "--language", "python3", "--auto-approve", "--json"]) == 0
    built = read_rows(Store(store))
    assert sorted({row.subset for row in built}) == sorted(SUBSETS)
    profile_of = {row.subset: row.run.profile for row in built if row.run}  # dr: surge-dr, bg: surge-bg
    assert len(profile_of) == len(SUBSETS)
    capsys.readouterr()

    assert main(["export", str(store), str(out), "--format", "surge", "--json"]) == 0
    exported = {s: json.loads((out / "dataset" / f"{s}.json").read_text()) for s in SUBSETS}
    assert sum(len(records) for records in exported.values()) == len(built)
    capsys.readouterr()

    for profile in sorted(set(profile_of.values())):
        subsets = [subset for subset, made_under in profile_of.items() if made_under == profile]
        audit = ["audit", str(out / "dataset"), "--profile", profile, "--store", str(tmp_path / "audit")]
        assert main([*audit, *(f"--subset={subset}" for subset in subsets), "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        for subset in subsets:
            counts = summary["by_subset"][subset]
            assert counts["labels"] == len(exported[subset]) > 0, subset
            assert counts["reproduced"] == counts["labels"], (subset, profile, counts["counts"])
            assert counts["mean_score"] == 1.0, (subset, counts)  # each label scores full marks on itself
        assert summary["unexplained"] == summary["not_run"] == summary["refused"] == 0

    # tc's time is a measurement, not part of the label: the audit's CPU time of each tc program must fall
    # in the bin the build recorded, or within a factor of 3 of the recorded median (a loaded machine
    # moves times across a bin edge; a wrong time, e.g. a 30-fold slower run, still fails).
    rows = Store(tmp_path / "audit").table("audit", AuditRow, "audit_id").records()
    timed = [row for row in rows if row.subset == "tc"]
    assert len(timed) == len(exported["tc"])
    for row in timed:
        features = exported["tc"][row.index]["custom_features"]
        median = features["cpu_s_median"]
        in_bin = time_bin(row.cpu_s) == features["time_bin"]
        assert in_bin or median / 3 <= row.cpu_s <= median * 3, (row.location, row.cpu_s, features)
