"""A model's predictions for `surge score`, read strictly, and scored with their coverage.

A prediction is ``{"subset": "ml", "index": 0, "prediction": "..."}``: one per line (JSONL) or the elements
of one JSON list, keyed by (subset, index), index being the record's position in ``dataset/<subset>.json``,
or by ``item_id``, a hash of what the model is asked (``ReleasedRecord.item_id``, as `surge predict` writes
it), which still names the same record when the dataset is reordered, grows or has its labels corrected;
other keys are ignored.
What is ambiguous is refused with its line (JSONL) or element (a list), never guessed: an index that is not a
plain whole number (``1.5``, ``"1"``, ``true`` once all became 1), a reply that is not text, an unknown
subset, the same item twice (the last one once won silently), a line nested too deeply to parse.

Scoring reports coverage: records scored, records with no prediction (``missing``), predictions with no
record (``unmatched``). SURGE's eval/main.py scores every record of the dataset, and a reply it cannot score
(an empty or absent one included) counts 0 (``if not score: 0``); ``missing_as_zero`` does the same for the
records a predictions file leaves out. Without it a subset's mean is over the records scored, and the
coverage says over how many.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.errors import InputError
from pipeline.scoring.by_subset import score_prediction
from pipeline.subsets import REGISTRY, load_release
from sources.surge_release import ReleasedRecord

HINT = 'write one {"subset": "ml", "index": 0, "prediction": "..."} per line'
UNMATCHED_SHOWN = 5  # unmatched keys named in the summary; the count covers all


class Prediction(BaseModel):
    model_config = ConfigDict(frozen=True)

    subset: str
    index: int | None = Field(default=None, ge=0, description="position in dataset/<subset>.json")
    item_id: str | None = Field(
        default=None, description="the record's content id (as `surge predict` writes): wins over index"
    )
    prediction: str
    where: str = Field(description="'line N' of a JSONL file, 'element N' of a JSON list (1-based)")

    @property
    def key(self) -> str:
        return f"id {self.item_id}" if self.item_id is not None else f"{self.subset} item {self.index}"


class ItemScore(BaseModel):
    subset: str
    index: int
    score: float | None = Field(description="None where upstream's is NaN (an undefined Spearman rho)")
    missing: bool = Field(default=False, description="no prediction: scored 0 under missing_as_zero")
    where: str | None = Field(default=None, description="the prediction's line or element")


class SubsetScore(BaseModel):
    items: int = Field(description="records in the mean")
    mean: float = Field(description="NaN items count 0; missing ones too under missing_as_zero")
    nan_items: int
    missing: int = Field(description="records of this subset with no prediction")


class DatasetScore(BaseModel):
    subsets: dict[str, SubsetScore]
    records: int
    scored: int = Field(description="records with a prediction")
    missing: int
    missing_by_subset: dict[str, int]
    unmatched: int = Field(description="predictions naming no record of this dataset")
    unmatched_examples: list[str]
    missing_as_zero: bool
    items: list[ItemScore]


def read_predictions(path: Path) -> list[Prediction]:
    """Every prediction of a JSONL file or JSON list; InputError (with the line) on anything ambiguous."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read predictions {path}: {error.strerror or error}", hint=HINT) from None
    text = decode(data, path)
    if text.lstrip().startswith("["):
        entries = enumerate(parse_list(text, path), start=1)
        predictions = [checked(entry, f"element {number}", path) for number, entry in entries]
    else:
        predictions = [checked(entry, f"line {number}", path) for number, entry in parse_lines(text, path)]
    if not predictions:
        raise InputError(f"{path} holds no predictions", hint=HINT)
    refuse_duplicates(predictions, path)
    return predictions


def read_dataset(path: Path, subsets: set[str] | None = None) -> list[ReleasedRecord]:
    """The records of a dataset/ folder or <subset>.json that `surge predict` asks and `surge score` scores;
    InputError if any is malformed (a prediction for it could be neither asked nor scored)."""
    records, bad = load_release(path, subsets)
    if bad:
        raise InputError(
            f"{path}: {len(bad)} malformed records, e.g. {bad[0].reason}", hint="fix the dataset"
        )
    return records


def decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(f"{path} line {line}: not UTF-8 text", hint="save the file as UTF-8") from None


def parse_lines(text: str, path: Path) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, parse_json(line, path, f"line {number}")


def parse_list(text: str, path: Path) -> list[Any]:
    value = parse_json(text, path, "the JSON list")
    if not isinstance(value, list):
        raise InputError(f"{path}: not a JSON list", hint=HINT)
    return value


def parse_json(text: str, path: Path, where: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError(f"{path} {where}: nested too deeply to read", hint=HINT) from None
    except ValueError as error:
        raise InputError(f"{path} {where}: not valid JSON ({error})", hint=HINT) from None


def checked(entry: Any, where: str, path: Path) -> Prediction:
    """One entry as a Prediction, or the reason it is refused."""

    def refuse(reason: str) -> InputError:
        return InputError(f"{path} {where}: {reason}", hint=HINT)

    if not isinstance(entry, dict):
        raise refuse(f"expected an object, got {json_type(entry)}")
    # an item is named by its position (index) or by its content id (item_id, stable when the dataset moves)
    wanted = ("subset", "prediction") if "item_id" in entry else ("subset", "index", "prediction")
    absent = [key for key in wanted if key not in entry]
    if absent:
        raise refuse(f"no {', '.join(absent)}")
    subset, index, reply = entry["subset"], entry.get("index"), entry["prediction"]
    item_id = entry.get("item_id")
    if not isinstance(subset, str) or subset not in REGISTRY:
        raise refuse(f"unknown subset {subset!r} (known: {', '.join(REGISTRY)})")
    # bool is an int in Python, and 1.0 == 1: both are refused, as is "1", rather than read as item 1
    if (index is not None or item_id is None) and (
        isinstance(index, bool) or not isinstance(index, int) or index < 0
    ):
        raise refuse(f"index must be a whole number >= 0, got {json_type(index)} {json.dumps(index)}")
    if item_id is not None and (not isinstance(item_id, str) or not item_id):
        raise refuse(f"item_id must be non-empty text, got {json_type(item_id)} {json.dumps(item_id)}")
    if not isinstance(reply, str):
        raise refuse(f"prediction must be text, got {json_type(reply)} (fl: the JSON as a string)")
    return Prediction(subset=subset, index=index, item_id=item_id, prediction=reply, where=where)


def json_type(value: Any) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list"}
    names |= {dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def refuse_duplicates(predictions: Sequence[Prediction], path: Path) -> None:
    first: dict[str, str] = {}
    for prediction in predictions:
        if prediction.key in first:
            raise InputError(
                f"{path} {prediction.where}: {prediction.key} again (first at {first[prediction.key]})",
                hint="keep one prediction per item",
            )
        first[prediction.key] = prediction.where


def score_records(
    records: Sequence[Any], predictions: Sequence[Prediction], missing_as_zero: bool = False
) -> DatasetScore:
    """Score each record that has a prediction (and, under ``missing_as_zero``, each that has none as 0);
    ``records`` are ReleasedRecords (subset, index, item_id, gt, custom_features); a prediction naming an
    item_id is matched by it, whatever its index says, one naming only an index by (subset, index)."""
    by_id = {p.item_id: p for p in predictions if p.item_id is not None}
    by_index = {(p.subset, p.index): p for p in predictions if p.item_id is None}
    chosen = [by_id.get(record.item_id) or by_index.get((record.subset, record.index)) for record in records]
    items = [scored_item(record, prediction) for record, prediction in zip(records, chosen, strict=True)]
    used = {id(prediction) for prediction in chosen if prediction is not None}
    unmatched = [p for p in predictions if id(p) not in used]
    return DatasetScore(
        subsets=subset_scores(items, missing_as_zero),
        records=len(records),
        scored=sum(not item.missing for item in items),
        missing=sum(item.missing for item in items),
        missing_by_subset=missing_counts(items),
        unmatched=len(unmatched),
        unmatched_examples=[
            f"{p.subset}/{p.item_id or p.index} ({p.where})" for p in unmatched[:UNMATCHED_SHOWN]
        ],
        missing_as_zero=missing_as_zero,
        items=[item for item in items if missing_as_zero or not item.missing],
    )


def missing_counts(items: Sequence[ItemScore]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        if item.missing:
            counts[item.subset] = counts.get(item.subset, 0) + 1
    return counts


def scored_item(record: Any, prediction: Prediction | None) -> ItemScore:
    if prediction is None:
        return ItemScore(subset=record.subset, index=record.index, score=0.0, missing=True)
    value = score_prediction(record.subset, record.gt, record.custom_features, prediction.prediction)
    score = None if math.isnan(value) else value
    return ItemScore(subset=record.subset, index=record.index, score=score, where=prediction.where)


def subset_scores(items: Sequence[ItemScore], missing_as_zero: bool) -> dict[str, SubsetScore]:
    by_subset: dict[str, list[ItemScore]] = {}
    for item in items:
        by_subset.setdefault(item.subset, []).append(item)
    scores = {}
    for subset, group in by_subset.items():
        counted = [item for item in group if missing_as_zero or not item.missing]
        if not counted:
            continue  # a subset with no prediction at all has no mean: its records are all missing
        total = sum(item.score or 0.0 for item in counted)
        scores[subset] = SubsetScore(
            items=len(counted),
            mean=round(total / len(counted), 6),
            nan_items=sum(item.score is None for item in counted),
            missing=sum(item.missing for item in group),
        )
    return scores
