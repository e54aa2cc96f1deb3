"""Items to refactor come from a JSONL file (bad lines kept with their reason) or a store's items table."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.records import SourceItem
from pipeline.refactor.items import load_items
from pipeline.store import Store
from tests.refactor.helpers import mceval_item


def test_jsonl_items_load_and_bad_lines_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(mceval_item(1).model_dump_json() + "\n{not json\n\n" + '{"source": "x"}\n')
    items, bad = load_items(path)
    assert [item.key for item in items] == ["Python/1"] and items[0].item_id == mceval_item(1).item_id
    assert [b.location for b in bad] == [f"{path}:2", f"{path}:4"]


def test_a_store_folder_reads_its_items_table(tmp_path: Path) -> None:
    table = Store(tmp_path).table("items", SourceItem, "item_id")
    table.append([mceval_item(1), mceval_item(2)])
    table.flush()
    items, bad = load_items(tmp_path)
    assert sorted(item.key for item in items) == ["Python/1", "Python/2"] and not bad


def test_missing_input_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_items(tmp_path / "nope.jsonl")
    assert "JSONL" in caught.value.hint
    with pytest.raises(InputError, match="no items table"):
        load_items(tmp_path)
