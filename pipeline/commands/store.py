"""surge store: check that every part file of the store reads, clean leftovers, compact parts."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from pipeline.commands.common import add_store_argument
from pipeline.store import Store, compact_parts, finish_compaction, part_files

HELP = "check the store's part files (and remove leftovers of interrupted writes), or compact them"
EXAMPLE = "surge store check --clean --store .surge/store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action", choices=["check", "compact"], help="check: read every part; compact: merge parts"
    )
    parser.add_argument("--clean", action="store_true", help="with check: delete leftover *.partial files")
    add_store_argument(parser)


def execute(args: argparse.Namespace) -> dict[str, Any]:
    store = Store(args.store)
    report: dict[str, Any] = {"store": str(args.store), "tables": {}}
    for folder in store.table_folders():
        if args.action == "compact":
            merged = compact_parts(folder)
            report["tables"][folder.name] = {"merged_into": str(merged) if merged else None}
        else:
            report["tables"][folder.name] = check_table(folder, clean=args.clean)
    broken = sum(len(t.get("unreadable", [])) for t in report["tables"].values())
    report["exit_code"] = 1 if broken else 0
    return report


def check_table(folder: Path, clean: bool) -> dict[str, Any]:
    """Read every part's footer; with clean, finish an interrupted compaction and drop temporary files."""
    if clean:
        finish_compaction(folder)
    parts = part_files(folder)
    rows, unreadable = 0, []
    for part in parts:
        try:
            rows += pq.ParquetFile(part).metadata.num_rows
        except Exception as error:  # noqa: BLE001 - report every broken part, whatever broke it
            unreadable.append(f"{part.name}: {error}")
    leftovers = sorted(folder.glob(".*.partial"))
    if clean:
        for leftover in leftovers:
            leftover.unlink()
    return {
        "parts": len(parts),
        "rows": rows,
        "unreadable": unreadable,
        "partial_leftovers": [p.name for p in leftovers],
        "cleaned": clean,
    }
