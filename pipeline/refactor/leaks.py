"""Leak guard: a program must not reveal its own output in comments, asserts, strings or names.

SURGE's cl subset shows the failure this guards against (``print(f(x)) # Output: 4``). A leak in a comment
is cleaned here (the comment is cut); a leak the code depends on (an assert, an ``expected`` variable, a
string holding the printed output) cannot be cut safely, so the program goes back to the LLM with the reason.
This is the refactor-time guard (structured, language-aware, cleanable); the reviewer's warnings come from
the label audit's ``pipeline.leakage.find_leaks``, so both apply one standard of evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.leakage import find_leaks as audit_find_leaks
from pipeline.records import Language

HASH_COMMENTS = frozenset({Language.PYTHON, Language.JULIA})
_CLAIM = re.compile(
    r"\b(output|outputs|expected|expect|answer|result|returns?|prints?|should\s+be)\b|=>|->", re.IGNORECASE
)
_ASSERT = re.compile(r"\bassert(?:_eq!|_ne!|!|Equals|True|False)?\b|\bAssert\.|@assert\b|console\.assert\b")
_EXPECTED_NAME = re.compile(r"\b(expected\w*|EXPECTED\w*|expect_\w+|answer_key)\b")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
MIN_OUTPUT_CHARS_FOR_STRING_MATCH = 3  # "1" in a string is not evidence of anything


@dataclass(frozen=True)
class Leak:
    kind: str  # comment | assert | expected_name | string
    line: int  # 1-based
    text: str
    cleanable: bool

    def describe(self) -> str:
        return f"line {self.line}: {self.kind} reveals the output: {self.text.strip()[:120]}"


def find_leaks(source: str, language: Language, output: str | None = None) -> list[Leak]:
    """Leaks in `source`; with the program's `output`, also comments and strings that contain it."""
    leaks: list[Leak] = []
    printed = (output or "").strip()
    lines = source.splitlines()
    leaks += _doctest_leaks(lines, printed)
    for number, line in enumerate(lines, start=1):
        code, comment = split_comment(line, language)
        if comment and (_CLAIM.search(comment) and _has_value(comment) or _mentions(comment, printed)):
            leaks.append(Leak("comment", number, comment, cleanable=True))
        if _ASSERT.search(code):
            leaks.append(Leak("assert", number, code, cleanable=False))
        if _EXPECTED_NAME.search(code):
            leaks.append(Leak("expected_name", number, code, cleanable=False))
        if len(printed) >= MIN_OUTPUT_CHARS_FOR_STRING_MATCH and "\n" not in printed:
            for literal in _STRING.findall(code):
                if literal[1:-1] == printed and not _is_printed_directly(code):
                    leaks.append(Leak("string", number, code, cleanable=False))
    return leaks


def _doctest_leaks(lines: list[str], printed: str) -> list[Leak]:
    """A docstring or comment example (`>>> f(3.5)` then `0.5`) whose shown result is the printed output.

    McEval prompts carry such examples, and the test a model picks is often one of them (seen on McEval
    Python/3). Deleting the two example lines cannot change what the program prints.
    """
    if not printed:
        return []
    found = []
    for index, line in enumerate(lines[:-1]):
        if ">>>" in line and lines[index + 1].strip().strip("*/#").strip() == printed:
            found.append(Leak("doctest", index + 1, line, cleanable=True))
            found.append(Leak("doctest", index + 2, lines[index + 1], cleanable=True))
    return found


def clean_comments(source: str, language: Language, leaks: list[Leak]) -> str:
    """Cut the leaking comments (whole-line comments and doctest examples disappear with their line)."""
    lines = source.splitlines()
    doctest_lines = {leak.line for leak in leaks if leak.kind == "doctest"}
    # Bottom-up, so deleting a line never shifts the numbers of the lines still to handle.
    for number in sorted({leak.line for leak in leaks if leak.cleanable}, reverse=True):
        if number in doctest_lines:
            del lines[number - 1]
            continue
        code, _ = split_comment(lines[number - 1], language)
        if code.strip():
            lines[number - 1] = code.rstrip()
        else:
            del lines[number - 1]
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")


def split_comment(line: str, language: Language) -> tuple[str, str]:
    """(code, comment) of one line; quotes are tracked so '#' or '//' inside a string is not a comment."""
    markers = ("#",) if language in HASH_COMMENTS else ("//", "/*")
    quote: str | None = None
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if char == quote:
                quote = None
        elif char in "\"'`":
            quote = char
        else:
            for marker in markers:
                if line.startswith(marker, index):
                    return line[:index], line[index:]
        index += 1
    return line, ""


def _has_value(comment: str) -> bool:
    # "# returns the sum" is documentation; "# Output: 4" or "# -> [1, 2]" carries a value.
    return bool(re.search(r"(:|=|->|=>|is|be)\s*[\[\(\{\"'\-]?\s*[\w.]", comment)) and bool(
        re.search(r"\d|true|false|none|null|\[|\"", comment, re.IGNORECASE)
    )


def _mentions(comment: str, printed: str) -> bool:
    if not printed or len(printed) > 200:
        return False
    if len(printed) < MIN_OUTPUT_CHARS_FOR_STRING_MATCH:  # a bare "4": only next to a claim word
        return bool(re.search(rf"(?:{_CLAIM.pattern})\W*{re.escape(printed)}\b", comment, re.IGNORECASE))
    return printed in comment


def _is_printed_directly(code: str) -> bool:
    # print("Hello") printing a constant is the program, not a leak of its result.
    return bool(re.search(r"\b(print|println!?|printf|puts|Console\.Write(Line)?|console\.log|cout)\b", code))


def audit_warnings(source: str, output: str) -> list[str]:
    """What the label audit (``pipeline.leakage``) would flag, for the reviewer: one standard of evidence."""
    return audit_find_leaks(source, output)
