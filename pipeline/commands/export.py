"""surge export: the store's dataset table as SURGE-format files or a Hugging Face dataset, with its card."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.commands.common import seed_number
from pipeline.dataset import import_released, read_rows, write_rows
from pipeline.errors import ConfigurationError, InputError
from pipeline.export.card import render_card
from pipeline.export.folder import check_target, write_whole
from pipeline.export.hf import write_hf
from pipeline.export.surge_format import SurgeExport, build_export, write_surge
from pipeline.store import Store
from pipeline.subsets import SUBSET_NAMES, load_release

if TYPE_CHECKING:  # huggingface_hub and httpx (~0.2 s) load for a push, not when the CLI builds its parser
    from pipeline.export.push import HubTarget

HELP = (
    "export the store's dataset as SURGE-format files with their prompts, or a Hugging Face dataset and card"
)
EXAMPLE = "surge export .surge/store out/ --format hf --import-release sources/samples/surge-released"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("store", type=Path, help="the Parquet store whose `dataset` table to export")
    parser.add_argument("out", type=Path, help="output folder (surge: OUT/dataset/<subset>.json; hf: OUT/)")
    parser.add_argument("--format", choices=("surge", "hf"), default="surge", help="output layout")
    parser.add_argument(
        "--faithful", action="store_true", help="reproduce the release's prompt defects (default: corrected)"
    )
    parser.add_argument(
        "--seed", type=seed_number, default=0, help="few-shot example draw, 0-2^63-1 (default: 0)"
    )
    parser.add_argument("--subset", action="append", choices=SUBSET_NAMES, help="only these (repeatable)")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an old export in OUT whole (default: OUT must be new or empty)",
    )
    parser.add_argument(
        "--import-release",
        type=Path,
        default=None,
        help="first import a released SURGE dataset/ (or samples) into the store's dataset table",
    )
    parser.add_argument(
        "--push",
        metavar="OWNER/NAME",
        default=None,
        help="with --format hf: commit the export to this Hub dataset repository (HF_TOKEN, HF_ENDPOINT)",
    )
    parser.add_argument(
        "--compare-to",
        type=Path,
        default=None,
        metavar="DATASET",
        help="SURGE's dataset/ folder: the card shows each exported subset beside the release's (families, "
        "languages, time bins, label lengths, categories)",
    )
    parser.add_argument(
        "--revision",
        metavar="BRANCH",
        default=None,
        help="with --push: commit to this branch, created from main if new (default: main)",
    )


def execute(args: argparse.Namespace) -> dict[str, Any]:
    keep = [args.store] + ([args.import_release] if args.import_release is not None else [])
    check_target(args.out, args.overwrite, keep)
    target = push_target(args)
    # Importing a release may start a new store; exporting alone reads one that must be there.
    store = Store(args.store) if args.import_release is not None else Store.existing(args.store)
    imported = 0
    if args.import_release is not None:
        records, bad = load_release(args.import_release)
        if bad:
            raise InputError(
                f"{len(bad)} released records are malformed, e.g. {bad[0].location}: {bad[0].reason}",
                hint="fix or remove them; `surge pull surge_release` quarantines them instead",
            )
        imported = write_rows(store, import_released(records))
    subsets = set(args.subset) if args.subset else None
    rows = read_rows(store, subsets)
    if not rows:
        raise InputError(
            f"the store {args.store} has no dataset rows",
            hint="run `surge build` first, or pass --import-release PATH",
        )
    export = build_export(rows, faithful=args.faithful, seed=args.seed)
    card = render_card(rows, faithful=args.faithful, seed=args.seed, release=args.compare_to)
    summary: dict[str, Any] = {
        "format": args.format,
        "faithful": args.faithful,
        "imported": imported,
        "rows": {subset: len(records) for subset, records in export.records.items()},
        "released_prompts_verbatim": export.released_verbatim,
        "rows_with_fewer_examples": export.short_pools,
    }
    if args.format == "surge":
        summary["written"] = write_whole(args.out, lambda folder: write_surge_files(folder, export, card))
        summary["written"] = {subset: str(args.out / path) for subset, path in summary["written"].items()}
    else:
        summary["configs"] = write_whole(
            args.out, lambda folder: write_hf(folder, export.records, rows, card)
        )
    if target is not None:
        summary.update(push(args.out, target, summary))
    per_subset = ", ".join(f"{k} {v}" for k, v in summary["rows"].items())
    summary["_text"] = (
        f"exported {sum(summary['rows'].values())} rows ({per_subset}) as {args.format} to {args.out}"
        + (" with the release's prompt defects" if args.faithful else "")
        + (f"; pushed: {summary['pushed']['url']}" if "pushed" in summary else "")
    )
    return summary


def push_target(args: argparse.Namespace) -> HubTarget | None:
    """The Hub repository and branch to push to, checked before any work (None without --push)."""
    if args.push is None:
        if args.revision is not None:
            raise ConfigurationError("--revision without --push", hint="add --push OWNER/NAME")
        return None
    if args.format != "hf":
        raise ConfigurationError("--push needs --format hf", hint="add --format hf")
    from pipeline.export.push import hub_target

    return hub_target(args.push, args.revision)


def push(out: Path, target: HubTarget, summary: dict[str, Any]) -> dict[str, Any]:
    """Commit the written export; a failure is ours (network, token, Hub): exit 1, the export stays."""
    from pipeline.export.push import PUSH_FAILURES, push_export

    message = f"surge export: {sum(summary['rows'].values())} rows ({', '.join(summary['rows'])})"
    try:
        result = push_export(out, target, message)
    except PUSH_FAILURES as error:
        reason = f"pushing {out} to {target.repo_id}@{target.revision} on {target.endpoint} failed: {error}"
        fix = "check the token's write access and the network, then rerun with --overwrite --push"
        return {"failures": [{"reason": reason.splitlines()[0], "fix": fix}]}
    return {"pushed": result.model_dump()}


def write_surge_files(folder: Path, export: SurgeExport, card: str) -> dict[str, Path]:
    """dataset/<subset>.json and CARD.md under ``folder``; each subset's file relative to it."""
    (folder / "CARD.md").write_text(card, encoding="utf-8")
    return {subset: Path(path).relative_to(folder) for subset, path in write_surge(export, folder).items()}
