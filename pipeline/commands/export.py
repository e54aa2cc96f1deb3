"""surge export: the export stage (pipeline/stages/export.py) from its flags, and what it wrote as a line."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.commands.common import options_from, seed_number
from pipeline.stages.export import ExportSummary, export
from pipeline.stages.options import ExportOptions
from pipeline.subsets import SUBSET_NAMES

HELP = (
    "export the store's dataset as SURGE-format files with their prompts, or a Hugging Face dataset and card"
)
EXAMPLE = "surge export .surge/store out/ --format hf --import-release sources/samples/surge-released"

STAGE = export  # the stage this command calls


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


def options_of(args: argparse.Namespace) -> ExportOptions:
    return options_from(args, ExportOptions)


def render(summary: ExportSummary, options: ExportOptions) -> str:
    per_subset = ", ".join(f"{k} {v}" for k, v in summary.rows.items())
    return (
        f"exported {sum(summary.rows.values())} rows ({per_subset}) as {summary.format} to {options.out}"
        + (" with the release's prompt defects" if summary.faithful else "")
        + (f"; pushed: {summary.pushed.url}" if summary.pushed else "")
    )
