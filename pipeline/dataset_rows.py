"""The benchmark's rows as the store keeps them: one ``DatasetRow`` per item, in the ``dataset`` table.

The records only, below the subset specs: the build's construction methods (which the specs hold) write
rows, so this module knows no subset. Reading the rows in the registry's order and importing the
release's records as rows, which ask the specs, are pipeline/dataset.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, computed_field

from pipeline.records import Frozen, content_id

if (
    TYPE_CHECKING
):  # annotations only: Arrow (pipeline.store) loads when a build runs, not when the registry does
    from pipeline.store import Store, Table

DATASET_TABLE = "dataset"
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
