"""surge score: score a model's predictions with each subset's metric exactly as SURGE's eval/main.py does."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pipeline.errors import ConfigurationError, InputError
from pipeline.scoring.predictions import DatasetScore, read_dataset, read_predictions, score_records

HELP = "score model predictions against an exported or released SURGE dataset with SURGE's own metrics"
EXAMPLE = (
    "surge score predictions.jsonl --dataset out/dataset --dataset sources/samples/surge-released --json"
)


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


def execute(args: argparse.Namespace) -> dict[str, Any]:
    if args.output is not None and args.output.resolve() == args.predictions.resolve():
        raise ConfigurationError("--output is the predictions file itself", hint="write the scores elsewhere")
    predictions = read_predictions(args.predictions)
    results: list[DatasetScore] = []
    labels = []
    for path in args.dataset:
        records = read_dataset(path)
        labels.append({(r.subset, r.index): r.gt for r in records})
        results.append(score_records(records, predictions, args.missing_as_zero))
    if not any(result.scored for result in results):
        raise InputError(
            f"no prediction matches a dataset record ({len(predictions)} predictions, e.g. "
            f"{predictions[0].subset}: {predictions[0].key})",
            hint="check the subset names and indices (positions in dataset/<subset>.json, from 0)",
        )
    named = list(zip((str(path) for path in args.dataset), results, strict=True))
    summary: dict[str, Any] = {
        "datasets": {path: subset_figures(result) for path, result in named},
        "coverage": {path: coverage(result) for path, result in named},
        "missing_as_zero": args.missing_as_zero,
    }
    if len(results) == 2:
        summary["label_sets"] = compare(labels, results)
    if args.output is not None:
        summary["output"] = str(write_item_scores(args.output, named))
    if args.json:
        summary["items"] = {path: [item.model_dump() for item in result.items] for path, result in named}
    summary["_text"] = render(summary)
    return summary


def subset_figures(result: DatasetScore) -> dict[str, Any]:
    return {subset: figures.model_dump() for subset, figures in result.subsets.items()}


def coverage(result: DatasetScore) -> dict[str, Any]:
    return result.model_dump(
        include={"records", "scored", "missing", "missing_by_subset", "unmatched", "unmatched_examples"}
    )


def write_item_scores(path: Path, named: list[tuple[str, DatasetScore]]) -> Path:
    """One JSON line per item and dataset, written whole or not at all."""
    lines = [
        json.dumps({"dataset": dataset, **item.model_dump()}, sort_keys=True)
        for dataset, result in named
        for item in result.items
    ]
    temporary = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        temporary.replace(path)
    except OSError as error:
        raise InputError(
            f"cannot write {path}: {error.strerror or error}", hint="pick a writable --output"
        ) from None
    return path


def compare(labels: list[dict[tuple[str, int], str]], results: list[DatasetScore]) -> dict[str, Any]:
    """How much the labels alone move the score: items whose labels differ, and the mean's change."""
    first, second = results
    moved: dict[str, Any] = {}
    for subset, figures in first.subsets.items():
        other = second.subsets.get(subset)
        if other is None:
            continue
        keys = [(item.subset, item.index) for item in first.items if item.subset == subset]
        differ = [key for key in keys if labels[0].get(key) != labels[1].get(key)]
        moved[subset] = {
            "labels_differ": len(differ),
            "score_delta": round(other.mean - figures.mean, 6),
        }
    return moved


def render(summary: dict[str, Any]) -> str:
    as_zero = summary["missing_as_zero"]
    lines = []
    for path, subsets in summary["datasets"].items():
        lines += render_dataset(path, subsets, summary["coverage"][path], as_zero)
    if any(c["missing"] for c in summary["coverage"].values()) and not as_zero:
        lines.append(
            "means are over the records predicted; --missing-as-zero counts the missing as 0, as SURGE's eval"
        )
    for subset, moved in summary.get("label_sets", {}).items():
        lines.append(
            f"{subset}: {moved['labels_differ']} labels differ, score moves {moved['score_delta']:+.4f}"
        )
    if "output" in summary:
        lines.append(f"per-item scores: {summary['output']}")
    return "\n".join(lines)


def render_dataset(path: str, subsets: dict[str, Any], cover: dict[str, Any], as_zero: bool) -> list[str]:
    zero = " (scored 0)" if as_zero else ""
    examples = f" (e.g. {', '.join(cover['unmatched_examples'])})" if cover["unmatched"] else ""
    predicted = f"{cover['scored']} of {cover['records']} records predicted"
    lines = [
        f"{path}: {predicted}, {cover['missing']} missing{zero}, "
        f"{cover['unmatched']} predictions match no record{examples}"
    ]
    for subset, figures in subsets.items():
        missing = (
            f" ({figures['missing']} missing{', scored 0' if as_zero else ''})" if figures["missing"] else ""
        )
        lines.append(f"  {subset}: {figures['mean']:.4f} over {figures['items']} items{missing}")
    unscored = sorted(set(cover["missing_by_subset"]) - set(subsets))
    lines += [f"  {s}: no predictions ({cover['missing_by_subset'][s]} records)" for s in unscored]
    return lines
