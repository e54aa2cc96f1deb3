"""Reading SourceItems to refactor: a JSONL file (one item per line) or a store folder with an items table."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from pipeline.errors import InputError
from pipeline.records import QuarantinedRecord, SourceItem


def check_items_path(path: Path) -> None:
    """Refuse what is neither a JSONL file of items nor a folder (a store `surge pull` wrote)."""
    if not path.exists():
        raise InputError(f"no such items file: {path}", hint="pass a JSONL of SourceItems or a store folder")


def load_items(path: Path) -> tuple[list[SourceItem], list[QuarantinedRecord]]:
    check_items_path(path)
    if path.is_dir():
        from pipeline.store import Store
        from sources.store import ITEMS_TABLE, items_table  # the table `surge pull` writes

        table = items_table(Store(path))
        if not table.part_files():
            raise InputError(
                f"{path} has no {ITEMS_TABLE} table", hint="run `surge pull` first, or pass a JSONL file"
            )
        return list(table.records()), []
    items: list[SourceItem] = []
    bad: list[QuarantinedRecord] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
            data.pop("item_id", None)  # computed: recomputed (and so verified) on load
            items.append(SourceItem.model_validate(data))
        except (ValueError, ValidationError, AttributeError) as error:
            bad.append(
                QuarantinedRecord(
                    stage="refactor-load",
                    source=path.name,
                    location=f"{path}:{number}",
                    reason=str(error).splitlines()[0],
                    raw=raw[:2000],
                )
            )
    return items, bad
