"""surge store: check that every part file of the store reads, clean leftovers, set corrupt parts aside,
compact parts.

A corrupt part (not Parquet: truncated, overwritten) is reported by ``check`` (exit 1). ``check --repair``
and ``compact`` move it into its table's ``.corrupt/`` folder with a record in the quarantine table, and keep
every other part: the runs it held run again on the next ``surge run``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.commands.common import add_store_argument
from pipeline.errors import StoreError
from pipeline.parts import CorruptPart, disk_errors, verify_part
from pipeline.store import Store, compact_parts, finish_compaction, part_files

HELP = (
    "check the store's part files (and remove leftovers of interrupted writes, set corrupt parts aside), "
    "or compact them"
)
EXAMPLE = "surge store check --clean --repair --store .surge/store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=["check", "compact"],
        help="check: decode every part; compact: set corrupt parts aside, then merge the rest",
    )
    parser.add_argument("--clean", action="store_true", help="with check: delete leftover *.partial files")
    parser.add_argument(
        "--repair",
        action="store_true",
        help="with check: move corrupt parts to <table>/.corrupt/, each with a quarantine record",
    )
    add_store_argument(parser)


def execute(args: argparse.Namespace) -> dict[str, Any]:
    store = Store.existing(args.store)
    report: dict[str, Any] = {"store": str(args.store), "tables": {}}
    if args.action == "compact":
        report["set_aside"] = [record.location for record in store.repair()]
        for folder in store.table_folders():
            merged = compact_parts(folder)
            report["tables"][folder.name] = {"merged_into": str(merged) if merged else None}
    else:
        corrupt: list[CorruptPart] = []
        for folder in store.table_folders():
            report["tables"][folder.name] = check_table(folder, args.clean, corrupt if args.repair else None)
        if args.repair:  # the parts the check decoded once, not decoded again by Store.repair
            records = [store.set_aside(error) for error in corrupt]
            store.quarantine.append_new(records)
            report["set_aside"] = [record.location for record in records]
    broken = [
        f"{name}/{bad}" for name, table in report["tables"].items() for bad in table.get("unreadable", [])
    ]
    report["failures"] = [unreadable_failure(broken, args.store)] if broken else []
    report["_text"] = render(report)
    return report


def unreadable_failure(broken: list[str], store: Path) -> dict[str, str]:
    more = f" and {len(broken) - 1} more" if len(broken) > 1 else ""
    return {
        "reason": f"{len(broken)} parts do not read: {broken[0]}{more}",
        "fix": f"`surge store check --repair --store {store}` moves corrupt parts to <table>/.corrupt/ with "
        "a quarantine record (their runs run again on the next `surge run`)",
    }


def check_table(folder: Path, clean: bool, to_set_aside: list[CorruptPart] | None = None) -> dict[str, Any]:
    """Decode every part; with clean, finish an interrupted compaction and drop temporary files. With
    ``to_set_aside``, corrupt parts are added to it rather than reported as unreadable."""
    if clean:
        finish_compaction(folder)
    parts = part_files(folder)
    rows, unreadable, set_aside = 0, [], 0
    for part in parts:
        try:
            rows += verify_part(part)
        except CorruptPart as error:
            if to_set_aside is None:
                unreadable.append(f"{part.name}: corrupt ({error.detail})")
            else:
                to_set_aside.append(error)
                set_aside += 1
        except StoreError as error:  # cannot be read at all (permissions): reported, never moved
            unreadable.append(f"{part.name}: {error}")
    leftovers = sorted(folder.glob(".*.partial"))
    if clean:
        with disk_errors(folder):
            for leftover in leftovers:
                leftover.unlink()
    return {
        "parts": len(parts) - set_aside,
        "rows": rows,
        "unreadable": unreadable,
        "partial_leftovers": [p.name for p in leftovers],
        "cleaned": clean,
    }


def render(report: dict[str, Any]) -> str:
    lines = [f"store {report['store']}"]
    for moved in report.get("set_aside", []):
        lines.append(f"  set aside (corrupt, see the quarantine table): {moved}")
    for name, table in report["tables"].items():
        if "merged_into" in table:
            lines.append(f"  {name:<12} merged into {table['merged_into'] or '(nothing to merge)'}")
            continue
        lines.append(f"  {name:<12} {table['parts']} parts, {table['rows']} rows")
        lines.extend(f"    unreadable: {bad}" for bad in table["unreadable"])
        if table["partial_leftovers"]:
            done = "removed" if table["cleaned"] else "left (remove with --clean)"
            lines.append(f"    {len(table['partial_leftovers'])} leftovers of interrupted writes {done}")
    return "\n".join(lines)
