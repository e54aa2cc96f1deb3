"""How a CRUXEval record is re-executed and how an answer is judged.

The program is the record's code followed by ``print(repr(f(<input>)))``: its stdout is the ``repr`` of
the output, which is how upstream wrote the labels, so re-executing it yields the label.

Upstream judges an answer by running ``assert <output> == <answer>`` (evaluation/utils_general.py), which
executes the model's text. Here nothing is executed: both sides are read as Python literals
(``ast.literal_eval``, never ``eval``) and compared with ``==``, so ``{1: None, 2: None}`` equals
``{2: None, 1: None}`` and ``'a'`` equals ``"a"``; where either side is not a literal, the stripped texts
must be equal. A call such as ``f(3)``, which upstream refuses, is no literal and so matches no label.
"""

from __future__ import annotations

import ast
from typing import Any

from pipeline.records import Language, Program
from pipeline.subsets.base import ProgramPlan
from pipeline.subsets.programs import origin
from sources.surge_release import ReleasedRecord
from surge_cruxeval.records import code_of

NOT_LITERAL = object()


def program_text(code: str, arguments: str) -> str:
    return f"{code}\n\n\nprint(repr(f({arguments})))\n"


def to_program(record: ReleasedRecord) -> ProgramPlan:
    """ValueError (the audit's refusal, with the reason) when the record is not one of the reader's."""
    arguments = record.custom_features.get("input")
    if not isinstance(arguments, str):
        raise ValueError("custom_features.input is missing: the call's arguments are unknown")
    text = program_text(code_of(record.question, arguments), arguments)
    program = Program.single(Language.PYTHON, text, origin=origin(record))
    return ProgramPlan(language="python", program=program, note=f"f({arguments}) as printed by repr")


def literal(text: str) -> Any:
    """The Python literal ``text`` spells, or NOT_LITERAL."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOT_LITERAL


def literal_equal(output: str, gt: str) -> float:
    """1 when both are literals of equal values, or (either not a literal) the same stripped text."""
    ours, theirs = literal(output), literal(gt)
    if ours is NOT_LITERAL or theirs is NOT_LITERAL:
        return float(output.strip() == gt.strip())
    try:
        return float(bool(ours == theirs))
    except (TypeError, ValueError, RecursionError):  # a comparison that raises is no equality
        return 0.0


def answer_of(reply: str) -> str:
    """What upstream's output task keeps of a generation: the text after ``[ANSWER]`` (if any) up to its
    stop word ``[/ANSWER]``, and of an assertion the part after ``==`` (upstream splits on every ``==``
    and keeps the second piece; the whole rest is kept here, so an output holding ``==`` survives)."""
    text = reply.split("[ANSWER]", 1)[1] if "[ANSWER]" in reply else reply
    text = text.split("[/ANSWER]", 1)[0]
    if "==" in text:
        text = text.split("==", 1)[1]
    return text.strip()


def score_prediction(gt: str, features: dict[str, Any], reply: str) -> float:
    """A model's raw reply against the label: 1 or 0."""
    return literal_equal(answer_of(reply), gt)
