"""surge pull: the pull stage (pipeline/stages/pull.py) from its flags, and a line per source as text."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.commands.common import add_store_argument, add_workers_argument, options_from
from pipeline.stages.options import PullOptions
from pipeline.stages.pull import PullSummary, SourcePulled, pull

HELP = "clone or update upstream sources at pinned commits and store their items (table 'items')"
EXAMPLE = "surge pull mceval --mirror /srv/mirrors/McEval --cache .surge/sources --store .surge/store"
STAGE = pull  # the stage this command calls


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sources.base import DEFAULT_CACHE
    from sources.registry import SOURCES  # light: the specs only, no git and no Prefect

    names = ", ".join(SOURCES)
    parser.add_argument("sources", nargs="*", metavar="SOURCE", help=f"default: all of {names}")
    parser.add_argument(
        "--mirror",
        action="append",
        default=[],
        metavar="[SOURCE=]PATH|URL",
        help="clone from a local clone or file:// URL, not upstream (repeatable; SOURCE= if several)",
    )
    parser.add_argument(
        "--commit",
        action="append",
        default=[],
        metavar="[SOURCE=]REV",
        help="check out this revision instead of the pinned one (repeatable; SOURCE= if several)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        help=f"folder of the checkouts (default: {DEFAULT_CACHE})",
    )
    add_workers_argument(parser, unit="sources pulled")
    add_store_argument(parser)


def options_of(args: argparse.Namespace) -> PullOptions:
    return options_from(args, PullOptions)


def render(summary: PullSummary, options: PullOptions) -> str:
    return render_sources(summary.sources, options.store)


def render_sources(per_source: dict[str, SourcePulled], store: Path) -> str:
    lines = [f"{'source':<22}{'commit':<14}{'items':>8}{'new':>8}{'quarantined':>13}"]
    for name, result in per_source.items():
        if result.error is not None:
            lines.append(f"{name:<22}FAILED: {result.error}")
            if result.hint:
                lines.append(f"{'':<22}how to fix: {result.hint}")
            continue
        commit = (result.commit or "")[:12]
        lines.append(f"{name:<22}{commit:<14}{result.items:>8}{result.new_items:>8}{result.quarantined:>13}")
        lines.extend(f"{'':<4}{bad.location}: {bad.reason}" for bad in result.quarantine)
        if result.quarantined > len(result.quarantine):
            lines.append(
                f"{'':<4}... {result.quarantined - len(result.quarantine)} more in the quarantine table"
            )
    lines.append(f"store: {store} (tables items, pulls, quarantine)")
    return "\n".join(lines)
