"""The export stage: the store's dataset table as SURGE-format files or a Hugging Face dataset, with its
card, optionally pushed to the Hub."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from pipeline.dataset import import_released, read_rows, write_rows
from pipeline.errors import ConfigurationError, InputError
from pipeline.export.card import render_card
from pipeline.export.folder import check_target, write_whole
from pipeline.export.hf import write_hf
from pipeline.export.surge_format import SurgeExport, build_export, write_surge
from pipeline.observe import Observer, tell
from pipeline.stage_results import Failure, StageResult
from pipeline.stages.options import ExportOptions
from pipeline.store import Store
from pipeline.subsets import load_release

if TYPE_CHECKING:  # huggingface_hub and httpx (~0.2 s) load for a push, not when the stage is imported
    from pipeline.export.push import HubTarget


class HubConfig(BaseModel):
    """One subset's config of a Hugging Face export: its keys' types and its shard count."""

    feature_types: dict[str, str]
    shards: int


class Pushed(BaseModel):
    """The Hub commit of a pushed export."""

    repo_id: str
    revision: str
    commit: str
    url: str
    uploaded: int
    deleted: int


class ExportSummary(StageResult):
    """What `surge export` wrote: rows per subset, and where."""

    format: str
    faithful: bool
    imported: int = Field(description="released records imported into the store first")
    rows: dict[str, int]
    released_prompts_verbatim: int
    rows_with_fewer_examples: int
    written: dict[str, str] | None = Field(default=None, description="surge: each subset's file")
    configs: dict[str, HubConfig] | None = Field(default=None, description="hf: each subset's config")
    pushed: Pushed | None = None


def export(options: ExportOptions, *, observer: Observer | None = None) -> ExportSummary:
    """Write the dataset table as SURGE files or a Hugging Face dataset (`surge export`)."""
    keep = [options.store] + ([options.import_release] if options.import_release is not None else [])
    check_target(options.out, options.overwrite, keep)
    target = push_target(options)
    # Importing a release may start a new store; exporting alone reads one that must be there.
    store = Store(options.store) if options.import_release is not None else Store.existing(options.store)
    imported = import_release(store, options.import_release)
    rows = read_rows(store, set(options.subset) if options.subset else None)
    if not rows:
        raise InputError(
            f"the store {options.store} has no dataset rows",
            hint="run `surge build` first, or pass --import-release PATH",
        )
    export = build_export(rows, faithful=options.faithful, seed=options.seed)
    card = render_card(rows, faithful=options.faithful, seed=options.seed, release=options.compare_to)
    summary = ExportSummary(
        format=options.format,
        faithful=options.faithful,
        imported=imported,
        rows={subset: len(records) for subset, records in export.records.items()},
        released_prompts_verbatim=export.released_verbatim,
        rows_with_fewer_examples=export.short_pools,
    )
    tell(observer, "export", "writing", str(options.out))
    if options.format == "surge":
        written = write_whole(options.out, lambda folder: write_surge_files(folder, export, card))
        summary.written = {subset: str(options.out / path) for subset, path in written.items()}
    else:
        configs = write_whole(options.out, lambda folder: write_hf(folder, export.records, rows, card))
        summary.configs = {subset: HubConfig.model_validate(config) for subset, config in configs.items()}
    if target is not None:
        push(options.out, target, summary)
    return ExportSummary.model_validate(summary.model_dump())  # the exit rule, over the push's failure


def import_release(store: Store, release: Path | None) -> int:
    """Rows imported from a released dataset first (0 without one); a malformed record is refused."""
    if release is None:
        return 0
    records, bad = load_release(release)
    if bad:
        raise InputError(
            f"{len(bad)} released records are malformed, e.g. {bad[0].location}: {bad[0].reason}",
            hint="fix or remove them; `surge pull surge_release` quarantines them instead",
        )
    return write_rows(store, import_released(records))


def push_target(options: ExportOptions) -> HubTarget | None:
    """The Hub repository and branch to push to, checked before any work (None without a push)."""
    if options.push is None:
        if options.revision is not None:
            raise ConfigurationError("--revision without --push", hint="add --push OWNER/NAME")
        return None
    if options.format != "hf":
        raise ConfigurationError("--push needs --format hf", hint="add --format hf")
    from pipeline.export.push import hub_target

    return hub_target(options.push, options.revision)


def push(out: Path, target: HubTarget, summary: ExportSummary) -> None:
    """Commit the written export; a failure is ours (network, token, Hub): exit 1, the export stays."""
    from pipeline.export.push import PUSH_FAILURES, push_export

    message = f"surge export: {sum(summary.rows.values())} rows ({', '.join(summary.rows)})"
    try:
        result = push_export(out, target, message)
    except PUSH_FAILURES as error:
        reason = f"pushing {out} to {target.repo_id}@{target.revision} on {target.endpoint} failed: {error}"
        fix = "check the token's write access and the network, then rerun with --overwrite --push"
        summary.failures.append(Failure(reason=reason.splitlines()[0], fix=fix))
        return
    summary.pushed = Pushed.model_validate(result.model_dump())


def write_surge_files(folder: Path, export: SurgeExport, card: str) -> dict[str, Path]:
    """dataset/<subset>.json and CARD.md under ``folder``; each subset's file relative to it."""
    (folder / "CARD.md").write_text(card, encoding="utf-8")
    return {subset: Path(path).relative_to(folder) for subset, path in write_surge(export, folder).items()}
