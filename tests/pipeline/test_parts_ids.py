"""The per-process cache of the ids a part holds: right after a part is replaced, and bounded in size."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pipeline.parts as parts


def part_with(path: Path, ids: list[str]) -> Path:
    pq.write_table(pa.table({"run_id": ids}), path)
    return path


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parts, "_ids_of_part", {})
    monkeypatch.setattr(parts, "_cached_ids_count", 0)


def test_a_replaced_part_is_read_again(tmp_path: Path) -> None:
    part = part_with(tmp_path / "a.parquet", ["r1", "r2"])
    assert parts.ids_in_part(part, "run_id") == {"r1", "r2"}
    replacement = part_with(tmp_path / "a.new", ["r3"])
    replacement.replace(part)  # a new inode, as a rewritten part has
    assert parts.ids_in_part(part, "run_id") == {"r3"}
    assert parts._cached_ids_count == 1


def test_the_cache_starts_over_past_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parts, "CACHED_IDS_MAX", 5)
    for number in range(4):
        part = part_with(tmp_path / f"{number}.parquet", [f"{number}-a", f"{number}-b"])
        assert parts.ids_in_part(part, "run_id") == {f"{number}-a", f"{number}-b"}
        held = sum(len(ids) for _, ids in parts._ids_of_part.values())
        assert held == parts._cached_ids_count <= 5
