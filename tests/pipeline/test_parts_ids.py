"""A table's id index (pipeline.part_ids): up to date after a part is added, replaced under its name,
removed or replaced by a compaction, and bounded in size."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pipeline.part_ids as part_ids
from pipeline.records import RunResult
from pipeline.store import COMPACTION_JOURNAL, Table


def part_with(path: Path, ids: list[str]) -> Path:
    pq.write_table(pa.table({"run_id": ids}), path)
    return path


@pytest.fixture(autouse=True)
def no_index_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(part_ids, "_indexes", {})


def runs_in(folder: Path) -> Table[RunResult]:
    return Table(folder, RunResult, "run_id")


def test_new_parts_are_found_and_removed_ones_forgotten(tmp_path: Path) -> None:
    table = runs_in(tmp_path)
    first = part_with(tmp_path / "part-1.parquet", ["r1", "r2"])
    assert table.ids_among(["r1", "r3"]) == {"r1"}
    part_with(tmp_path / "part-2.parquet", ["r3"])
    assert table.ids_among(["r1", "r3"]) == {"r1", "r3"}
    assert table.parts_holding(["r2", "r3"]) == [first, tmp_path / "part-2.parquet"]
    first.unlink()
    assert table.ids_among(["r1", "r3"]) == {"r3"}
    assert table.existing_ids() == {"r3"}


def test_a_part_replaced_under_its_name_is_read_again(tmp_path: Path) -> None:
    table = runs_in(tmp_path)
    part = part_with(tmp_path / "part-a.parquet", ["r1", "r2"])
    assert table.existing_ids() == {"r1", "r2"}
    replacement = part_with(tmp_path / "part-a.new", ["r3"])
    replacement.replace(part)  # a new inode, as a rewritten part has
    assert table.existing_ids() == {"r3"}
    assert table.parts_holding("r1") == []


def test_an_id_in_two_parts_stays_until_both_are_gone(tmp_path: Path) -> None:
    table = runs_in(tmp_path)
    part_with(tmp_path / "part-1.parquet", ["r1"])
    part_with(tmp_path / "part-2.parquet", ["r1"])
    assert len(table.parts_holding("r1")) == 2
    (tmp_path / "part-1.parquet").unlink()
    assert table.parts_holding("r1") == [tmp_path / "part-2.parquet"]


def test_parts_a_finished_compaction_replaced_do_not_count(tmp_path: Path) -> None:
    table = runs_in(tmp_path)
    part_with(tmp_path / "part-old.parquet", ["r1"])
    assert table.ids_among(["r1"]) == {"r1"}
    part_with(tmp_path / "part-merged.parquet", ["r2"])
    (tmp_path / COMPACTION_JOURNAL).write_text(
        json.dumps({"merged": "part-merged.parquet", "replaces": ["part-old.parquet"]})
    )
    assert table.existing_ids() == {"r2"}


def test_past_the_bound_other_tables_are_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(part_ids, "CACHED_IDS_MAX", 5)
    tables = []
    for number in range(4):
        folder = tmp_path / str(number)
        folder.mkdir()
        part_with(folder / "part-1.parquet", [f"{number}-a", f"{number}-b"])
        tables.append(runs_in(folder))
        assert tables[-1].existing_ids() == {f"{number}-a", f"{number}-b"}
        assert sum(index.count for index in part_ids._indexes.values()) <= 5
    assert tables[0].ids_among(["0-a"]) == {"0-a"}  # read again when next asked
