"""The benchmark as the store keeps it: one ``DatasetRow`` per item, in the store's ``dataset`` table.

Build writes rows (one per refactored, executed and approved item); export and score read them; the
released SURGE records become rows through ``import_released``, so the release and a rebuilt benchmark
go through the same export. A row holds what the release shows (subset, question, label ``gt``,
``custom_features`` exactly as the release keeps them) and what it does not: where the item came from
upstream, which run made the label under which profile and toolchains, how it was constructed, and the
review flags. Prompts are not part of a row: export renders them (pipeline/export/prompts.py); only an
imported released row keeps its released prompts verbatim, so a faithful re-export can reproduce them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field, computed_field

from pipeline.records import Frozen, content_id
from pipeline.store import Store, Table
from pipeline.subsets import REGISTRY, subset_spec
from sources.surge_release import SOURCE as RELEASE_SOURCE
from sources.surge_release import ReleasedRecord

DATASET_TABLE = "dataset"
RELEASED_COMMIT = RELEASE_SOURCE.commit or ""  # the pinned commit of the bundled samples
_DOMAIN = re.compile(r"You are an expert in (.+?) programming\.")
LabelOrigin = Literal["released", "executed"]


class UpstreamRef(Frozen):
    """Where the item came from: enough to find it again at the pinned commit."""

    source: str = Field(description="registry name of the source, e.g. 'mceval' or 'surge_release'")
    repo: str = Field(description="e.g. 'https://github.com/MCEVAL/McEval'")
    commit: str = Field(description="the pinned upstream commit the item was read at")
    path: str = Field(description="file inside the upstream repository")
    key: str = Field(description="the item's id within its source, e.g. 'ml[3]' or a task id")
    item_id: str = Field(default="", description="the SourceItem.item_id in the store's items table, if any")
    licence: str = Field(default="", description="the upstream's licence, carried into the dataset card")


class RunRef(Frozen):
    """The run that made the label (absent for a label taken from the release)."""

    run_id: str = Field(description="RunResult.run_id in the store's runs table")
    profile: str = Field(description="the EnvironmentProfile name, e.g. 'surge-dr'")
    backend: str = Field(description="the registered backend that ran it (sandboxes/backends/registry.py)")
    toolchain_versions: dict[str, str] = Field(default_factory=dict, description="tool -> version string")
    repeats: int = Field(default=1, description="how many times the run phase was executed")
    distinct_outputs: int = Field(
        default=1, description=">1: the repeats disagreed on the label or on how the run ended"
    )


class DatasetRow(Frozen):
    """One benchmark item, ready to export as a SURGE record or a Hugging Face row."""

    subset: str = Field(description="ml, cl, rl, sc, tc, bg, dr or fl")
    category: int = Field(description="the category number to write (cl writes 1, as the release does)")
    question: str = Field(description="what the model reads: code, code+command blocks, or a repository")
    gt: str = Field(description="the label; for fl the JSON text {errors, pass, complete}")
    custom_features: dict[str, Any] = Field(
        default_factory=dict, description="the release's per-subset keys, values as the release types them"
    )
    domain: str | None = Field(
        default=None, description="sc, tc: the script's domain the prompt names ('pde', 'tsp', ...)"
    )
    upstream: UpstreamRef
    run: RunRef | None = Field(default=None, description="the run behind an executed label")
    label_origin: LabelOrigin = Field(description="'released' (SURGE's label) or 'executed' (ours)")
    construction: str = Field(description="the subset's ConstructionMethod value")
    auto_approved: bool = Field(default=False, description="approved without a human review")
    recorded_llm: bool = Field(default=False, description="the refactor came from a recorded LLM reply")
    released_prompts: dict[str, str] = Field(
        default_factory=dict,
        description="sys_0shot/sys_cot/sys_3shot verbatim, only on rows imported from the release",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def row_id(self) -> str:
        run_id = self.run.run_id if self.run else None
        return content_id(
            "dataset-row",
            self.subset,
            self.category,
            self.question,
            self.gt,
            self.custom_features,
            self.domain,
            self.upstream,
            run_id,
            self.label_origin,
            self.construction,
            self.auto_approved,
            self.recorded_llm,
            self.released_prompts,
        )

    @property
    def language(self) -> str | None:
        value = self.custom_features.get("language")
        return value if isinstance(value, str) else None


def dataset_table(store: Store) -> Table[DatasetRow]:
    return store.table(DATASET_TABLE, DatasetRow, "row_id")


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
