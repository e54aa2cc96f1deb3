"""surge score: score a model's predictions with each subset's metric exactly as SURGE's eval/main.py does."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.scoring.surge_eval import score_prediction
from sources.surge_release import ReleasedRecord, load_release

HELP = "score model predictions against an exported or released SURGE dataset with SURGE's own metrics"
EXAMPLE = (
    "surge score predictions.jsonl --dataset out/dataset --dataset sources/samples/surge-released --json"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "predictions", type=Path, help='JSONL or JSON list of {"subset", "index", "prediction"}'
    )
    parser.add_argument(
        "--dataset",
        type=Path,
        action="append",
        required=True,
        help="a dataset/ folder or <subset>.json (repeat to compare label sets: released, re-executed)",
    )


def read_predictions(path: Path) -> dict[tuple[str, int], str]:
    try:
        text = path.read_text(encoding="utf-8")
        entries = (
            json.loads(text)
            if text.lstrip().startswith("[")
            else [json.loads(line) for line in text.splitlines() if line.strip()]
        )
        return {(str(e["subset"]), int(e["index"])): str(e["prediction"]) for e in entries}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(
            f"cannot read predictions {path}: {error}",
            hint='write one {"subset": "ml", "index": 0, "prediction": "..."} per line',
        ) from error


def score_dataset(records: list[ReleasedRecord], predictions: dict[tuple[str, int], str]) -> dict[str, Any]:
    """Per subset: items scored, mean score (NaN items count 0, as an undefined rho earns nothing), NaNs."""
    per_subset: dict[str, list[float]] = {}
    per_item: dict[tuple[str, int], float] = {}
    for record in records:
        key = (record.subset, record.index)
        if key in predictions:
            value = score_prediction(record.subset, record.gt, record.custom_features, predictions[key])
            per_item[key] = value
            per_subset.setdefault(record.subset, []).append(value)
    subsets = {
        subset: {
            "items": len(values),
            "mean": round(sum(0.0 if math.isnan(v) else v for v in values) / len(values), 6),
            "nan_items": sum(math.isnan(v) for v in values),
        }
        for subset, values in per_subset.items()
    }
    return {"subsets": subsets, "items": per_item}


def execute(args: argparse.Namespace) -> dict[str, Any]:
    predictions = read_predictions(args.predictions)
    results, labels = [], []
    for path in args.dataset:
        records, bad = load_release(path)
        if bad:
            raise InputError(
                f"{path}: {len(bad)} malformed records, e.g. {bad[0].reason}", hint="fix the dataset"
            )
        labels.append({(r.subset, r.index): r.gt for r in records})
        results.append(score_dataset(records, predictions))
    if not any(result["items"] for result in results):
        raise InputError("no prediction matches a dataset record", hint="check the subset names and indices")
    summary: dict[str, Any] = {
        "datasets": {str(path): result["subsets"] for path, result in zip(args.dataset, results, strict=True)}
    }
    if len(results) == 2:
        summary["label_sets"] = compare(labels, results)
    summary["_text"] = render(summary)
    return summary


def compare(labels: list[dict[tuple[str, int], str]], results: list[dict[str, Any]]) -> dict[str, Any]:
    """How much the labels alone move the score: items whose labels differ, and the mean's change."""
    first, second = results
    moved: dict[str, Any] = {}
    for subset, figures in first["subsets"].items():
        other = second["subsets"].get(subset)
        if other is None:
            continue
        differ = [k for k in first["items"] if k[0] == subset and labels[0].get(k) != labels[1].get(k)]
        moved[subset] = {
            "labels_differ": len(differ),
            "score_delta": round(other["mean"] - figures["mean"], 6),
        }
    return moved


def render(summary: dict[str, Any]) -> str:
    lines = []
    for path, subsets in summary["datasets"].items():
        lines.append(path)
        lines += [f"  {s}: {f['mean']:.4f} over {f['items']} items" for s, f in subsets.items()]
    for subset, moved in summary.get("label_sets", {}).items():
        lines.append(
            f"{subset}: {moved['labels_differ']} labels differ, score moves {moved['score_delta']:+.4f}"
        )
    return "\n".join(lines)
