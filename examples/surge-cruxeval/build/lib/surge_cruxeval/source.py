"""The ``cruxeval`` source, for the ``surge.sources`` entry point: `surge pull cruxeval` reads upstream's
data/cruxeval.jsonl at the pinned commit with the subset's reader, a bad line quarantined with file:line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipeline.records import SourceItem
from sources.base import Loaded, Source
from sources.surge_release import ReleasedRecord
from surge_cruxeval.records import SUBSET, read_records


def read(checkout: Path, commit: str) -> Iterator[Loaded]:
    for path, relative in SOURCE.files(checkout):
        for loaded in read_records(path, relative):
            yield item(loaded, commit, relative) if isinstance(loaded, ReleasedRecord) else loaded


def item(record: ReleasedRecord, commit: str, relative: str) -> SourceItem:
    return SOURCE.item(
        key=str(record.custom_features["id"]),
        commit=commit,
        path=relative,
        locator=record.index,
        text=record.question,
        language=record.language,
        upstream_language=record.upstream_language,
        fields={"subset": SUBSET, "gt": record.gt, "custom_features": record.custom_features},
    )


SOURCE = Source(
    name=SUBSET,
    url="https://github.com/facebookresearch/cruxeval",
    commit="10d71b4ca99f2b6624bef9533ade5a0594ab7716",
    licence="MIT",
    kind="git",
    paths=("data/cruxeval.jsonl",),
    read=read,
    description="CRUXEval's 800 Python functions with an input and the repr of the output",
)
