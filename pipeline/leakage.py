"""Answer leakage: program text (comments, asserts, string literals, names) that reveals the output.

A benchmark item whose source says `# Output: 4` next to `print(f(x))` measures reading, not execution
(SURGE's cl subset has several). One detector, two uses, one standard of evidence:

- ``find_leaks(program_text, expected_output)``: the label audit's and the reviewer's evidence, one line
  per finding (``"comment line 19: # Output: 4"``). Short answers (a digit) only count next to a cue word
  such as "output" or "expected", or inside an assert; long answers count wherever they appear verbatim.
- ``guard(source, language, output)``: the refactor's structured leaks. A leak in a comment is cleaned
  (``clean_comments`` cuts it); a leak the code depends on (an assert, an ``expected`` variable, a string
  holding the printed output) cannot be cut safely, so the program goes back to the LLM with the reason.

Comment syntax is the language specs' (``line_comments``, ``block_comments`` in sandboxes/languages/).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pipeline.records import Language
from sandboxes.languages import REGISTRY, spec_for

CommentSyntax = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]  # line prefixes, (open, close) blocks


def comment_syntax(language: Language | None) -> CommentSyntax:
    """The language's comment syntax; for None, every registered language's (in registry order)."""
    specs = [spec_for(language)] if language is not None else list(REGISTRY.values())
    lines = tuple(dict.fromkeys(prefix for spec in specs for prefix in spec.line_comments))
    blocks = tuple(dict.fromkeys(pair for spec in specs for pair in spec.block_comments))
    return lines, blocks


@lru_cache(maxsize=64)
def _comment_patterns(
    line_prefixes: tuple[str, ...], blocks: tuple[tuple[str, str], ...]
) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """A line comment starts a line or follows a space (`a//b` in a URL or `x#y` is not one)."""
    prefixes = "|".join(re.escape(p) for p in sorted(line_prefixes, key=len, reverse=True)) or "(?!)"
    line = re.compile(rf"(?:(?<=\s)|^)({prefixes})(?P<text>[^\n]*)", re.MULTILINE)
    block = "|".join(rf"{re.escape(opening)}(.*?){re.escape(closing)}" for opening, closing in blocks)
    return line, re.compile(block, re.DOTALL) if block else None


# -- the audit's evidence ----------------------------------------------------------------------------

EVIDENCE_CHARS = 120
SHORT_ANSWER_CHARS = 8  # below this, a bare occurrence is likely a coincidence (`4` is everywhere)
_CUE = re.compile(r"output|expect|result|return|print|answer|should|=>|->|==|:", re.IGNORECASE)
_PREPROCESSOR = re.compile(r"#\s*(include|define|pragma|if|ifdef|ifndef|endif|else|elif|undef|import)\b")
_STRING = re.compile(r'"(?P<double>(?:[^"\\\n]|\\.)*)"|\'(?P<single>(?:[^\'\\\n]|\\.)*)\'')
_ASSERT = re.compile(r"^.*\bassert\w*\b.*$", re.MULTILINE | re.IGNORECASE)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _mentions(text: str, answer: str) -> bool:
    """The answer appears in text as a whole token (so `4` is not found inside `42`)."""
    if not answer:
        return False
    pattern = r"(?<![\w.])" + re.escape(answer) + r"(?![\w])"
    return re.search(pattern, _squash(text)) is not None


def _line_of(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def _evidence(kind: str, source: str, offset: int, text: str) -> str:
    return f"{kind} line {_line_of(source, offset)}: {_squash(text)[:EVIDENCE_CHARS]}"


def _comment_leaks(source: str, answer: str, language: Language | None) -> list[str]:
    found: list[str] = []
    line_comment, block_comment = _comment_patterns(*comment_syntax(language))
    for match in line_comment.finditer(source):
        if match.group(1) == "#" and _PREPROCESSOR.match(match.group(0)):
            continue
        text = match["text"]
        if _mentions(text, answer) and (len(answer) >= SHORT_ANSWER_CHARS or _CUE.search(text)):
            found.append(_evidence("comment", source, match.start(), match.group(0)))
    for match in block_comment.finditer(source) if block_comment else ():
        text = next((group for group in match.groups() if group is not None), "")
        if _mentions(text, answer) and (len(answer) >= SHORT_ANSWER_CHARS or _CUE.search(text)):
            found.append(_evidence("comment", source, match.start(), match.group(0)))
    return found


def _assert_leaks(source: str, answer: str) -> list[str]:
    return [
        _evidence("assert", source, m.start(), m.group(0))
        for m in _ASSERT.finditer(source)
        if _mentions(m.group(0), answer)
    ]


def _literal_leaks(source: str, answer: str) -> list[str]:
    """A string literal that *is* the answer (e.g. `expected = "DDDBA"`), escapes read as written."""
    if len(answer) < 3:
        return []
    found = []
    for match in _STRING.finditer(source):
        literal = match["double"] if match["double"] is not None else match["single"]
        if _squash(literal.replace("\\n", "\n")) == answer:
            found.append(_evidence("string literal", source, match.start(), match.group(0)))
    return found


def find_leaks(program_text: str, expected_output: str, language: Language | None = None) -> list[str]:
    """Evidence lines where the program's text gives its expected output away (empty: no leak).

    Comments are read with the language's syntax; without a language (the audit, the reviewer's warnings),
    with every registered language's, so a `//` claim in any program counts.
    """
    answer = _squash(expected_output)
    if not answer:
        return []
    leaks = _comment_leaks(program_text, answer, language) + _assert_leaks(program_text, answer)
    leaks += _literal_leaks(program_text, answer)
    return list(dict.fromkeys(leaks))  # one line of evidence per finding, in source order of kinds


# -- the refactor's guard ----------------------------------------------------------------------------

_CLAIM = re.compile(
    r"\b(output|outputs|expected|expect|answer|result|returns?|prints?|should\s+be)\b|=>|->", re.IGNORECASE
)
_GUARD_ASSERT = re.compile(
    r"\bassert(?:_eq!|_ne!|!|Equals|True|False)?\b|\bAssert\.|@assert\b|console\.assert\b"
)
_EXPECTED_NAME = re.compile(r"\b(expected\w*|EXPECTED\w*|expect_\w+|answer_key)\b")
MIN_OUTPUT_CHARS_FOR_STRING_MATCH = 3  # "1" in a string is not evidence of anything


@dataclass(frozen=True)
class Leak:
    kind: str  # comment | assert | expected_name | string
    line: int  # 1-based
    text: str
    cleanable: bool

    def describe(self) -> str:
        return f"line {self.line}: {self.kind} reveals the output: {self.text.strip()[:120]}"


def guard(source: str, language: Language, output: str | None = None) -> list[Leak]:
    """The refactor's leaks in `source`; with the program's `output`, also comments and strings with it."""
    leaks: list[Leak] = []
    printed = (output or "").strip()
    lines = source.splitlines()
    leaks += _doctest_leaks(lines, printed)
    for number, line in enumerate(lines, start=1):
        code, comment = split_comment(line, language)
        if comment and (_CLAIM.search(comment) and _has_value(comment) or _claims(comment, printed)):
            leaks.append(Leak("comment", number, comment, cleanable=True))
        if _GUARD_ASSERT.search(code):
            leaks.append(Leak("assert", number, code, cleanable=False))
        if _EXPECTED_NAME.search(code):
            leaks.append(Leak("expected_name", number, code, cleanable=False))
        if len(printed) >= MIN_OUTPUT_CHARS_FOR_STRING_MATCH and "\n" not in printed:
            for literal in _STRING.finditer(code):
                if literal.group(0)[1:-1] == printed and not _is_printed_directly(code):
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
    line_prefixes, blocks = comment_syntax(language)
    markers = line_prefixes + tuple(opening for opening, _ in blocks)
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


def _claims(comment: str, printed: str) -> bool:
    if not printed or len(printed) > 200:
        return False
    if len(printed) < MIN_OUTPUT_CHARS_FOR_STRING_MATCH:  # a bare "4": only next to a claim word
        return bool(re.search(rf"(?:{_CLAIM.pattern})\W*{re.escape(printed)}\b", comment, re.IGNORECASE))
    return printed in comment


def _is_printed_directly(code: str) -> bool:
    # print("Hello") printing a constant is the program, not a leak of its result.
    return bool(re.search(r"\b(print|println!?|printf|puts|Console\.Write(Line)?|console\.log|cout)\b", code))
