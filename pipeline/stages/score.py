"""The score stage: a model's predictions scored with each subset's metric exactly as SURGE's eval/main.py
does, against one dataset or two (then how much the labels alone move the score)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

from pipeline.errors import ConfigurationError, InputError
from pipeline.observe import Observer, tell
from pipeline.scoring.predictions import (
    DatasetScore,
    ItemScore,
    SubsetScore,
    read_dataset,
    read_predictions,
    score_records,
)
from pipeline.stage_results import StageResult
from pipeline.stages.options import ScoreOptions


class Coverage(BaseModel):
    """How many of a dataset's records were predicted, and the predictions that named none."""

    records: int
    scored: int
    missing: int
    missing_by_subset: dict[str, int]
    unmatched: int
    unmatched_examples: list[str]


class LabelsMoved(BaseModel):
    """Between two label sets of one subset: items whose labels differ, and the mean's change."""

    labels_differ: int
    score_delta: float


class ScoreSummary(StageResult):
    """What `surge score` found: per dataset, each subset's figures and the coverage."""

    datasets: dict[str, dict[str, SubsetScore]]
    coverage: dict[str, Coverage]
    missing_as_zero: bool
    label_sets: dict[str, LabelsMoved] | None = Field(default=None, description="with two datasets")
    output: str | None = Field(default=None, description="where each item's score was written")
    items: dict[str, list[ItemScore]] | None = Field(
        default=None, description="with per_item: each item's score"
    )


def score(options: ScoreOptions, *, observer: Observer | None = None) -> ScoreSummary:
    """Score predictions with each subset's metric (`surge score`)."""
    if options.output is not None and options.output.resolve() == options.predictions.resolve():
        raise ConfigurationError("--output is the predictions file itself", hint="write the scores elsewhere")
    predictions = read_predictions(options.predictions)
    results: list[DatasetScore] = []
    labels = []
    for path in options.dataset:
        records = read_dataset(path)
        labels.append({(r.subset, r.index): r.gt for r in records})
        results.append(score_records(records, predictions, options.missing_as_zero))
        tell(observer, "score", "scored", str(path))
    if not any(result.scored for result in results):
        raise InputError(
            f"no prediction matches a dataset record ({len(predictions)} predictions, e.g. "
            f"{predictions[0].subset}: {predictions[0].key})",
            hint="check the subset names and indices (positions in dataset/<subset>.json, from 0)",
        )
    named = list(zip((str(path) for path in options.dataset), results, strict=True))
    return ScoreSummary(
        datasets={path: result.subsets for path, result in named},
        coverage={path: Coverage.model_validate(result, from_attributes=True) for path, result in named},
        missing_as_zero=options.missing_as_zero,
        label_sets=compare(labels, results) if len(results) == 2 else None,
        output=str(write_item_scores(options.output, named)) if options.output is not None else None,
        items={path: result.items for path, result in named} if options.per_item else None,
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


def compare(labels: list[dict[tuple[str, int], str]], results: list[DatasetScore]) -> dict[str, LabelsMoved]:
    """How much the labels alone move the score: items whose labels differ, and the mean's change."""
    first, second = results
    moved: dict[str, LabelsMoved] = {}
    for subset, figures in first.subsets.items():
        other = second.subsets.get(subset)
        if other is None:
            continue
        keys = [(item.subset, item.index) for item in first.items if item.subset == subset]
        differ = [key for key in keys if labels[0].get(key) != labels[1].get(key)]
        moved[subset] = LabelsMoved(
            labels_differ=len(differ), score_delta=round(other.mean - figures.mean, 6)
        )
    return moved
