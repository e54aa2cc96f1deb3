"""`surge build sc --n 3` plans and runs 3 items, not a whole default batch of 16."""

from __future__ import annotations

import json
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
