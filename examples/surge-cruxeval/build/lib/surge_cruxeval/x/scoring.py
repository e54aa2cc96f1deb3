"""How a CRUXEval-X label is compared, and how a predicted expected value is scored.

The label is the check's verdict (``passed``, or ``assertion_failed: ...``): labels are compared as text,
an equality. A prediction is the expected value a model wrote for the ``??`` of the question; upstream
scores it by running the program completed with it. Here nothing runs: the prediction must be the
released expected value, compared outside string literals without whitespace (``[1, 2]`` is ``[1,2]``;
``"a b"`` is not ``"ab"``), and as Python values where both sides are Python literals (``'a'`` is
``"a"``). A value written otherwise but equal when run (``2L`` for ``2``) scores 0: a known undercount.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from surge_cruxeval.x.languages import HARNESSES
from surge_cruxeval.x.locate import Lexicon, literal_end

NOT_LITERAL = object()


def check_passed(output: str, gt: str) -> float:
    """1 when the verdict is the label's (``passed``), else 0."""
    return float(output.strip() == gt.strip())


def answer_of(reply: str) -> str:
    """The text after ``[ANSWER]`` (if any) up to ``[/ANSWER]``."""
    text = reply.split("[ANSWER]", 1)[1] if "[ANSWER]" in reply else reply
    return text.split("[/ANSWER]", 1)[0].strip()


def score_prediction(gt: str, features: dict[str, Any], reply: str) -> float:
    """1 or 0; NaN where the record has no expected value to predict (its check was not located)."""
    expected, stem = features.get("expected"), features.get("language")
    if not isinstance(expected, str):
        return math.nan
    harness = HARNESSES.get(stem) if isinstance(stem, str) else None
    answer = answer_of(reply)
    if harness is not None and harness.stem == "py":
        ours, theirs = _python(answer), _python(expected)
        if ours is not NOT_LITERAL and theirs is not NOT_LITERAL:
            return float(ours == theirs)
    lexicon = harness.lexicon if harness is not None else Lexicon()
    return float(compact(answer, lexicon) == compact(expected, lexicon))


def compact(text: str, lexicon: Lexicon) -> str:
    """The text without whitespace outside its string and character literals."""
    kept, i = [], 0
    while i < len(text):
        literal = literal_end(text, i, lexicon)
        if literal is not None:
            kept.append(text[i : literal[1]])
            i = literal[1]
            continue
        if not text[i].isspace():
            kept.append(text[i])
        i += 1
    return "".join(kept)


def _python(text: str) -> Any:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOT_LITERAL
