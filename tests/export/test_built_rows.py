"""Rows the pipeline built (no released prompts): examples drawn from their pool, the card from the runs."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.cli import main
from pipeline.dataset import DatasetRow, RunRef, import_released, write_rows
from pipeline.export.card import render_card
from pipeline.export.prompts import example_of, load_template
from pipeline.store import Store
from sources import SAMPLES
from sources.surge_release import load_release


def built(row: DatasetRow) -> DatasetRow:
    run = RunRef(
        run_id=f"run-{row.row_id}", profile="surge-dr", backend="bwrap", toolchain_versions={"g++": "12.2"}
    )
    return row.model_copy(
        update={"released_prompts": {}, "label_origin": "executed", "run": run, "auto_approved": True}
    )


ROWS = [built(row) for row in import_released(load_release(SAMPLES / "surge-released")[0])]


def test_built_rows_get_examples_from_their_pool_never_themselves(tmp_path: Path) -> None:
    write_rows(Store(tmp_path / "store"), ROWS)
    out = tmp_path / "out"
    assert main(["export", str(tmp_path / "store"), str(out), "--seed", "3"]) == 0
    for subset in ("ml", "dr", "sc", "rl"):
        records = json.loads((out / "dataset" / f"{subset}.json").read_text())
        rows = [row for row in ROWS if row.subset == subset]
        for record, row in zip(records, rows, strict=True):
            own = example_of(row, load_template(subset)).input
            others = [example_of(other, load_template(subset)).input for other in rows if other is not row]
            shot = record["sys_3shot"]
            assert shot.startswith(record["sys_cot"])
            assert all(text in shot for text in others) and own not in shot.replace(record["question"], "")
    dr = json.loads((out / "dataset" / "dr.json").read_text())[0]
    assert "Following are 2 examples: " in dr["sys_3shot"]  # only two others in the pool (the count says so)
    assert "-std=c++11 -O1" in dr["sys_0shot"]
    again = tmp_path / "again"
    assert main(["export", str(tmp_path / "store"), str(again), "--seed", "3"]) == 0
    assert (again / "dataset" / "ml.json").read_bytes() == (out / "dataset" / "ml.json").read_bytes()


def test_card_counts_and_toolchains_come_from_the_rows() -> None:
    card = render_card(ROWS, faithful=False, seed=3)
    assert "| surge-dr | bwrap | g++ 12.2 | 24 |" not in card  # per subset, not pooled
    assert "| dr | surge-dr | bwrap | g++ 12.2 | 3 |" in card
    assert "| cl: Python | 3 |" in card and "| indexing error | 2 |" in card and "| tc: < 0.1 s | 3 |" in card
    assert "Approved without human review: 24 rows" in card
    # only the upstreams the rows came from: here the release, not the eight sources the registry knows
    assert "| https://github.com/Imbernoulli/SURGE | no licence stated upstream | 24 |" in card
    assert "CC-BY-NC-ND-4.0" not in card
    assert "corrected (the default" in card and "`-std=c++C++11 O1`" in card


def test_a_built_row_missing_a_prompt_fact_fails_with_the_fix(tmp_path: Path) -> None:
    sc = next(row for row in ROWS if row.subset == "sc").model_copy(update={"domain": None})
    write_rows(Store(tmp_path / "store"), [sc])
    code = main(["export", str(tmp_path / "store"), str(tmp_path / "out")])
    assert code != 0 and not (tmp_path / "out" / "dataset" / "sc.json").exists()


def test_the_provenance_table_names_the_licence_the_licence_table_names() -> None:
    # rows of our own templates record "project": both tables say the licence it stands for, MIT
    upstream = ROWS[0].upstream.model_copy(update={"licence": "project"})
    card = render_card(
        [row.model_copy(update={"upstream": upstream}) for row in ROWS], faithful=False, seed=3
    )
    provenance = card.split("## Provenance", 1)[1].split("## Labels", 1)[0]
    assert "| project |" not in card and provenance.count(" | MIT |") == 8  # one line per subset
    assert "| https://github.com/Imbernoulli/SURGE | MIT | 24 |" in card
