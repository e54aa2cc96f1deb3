"""The benchmark as the store keeps it: one ``DatasetRow`` per item, in the store's ``dataset`` table.

Build writes rows (one per refactored, executed and approved item); export and score read them; the
released SURGE records become rows through ``import_released``, so the release and a rebuilt benchmark
go through the same export. A row holds what the release shows (subset, question, label ``gt``,
``custom_features`` exactly as the release keeps them) and what it does not: where the item came from
upstream, which run made the label under which profile and toolchains, how it was constructed, and the
review flags. Prompts are not part of a row: export renders them (pipeline/export/prompts.py); only an
imported released row keeps its released prompts verbatim, so a faithful re-export can reproduce them.

The row records live in pipeline/dataset_rows.py, below the subset specs (the build writes them); they
are named here too, as this module is where the stages above the registry read and write rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pipeline.dataset_rows import DATASET_TABLE, DatasetRow, LabelOrigin, RunRef, UpstreamRef, dataset_table
from pipeline.store import Store
from pipeline.subsets import REGISTRY, subset_spec
from sources.surge_release import SOURCE as RELEASE_SOURCE
from sources.surge_release import ReleasedRecord

RELEASED_COMMIT = RELEASE_SOURCE.commit or ""  # the pinned commit of the bundled samples
_DOMAIN = re.compile(r"You are an expert in (.+?) programming\.")


def released_row(record: ReleasedRecord, commit: str = RELEASED_COMMIT) -> DatasetRow:
    """A released SURGE record as a row: SURGE's label, the release as upstream, prompts kept verbatim."""
    spec = subset_spec(record.subset)
    return DatasetRow(
        subset=record.subset,
        category=record.category if record.category is not None else spec.released_category,
        question=record.question,
        gt=record.gt,
        custom_features=record.custom_features,
        domain=released_domain(record.prompts.get("sys_0shot", "")),
        upstream=UpstreamRef(
            source=RELEASE_SOURCE.name,
            repo=RELEASE_SOURCE.url,
            commit=commit,
            path=f"dataset/{record.subset}.json",  # upstream's path, wherever the copy was read
            key=f"{record.subset}[{record.index}]",
            item_id=record.record_id,
            licence=RELEASE_SOURCE.licence,
        ),
        label_origin="released",
        construction=spec.construction.value,
        released_prompts=dict(record.prompts),
    )


def released_domain(sys_0shot: str) -> str | None:
    """sc/tc prompts open with 'You are an expert in <domain> programming.'"""
    match = _DOMAIN.match(sys_0shot)
    return match.group(1) if match else None


def import_released(records: Iterable[ReleasedRecord], commit: str = RELEASED_COMMIT) -> list[DatasetRow]:
    return [released_row(record, commit) for record in records]


def write_rows(store: Store, rows: Iterable[DatasetRow]) -> int:
    """Append the rows the table does not hold yet (ids are content hashes); return how many were new."""
    table = dataset_table(store)
    known = table.existing_ids()
    new = [row for row in rows if row.row_id not in known]
    table.append(new)
    table.flush()
    return len(new)


def read_rows(store: Store, subsets: set[str] | None = None) -> list[DatasetRow]:
    """Rows in a stable order: by subset as the registry lists them, then by upstream key."""
    order = {name: i for i, name in enumerate(REGISTRY)}
    rows = [row for row in dataset_table(store).records() if subsets is None or row.subset in subsets]
    return sorted(rows, key=lambda row: (order.get(row.subset, len(order)), _natural(row.upstream.key)))


def _natural(key: str) -> tuple[Any, ...]:
    """'ml[10]' after 'ml[9]': digits compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", key))


__all__ = [
    "DATASET_TABLE",
    "DatasetRow",
    "LabelOrigin",
    "RunRef",
    "UpstreamRef",
    "dataset_table",
    "import_released",
    "read_rows",
    "released_domain",
    "released_row",
    "write_rows",
]
