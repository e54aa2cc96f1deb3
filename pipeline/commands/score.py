"""surge score: the score stage (pipeline/stages/score.py) from its flags, and its figures as text."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.scoring.predictions import SubsetScore
from pipeline.stages.options import ScoreOptions
from pipeline.stages.score import Coverage, ScoreSummary, score

HELP = "score model predictions against an exported or released SURGE dataset with SURGE's own metrics"
EXAMPLE = (
    "surge score predictions.jsonl --dataset out/dataset --dataset sources/samples/surge-released --json"
)

STAGE = score  # the stage this command calls


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "predictions",
        type=Path,
        help='JSONL or JSON list of {"subset", "index" or "item_id", "prediction"} (`surge predict`)',
    )
    parser.add_argument(
        "--dataset",
        type=Path,
        action="append",
        required=True,
        help="a dataset/ folder or <subset>.json (repeat to compare label sets: released, re-executed)",
    )
    parser.add_argument(
        "--missing-as-zero",
        action="store_true",
        help="score a record with no prediction 0 and count it, as SURGE's eval/main.py counts every record "
        "(default: means over the records predicted; the coverage says how many are missing)",
    )
    parser.add_argument(
        "--output", type=Path, default=None, help="write each item's score as JSONL here (--json prints them)"
    )


def options_of(args: argparse.Namespace) -> ScoreOptions:
    """The options of the flags; --json asks for each item's score as well."""
    fields = {name: getattr(args, name) for name in ScoreOptions.model_fields if name != "per_item"}
    return ScoreOptions.model_validate({**fields, "per_item": args.json})


def render(summary: ScoreSummary, options: ScoreOptions) -> str:
    as_zero = summary.missing_as_zero
    lines = []
    for path, subsets in summary.datasets.items():
        lines += render_dataset(path, subsets, summary.coverage[path], as_zero)
    if any(c.missing for c in summary.coverage.values()) and not as_zero:
        lines.append(
            "means are over the records predicted; --missing-as-zero counts the missing as 0, as SURGE's eval"
        )
    for subset, moved in (summary.label_sets or {}).items():
        lines.append(f"{subset}: {moved.labels_differ} labels differ, score moves {moved.score_delta:+.4f}")
    if summary.output is not None:
        lines.append(f"per-item scores: {summary.output}")
    return "\n".join(lines)


def render_dataset(path: str, subsets: dict[str, SubsetScore], cover: Coverage, as_zero: bool) -> list[str]:
    zero = " (scored 0)" if as_zero else ""
    examples = f" (e.g. {', '.join(cover.unmatched_examples)})" if cover.unmatched else ""
    predicted = f"{cover.scored} of {cover.records} records predicted"
    lines = [
        f"{path}: {predicted}, {cover.missing} missing{zero}, "
        f"{cover.unmatched} predictions match no record{examples}"
    ]
    for subset, figures in subsets.items():
        missing = f" ({figures.missing} missing{', scored 0' if as_zero else ''})" if figures.missing else ""
        lines.append(f"  {subset}: {figures.mean:.4f} over {figures.items} items{missing}")
    unscored = sorted(set(cover.missing_by_subset) - set(subsets))
    lines += [f"  {s}: no predictions ({cover.missing_by_subset[s]} records)" for s in unscored]
    return lines
