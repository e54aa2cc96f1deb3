"""Pull the one usable block out of an LLM answer, or say precisely why there is none.

The reason goes back to the LLM verbatim in the next round, so it is written as an instruction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.records import Language
from sandboxes.languages import REGISTRY, spec_for

MAX_ANSWER_CHARS = 60_000  # ~15k tokens: far beyond any benchmark program; a bigger answer is a runaway

_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL
)
_OPEN_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)


@dataclass(frozen=True)
class Extraction:
    text: str | None  # None: nothing usable
    problem: str = ""  # why not, phrased for the model
    kind: str = "ok"  # ok | huge | truncated | no_code | wrong_language | empty

    @property
    def ok(self) -> bool:
        return self.text is not None


def extract_code(
    answer: str, language: Language, finish_reason: str = "stop", max_chars: int = MAX_ANSWER_CHARS
) -> Extraction:
    """The program in the answer: the longest block tagged with the language (or untagged)."""
    if problem := _size_or_cut(answer, finish_reason, max_chars):
        return problem
    blocks = [(tag.lower(), body) for _, tag, body in _FENCE.findall(answer)]
    if not blocks:
        if _OPEN_FENCE.search(answer):
            return Extraction(None, "the code block is not closed (the answer was cut off)", "truncated")
        return Extraction(
            None, f"the answer contains no fenced ```{spec_for(language).fence_name} code block", "no_code"
        )
    wanted = spec_for(language).fence_tags
    known = {tag for spec in REGISTRY.values() for tag in spec.fence_tags}  # another language's block
    usable = [body for tag, body in blocks if tag in wanted or tag not in known]
    if not usable:
        tags = sorted({tag for tag, _ in blocks})
        return Extraction(
            None,
            f"the code is in {', '.join(tags)}, but a {language.value} program is required",
            "wrong_language",
        )
    code = max(usable, key=len).strip("\n")
    if not code.strip():
        return Extraction(None, "the code block is empty", "empty")
    return Extraction(code + "\n")


def extract_input(answer: str, finish_reason: str = "stop", max_chars: int = MAX_ANSWER_CHARS) -> Extraction:
    """An stdin input: the first fenced block, or the bare answer when the model used no fence."""
    if problem := _size_or_cut(answer, finish_reason, max_chars):
        return problem
    blocks = _FENCE.findall(answer)
    if blocks:
        text = max((body for _, _, body in blocks), key=len)
    elif _OPEN_FENCE.search(answer):
        return Extraction(None, "the input block is not closed (the answer was cut off)", "truncated")
    else:
        text = answer
    text = text.strip("\n")
    if not text.strip():
        return Extraction(None, "the input is empty", "empty")
    return Extraction(text + "\n")


def extract_digit(answer: str, low: int = 1, high: int = 5) -> int | None:
    match = re.search(rf"\b([{low}-{high}])\b", answer)
    return int(match[1]) if match else None


def _size_or_cut(answer: str, finish_reason: str, max_chars: int) -> Extraction | None:
    if len(answer) > max_chars:
        return Extraction(
            None,
            f"the answer is {len(answer)} characters long (limit {max_chars}); "
            "give only the program, without repetition",
            "huge",
        )
    if finish_reason == "length":
        return Extraction(
            None, "the answer was cut off at the token limit; give a shorter complete program", "truncated"
        )
    if not answer.strip():
        return Extraction(None, "the answer is empty", "empty")
    return None
