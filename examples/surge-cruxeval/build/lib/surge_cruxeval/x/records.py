"""The reader: CRUXEval-X's language files (a JSON array of ``{"id": N, "code": "..."}`` each) -> records.

A file is named after its language (``java.json``); a record's index is its position in the array and its
location ``<file>[index]``. An object without ``code`` is a translation that does not exist: no record. An
object that is malformed (not an object, no integer ``id``, ``code`` that is not text) is quarantined with
its location and the reason, and so is a whole file that is no JSON array or is named after no language.

What a model is asked (the record's question) is the program with its check's expected value written
``??``, CRUXEval's output prediction in the program's own language; the expected value and where it goes
are features, so the program is the question with the value put back. The label is ``passed``: the
benchmark's claim that the program's check holds. A program whose check cannot be located is asked as it
is, with no expected value.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.records import Language, QuarantinedRecord
from sources.base import quarantine, raw_json, read_json_list
from sources.surge_release import ReleasedRecord
from surge_cruxeval.x.languages import HARNESSES, Harness
from surge_cruxeval.x.locate import expected_span
from surge_cruxeval.x.prompts import PROMPTS

SUBSET = "cruxeval-x"
CATEGORY = 41  # a number no subset has (SURGE's are 1-8, pyver's 9, CRUXEval's 40)
LABEL = "passed"  # what every record claims: its check holds
MASK = "??"


def read_records(path: Path, relative: str) -> Iterator[ReleasedRecord | QuarantinedRecord]:
    """Every program of a CRUXEval-X language file as a record, or quarantined with where and why."""
    harness = HARNESSES.get(path.stem)
    if harness is None:
        reason = f"not a CRUXEval-X language file: {path.stem!r} is none of {', '.join(sorted(HARNESSES))}"
        yield quarantine(SUBSET, relative, reason)
        return
    for parsed in read_json_list(SUBSET, path, relative):
        if isinstance(parsed, QuarantinedRecord):
            yield parsed
            continue
        index, entry = parsed
        where = f"{relative}[{index}]"
        problem = entry_problem(entry)
        if problem:
            yield quarantine(SUBSET, where, problem, raw_json(entry))
        elif "code" in entry:  # without code: a translation upstream does not have
            yield record(harness, entry, index, where)


def entry_problem(entry: dict[str, Any]) -> str:
    """Why an object is no CRUXEval-X entry ('' when it is one)."""
    number = entry.get("id")
    if "id" not in entry:
        return "no id"
    if not isinstance(number, int) or isinstance(number, bool):
        return f"id is not an integer: {number!r}"
    if "code" in entry and not isinstance(entry["code"], str):
        return f"code is not text: {type(entry['code']).__name__}"
    return ""


def record(harness: Harness, entry: dict[str, Any], index: int, where: str) -> ReleasedRecord:
    code: str = entry["code"]
    span = expected_span(code, harness.locator, harness.lexicon)
    features: dict[str, Any] = {
        "id": entry["id"],
        "language": harness.stem,
        "expected": None,
        "expected_at": None,
    }
    question = code
    if span is not None:
        start, end = span
        question = code[:start] + MASK + code[end:]
        features |= {"expected": code[start:end], "expected_at": start}
    return ReleasedRecord(
        subset=SUBSET,
        index=index,
        location=where,
        question=question,
        gt=LABEL,
        category=CATEGORY,
        language=Language(harness.language),
        upstream_language=harness.stem,
        custom_features=features,
        prompts=dict(PROMPTS),
    )


def code_of(record: ReleasedRecord) -> str:
    """The program back from a record: its question with the expected value in place of ``??``;
    ValueError when the record is not one of the reader's."""
    expected, at = record.custom_features.get("expected"), record.custom_features.get("expected_at")
    if expected is None and at is None:
        return record.question
    if (
        not isinstance(expected, str)
        or not isinstance(at, int)
        or record.question[at : at + len(MASK)] != MASK
    ):
        raise ValueError("custom_features.expected and expected_at do not fit the question's `??`")
    return record.question[:at] + expected + record.question[at + len(MASK) :]
