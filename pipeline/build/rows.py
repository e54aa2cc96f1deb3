"""DatasetRows from build items and their runs (provenance to the template and to the run)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.build.records import BuildItem
from pipeline.dataset_rows import DatasetRow, RunRef, UpstreamRef
from pipeline.records import RunResult, SourceItem

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports this construction method
    from pipeline.subsets.base import SubsetSpec

TEMPLATE_SOURCE = "surge-templates"
TEMPLATE_REPO = "surge-pipeline (pipeline/templates)"
RELEASE_REPO = "https://github.com/Imbernoulli/SURGE"


def upstream(spec: SubsetSpec, item: BuildItem, seed: int) -> UpstreamRef:
    library = item.template_origin == "library"
    folder = spec.template_folder
    # a library file, or a released template by its key in the release's file (a script's fid, a hash of a
    # dr program)
    path = f"{folder}/{item.template}" if library else f"{item.subset}.json:{item.template}"
    if library and not folder:  # a subset's own templates (pyver): its file says where, in the domain
        path = item.domain
    return UpstreamRef(
        source=TEMPLATE_SOURCE if library else "surge_release",
        repo=TEMPLATE_REPO if library else RELEASE_REPO,
        commit=item.template_digest,
        path=path,
        key=f"{item.subset}-s{seed}-{item.index:05d}",
        item_id=item.item_id,
        licence="project" if library else "none stated",
    )


def upstream_of(source: SourceItem) -> UpstreamRef:
    """An upstream item's provenance, as the store's items table has it."""
    return UpstreamRef(
        source=source.source,
        repo=source.upstream_repo,
        commit=source.upstream_commit,
        path=source.upstream_path,
        key=source.key,
        item_id=source.item_id,
        licence=source.licence,
    )


def run_ref(run: RunResult, repeats: int | None = None, distinct: int | None = None) -> RunRef:
    return RunRef(
        run_id=run.run_id,
        profile=run.provenance.profile,
        backend=run.provenance.backend,
        toolchain_versions=dict(run.provenance.toolchain_versions),
        repeats=repeats if repeats is not None else run.repeats,
        distinct_outputs=distinct if distinct is not None else run.distinct_outputs,
    )


def row(
    spec: SubsetSpec,
    item: BuildItem,
    seed: int,
    question: str,
    gt: str,
    features: dict[str, Any],
    run: RunRef,
    auto_approved: bool = False,
    recorded_llm: bool = False,
    domain: str | None = None,
) -> DatasetRow:
    return DatasetRow(
        subset=item.subset,
        category=spec.released_category,
        question=question,
        gt=gt,
        custom_features=features,
        upstream=upstream(spec, item, seed),
        run=run,
        label_origin="executed",
        construction=spec.construction.value,
        auto_approved=auto_approved,
        recorded_llm=recorded_llm,
        domain=domain,
    )
