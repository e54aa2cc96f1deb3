"""DatasetRow: the released samples import into rows that round-trip through the store's dataset table."""

from __future__ import annotations

from pathlib import Path

from pipeline.dataset import DatasetRow, dataset_table, import_released, read_rows, write_rows
from pipeline.schema import arrow_schema
from pipeline.store import Store
from sources import SAMPLES
from sources.surge_release import SOURCE, load_release

RELEASED = SAMPLES / "surge-released"
GOLDEN_SCHEMA = Path(__file__).parent / "golden" / "dataset.schema.txt"


def test_released_samples_import_with_their_provenance() -> None:
    records, bad = load_release(RELEASED)
    assert not bad
    rows = import_released(records)
    assert len(rows) == 24 and len({row.row_id for row in rows}) == 24
    cl = next(row for row in rows if row.subset == "cl")
    assert cl.category == 1  # as released (eval/main.py remaps 1 + difficulty to cl)
    assert cl.upstream.path == "dataset/cl.json" and cl.upstream.commit == SOURCE.commit
    assert cl.upstream.key == "cl[0]" and cl.label_origin == "released" and cl.run is None
    assert cl.construction == "iterative_refactor"
    assert set(cl.released_prompts) == {"sys_0shot", "sys_cot", "sys_3shot"}
    dr = next(row for row in rows if row.subset == "dr")
    assert dr.custom_features["dependencies"] == [True, True, False]  # typed as released, not text


def test_rows_round_trip_through_the_store_and_resume(tmp_path: Path) -> None:
    rows = import_released(load_release(RELEASED)[0])
    store = Store(tmp_path)
    assert write_rows(store, rows) == 24
    assert write_rows(store, rows) == 0  # content-addressed: a rerun appends nothing
    back = read_rows(store)
    assert sorted(back, key=lambda r: r.row_id) == sorted(rows, key=lambda r: r.row_id)
    assert [row.upstream.key for row in read_rows(store, {"ml"})] == ["ml[0]", "ml[1]", "ml[2]"]
    assert dataset_table(store).count() == 24


def test_schema_is_stable() -> None:
    # A diff here means the dataset table's on-disk format changed: regenerate the golden deliberately.
    assert str(arrow_schema(DatasetRow)) + "\n" == GOLDEN_SCHEMA.read_text()
