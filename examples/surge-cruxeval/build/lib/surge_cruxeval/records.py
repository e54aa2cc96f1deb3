"""The reader: CRUXEval's JSONL ({code, input, output, id} a line) -> surge's released records.

A record becomes what a model is asked, CRUXEval's problem block as its prompts show it
(``[PYTHON]`` the code, then ``assert f(<input>) == ??``), with the output as the label. A line that
cannot be one is quarantined with its ``file:line`` and the reason (invalid JSON, a field missing or not
text, code that is not Python or defines no ``f``, an input that is not a call's arguments); the rest
is read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.records import Language, QuarantinedRecord
from sources.base import quarantine, raw_json, read_jsonl
from sources.surge_release import ReleasedRecord
from surge_cruxeval.prompts import PROMPTS

SUBSET = "cruxeval"
CATEGORY = 40  # a number no subset of surge's has (SURGE's are 1-8, pyver's 9)
REQUIRED = ("code", "input", "output", "id")
OPEN, CLOSE = "[PYTHON]\n", "\n[/PYTHON]"


def question_of(code: str, arguments: str) -> str:
    return f"{OPEN}{code}\n{assertion(arguments)}{CLOSE}"


def assertion(arguments: str) -> str:
    return f"assert f({arguments}) == ??"


def code_of(question: str, arguments: str) -> str:
    """The function's code back from a question; ValueError when the question is not one of ours."""
    ending = f"\n{assertion(arguments)}{CLOSE}"
    if not (question.startswith(OPEN) and question.endswith(ending)):
        raise ValueError(f"the question is not [PYTHON] code ending in `{assertion(arguments)}`")
    return question[len(OPEN) : -len(ending)]


def read_records(path: Path, relative: str) -> Iterator[ReleasedRecord | QuarantinedRecord]:
    """Every line of a CRUXEval JSONL as a record, or quarantined with ``relative:line`` and why."""
    for parsed in read_jsonl(SUBSET, path, relative, REQUIRED):
        if isinstance(parsed, QuarantinedRecord):
            yield parsed
            continue
        number, line = parsed
        where = f"{relative}:{number}"
        problem = python_problem(line["code"], line["input"])
        if problem:
            yield quarantine(SUBSET, where, problem, raw_json(line))
        else:
            yield record(line, number - 1, where)


def python_problem(code: str, arguments: str) -> str:
    """Why the code and input cannot make ``f(<input>)`` ('' when they can)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:  # ValueError: a NUL in it
        return f"code is not Python: {error or type(error).__name__}"
    if not any(isinstance(node, ast.FunctionDef) and node.name == "f" for node in tree.body):
        return "code defines no function f"
    try:
        ast.parse(f"f({arguments})", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return f"input is not the arguments of a call: {error or type(error).__name__}"
    return ""


def record(line: dict[str, Any], index: int, where: str) -> ReleasedRecord:
    return ReleasedRecord(
        subset=SUBSET,
        index=index,
        location=where,
        question=question_of(line["code"], line["input"]),
        gt=line["output"],
        category=CATEGORY,
        language=Language.PYTHON,
        upstream_language="python",
        custom_features={"id": line["id"], "input": line["input"]},
        prompts=dict(PROMPTS),
    )
