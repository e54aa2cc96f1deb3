"""`surge export` into a folder that already holds something: refused unless --overwrite, which replaces an
old export whole (no stale subset or file survives) and never deletes what is not an export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from sources import SAMPLES

RELEASED = SAMPLES / "surge-released"
SUBSETS = ("ml", "cl", "rl", "sc", "tc", "bg", "dr", "fl")


def export(tmp_path: Path, out: Path, *flags: str) -> int:
    return main(["export", str(tmp_path / "store"), str(out), "--import-release", str(RELEASED), *flags])


def old_export(tmp_path: Path) -> Path:
    """Every subset, plus a pyver.json in an older shape (records without a label)."""
    out = tmp_path / "out"
    assert export(tmp_path, out) == 0
    (out / "dataset" / "pyver.json").write_text(json.dumps([{"question": "print(1)"}]))
    return out


def test_an_old_export_is_kept_unless_overwrite_replaces_it_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = old_export(tmp_path)
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    capsys.readouterr()
    assert export(tmp_path, out, "--subset", "ml") == 2
    err = capsys.readouterr().err
    assert f"{out} is not empty" in err and "--overwrite" in err
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before

    assert export(tmp_path, out, "--subset", "ml", "--overwrite") == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        "CARD.md",
        "dataset",
        "dataset/ml.json",
    ]
    assert not list(tmp_path.glob(".out.*"))  # no staging or old copy left beside it
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"subset": "ml", "index": 0, "prediction": "x"}) + "\n")
    assert main(["score", str(predictions), "--dataset", str(out / "dataset")]) == 0


def test_overwrite_replaces_an_hf_export_with_a_surge_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(tmp_path, out, "--format", "hf") == 0
    assert export(tmp_path, out, "--subset", "dr", "--overwrite") == 0
    assert sorted(p.name for p in out.iterdir()) == ["CARD.md", "dataset"]


def test_overwrite_refuses_a_folder_that_is_not_an_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "home"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert export(tmp_path, out, "--overwrite") == 2
    assert "holds what no export writes (notes.txt)" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "mine"


def test_overwrite_never_deletes_the_store_or_the_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert export(tmp_path, tmp_path / "out") == 0
    for out in (tmp_path, tmp_path / "store"):
        assert export(tmp_path, out, "--overwrite") == 2
        assert "--overwrite would delete" in capsys.readouterr().err
    assert (tmp_path / "store").is_dir() and (tmp_path / "out" / "CARD.md").is_file()


def test_a_file_as_the_target_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.write_text("a file")
    assert export(tmp_path, out) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_what_a_killed_export_left_is_cleared_by_the_next(tmp_path: Path) -> None:
    """kill -9 mid-write leaves a staging folder; the next export to that target removes it."""
    out = tmp_path / "out"
    staging = tmp_path / ".out.partial-dead1234"
    (staging / "dataset").mkdir(parents=True)
    (staging / "dataset" / "ml.json").write_text("[")  # half a file, as a kill leaves it
    assert export(tmp_path, out, "--subset", "ml") == 0
    assert not staging.exists()
    assert not list(tmp_path.glob(".out.*"))


def test_an_old_export_moved_aside_by_a_killed_overwrite_comes_back(tmp_path: Path) -> None:
    """A kill between the two renames of --overwrite leaves no target and the old export aside: it is put
    back before the next export decides whether the target is empty."""
    out = old_export(tmp_path)
    aside = tmp_path / ".out.old-dead1234"
    aside.mkdir()
    out.rename(aside / "out")
    assert export(tmp_path, out, "--subset", "ml") == 2  # the old export is back, so not empty
    assert (out / "dataset" / "pyver.json").exists() and not aside.exists()
