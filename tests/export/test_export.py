"""Round trips: the released samples re-exported (faithful: byte for byte), and the HF export loaded
offline with `datasets` giving back the SURGE-format rows.

(b) build -> export -> audit waits for `surge build` (left to the build): once build
writes DatasetRows, export them with `--format surge` and `surge audit OUT/dataset` under the same profile
must reproduce every label.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.export.hf import decode_row, feature_types
from sources import SAMPLES

RELEASED = SAMPLES / "surge-released"
SUBSETS = ("ml", "cl", "rl", "sc", "tc", "bg", "dr", "fl")
DEFECT_PROMPTS = {"bg", "dr", "fl", "rl"}


def export(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / ("out" + "".join(extra).replace("-", "_"))
    code = main(["export", str(tmp_path / "store"), str(out), "--import-release", str(RELEASED), *extra])
    assert code == 0
    return out


def test_faithful_re_export_of_the_release_is_byte_identical(tmp_path: Path) -> None:
    out = export(tmp_path, "--faithful")
    for subset in SUBSETS:
        assert (out / "dataset" / f"{subset}.json").read_bytes() == (RELEASED / f"{subset}.json").read_bytes()
    assert "-std=c++C++11 O1" in (out / "CARD.md").read_text()  # the card lists each defect


def test_default_export_corrects_only_the_defective_prompts(tmp_path: Path) -> None:
    out = export(tmp_path)
    for subset in SUBSETS:
        ours = json.loads((out / "dataset" / f"{subset}.json").read_text())
        released = json.loads((RELEASED / f"{subset}.json").read_text())
        for mine, theirs in zip(ours, released, strict=True):
            assert list(mine) == list(theirs)  # the same keys in the same order, category spelling too
            assert {k: v for k, v in mine.items() if not k.startswith("sys_")} == {
                k: v for k, v in theirs.items() if not k.startswith("sys_")
            }
            same_prompts = all(mine[k] == theirs[k] for k in ("sys_0shot", "sys_cot", "sys_3shot"))
            assert same_prompts == (subset not in DEFECT_PROMPTS)
    dr = json.loads((out / "dataset" / "dr.json").read_text())[0]
    assert "clang++ -std=c++11 -O1 test.cpp" in dr["sys_0shot"]


def test_hf_export_loads_offline_and_equals_the_surge_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    datasets = pytest.importorskip("datasets", reason="needs the `datasets` package (pip install -e .[dev])")
    surge_out = export(tmp_path)
    hf_out = export(tmp_path, "--format", "hf")
    assert sorted(p.name for p in (hf_out / "ml").iterdir()) == ["test-00000-of-00001.parquet"]
    for subset in SUBSETS:
        records = json.loads((surge_out / "dataset" / f"{subset}.json").read_text())
        loaded = datasets.load_dataset(str(hf_out), subset, split="test")
        types = feature_types(subset, records)
        assert [decode_row(row, types) for row in loaded] == records
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    bg_type = datasets.load_dataset(str(hf_out), "bg", split="test").features["custom_features"]["type"]
    assert bg_type.dtype == "string"  # a list in some rows, the string "None" in others: JSON text


def test_a_released_prompt_the_template_does_not_fit_is_kept_verbatim(tmp_path: Path) -> None:
    records = json.loads((RELEASED / "rl.json").read_text())
    plot = {**records[0], "custom_features": {"repo": "PlotNeuralNet"}, "sys_0shot": "Given the code...\n"}
    release = tmp_path / "release"
    release.mkdir()
    (release / "rl.json").write_text(json.dumps([plot]))
    out = tmp_path / "out"
    assert (
        main(["export", str(tmp_path / "store"), str(out), "--import-release", str(release), "--json"]) == 0
    )
    assert json.loads((out / "dataset" / "rl.json").read_text()) == [plot]
