"""`surge build sc --n 3` plans and runs 3 items, not a whole default batch of 16."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pipeline.cli import main


def test_a_small_build_plans_only_the_items_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    code = main(["build", "sc", "--n", "3", "--store", str(tmp_path / "store"), "--json"])
    built = json.loads(capsys.readouterr().out)["built"]["sc"]
    assert code == 0 and built["rows"] == 3
    assert built["planned_items"] == 3 and built["items"] == 3


def test_build_refuses_a_second_profile_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["build", "sc", "--n", "3", "--store", str(tmp_path / "store"), "--profile", "default"]
    code = main([*argv, "--profile", "surge-bg"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "takes one --profile, not 2" in err
    assert not (tmp_path / "store").exists()  # refused before any work


def test_recorded_responses_are_said_once_and_more_items_planned_are_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, require_bwrap: None
) -> None:
    """ml with no endpoint: one line says the recorded responses answer and how to set an endpoint; the
    line of the subset says why it planned more items than rows."""
    for name in ("SURGE_LLM_BASE_URL", "SURGE_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    code = main(["build", "ml", "--n", "1", "--auto-approve", "--store", str(tmp_path / "store")])
    out = capsys.readouterr().out
    assert code == 0, out
    notices = [line for line in out.splitlines() if "recorded responses in pipeline/build/recorded/" in line]
    assert len(notices) == 1 and notices[0].startswith("ml: no LLM endpoint is set")
    assert out.count("SURGE_LLM_BASE_URL") == 1  # the fix, once
    assert re.search(r"\(planned 16 for 1 rows, in whole batches of 16 items", out)
