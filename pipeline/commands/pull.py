"""surge pull: check out upstream sources at their pinned commits and store their items as Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.commands.common import add_store_argument, add_workers_argument
from pipeline.errors import ConfigurationError

HELP = "clone or update upstream sources at pinned commits and store their items (table 'items')"
EXAMPLE = "surge pull mceval --mirror /srv/mirrors/McEval --cache .surge/sources --store .surge/store"


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


def per_source(option: str, values: list[str], names: list[str], known: set[str]) -> dict[str, str]:
    """'mceval=/srv/McEval' -> {'mceval': '/srv/McEval'}; a bare value needs exactly one source."""
    chosen: dict[str, str] = {}
    for value in values:
        name, sep, target = value.partition("=")
        if sep and name in known:
            if name not in names:
                raise ConfigurationError(
                    f"{option} {value}: {name} is not being pulled", hint=f"add {name} to SOURCE"
                )
            chosen[name] = target
        elif len(names) == 1:
            chosen[names[0]] = value
        else:
            raise ConfigurationError(
                f"{option} {value} is ambiguous with {len(names)} sources",
                hint=f"write it as {option} SOURCE=VALUE",
            )
    return chosen


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from flows.pull_sources import pull_flow
    from flows.runtime import default_workers
    from sources.registry import SOURCES, get_source

    names = list(dict.fromkeys(args.sources)) or list(SOURCES)
    for name in names:
        get_source(name)  # unknown names fail here, with the list of known ones
    mirrors = per_source("--mirror", args.mirror, names, set(SOURCES))
    commits = per_source("--commit", args.commit, names, set(SOURCES))
    workers = min(len(names), args.workers or default_workers())
    results = pull_flow(names, args.cache, args.store, mirrors, commits, workers)
    failed = sorted(name for name, result in results.items() if "error" in result)
    summary: dict[str, Any] = {
        "sources": results,
        "store": str(args.store),
        "failed": failed,
        # a source that could not be pulled (offline, a bad mirror, LFS pointers) is ours: exit 1, each
        # with its one line and fix, as the CLI's rule says; the other sources' items are kept
        "failures": [
            {"reason": f"{name}: {results[name]['error']}", "fix": results[name].get("hint", "")}
            for name in failed
        ],
    }
    summary["_text"] = render(results, args.store)
    return summary


def render(per_source: dict[str, dict[str, Any]], store: Path) -> str:
    lines = [f"{'source':<22}{'commit':<14}{'items':>8}{'new':>8}{'quarantined':>13}"]
    for name, result in per_source.items():
        if "error" in result:
            lines.append(f"{name:<22}FAILED: {result['error']}")
            if result.get("hint"):
                lines.append(f"{'':<22}how to fix: {result['hint']}")
            continue
        lines.append(
            f"{name:<22}{result['commit'][:12]:<14}{result['items']:>8}{result['new_items']:>8}{result['quarantined']:>13}"
        )
        lines.extend(f"{'':<4}{bad['location']}: {bad['reason']}" for bad in result["quarantine"])
        if result["quarantined"] > len(result["quarantine"]):
            lines.append(
                f"{'':<4}... {result['quarantined'] - len(result['quarantine'])} more in the quarantine table"
            )
    lines.append(f"store: {store} (tables items, pulls, quarantine)")
    return "\n".join(lines)
