"""Answer leakage: program text (comments, asserts, string literals) that reveals the expected output.

A benchmark item whose source says `# Output: 4` next to `print(f(x))` measures reading, not
execution (SURGE's cl subset has several). `find_leaks` returns one line of evidence per finding:
``"comment line 19: # Output: 4"``. Short answers (a digit) only count next to a cue word such as
"output" or "expected", or inside an assert; long answers count wherever they appear verbatim.
"""

from __future__ import annotations

import re

EVIDENCE_CHARS = 120
SHORT_ANSWER_CHARS = 8  # below this, a bare occurrence is likely a coincidence (`4` is everywhere)
_CUE = re.compile(r"output|expect|result|return|print|answer|should|=>|->|==|:", re.IGNORECASE)
_PREPROCESSOR = re.compile(r"#\s*(include|define|pragma|if|ifdef|ifndef|endif|else|elif|undef|import)\b")
_LINE_COMMENT = re.compile(r"(?:(?<=\s)|^)(#|//|--)(?P<text>[^\n]*)", re.MULTILINE)
_BLOCK_COMMENT = re.compile(r"/\*(?P<text>.*?)\*/|/-(?P<lean>.*?)-/|\"\"\"(?P<doc>.*?)\"\"\"", re.DOTALL)
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


def _comment_leaks(source: str, answer: str) -> list[str]:
    found: list[str] = []
    for match in _LINE_COMMENT.finditer(source):
        if match.group(1) == "#" and _PREPROCESSOR.match(match.group(0)):
            continue
        text = match["text"]
        if _mentions(text, answer) and (len(answer) >= SHORT_ANSWER_CHARS or _CUE.search(text)):
            found.append(_evidence("comment", source, match.start(), match.group(0)))
    for match in _BLOCK_COMMENT.finditer(source):
        text = match["text"] or match["lean"] or match["doc"] or ""
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


def find_leaks(program_text: str, expected_output: str) -> list[str]:
    """Evidence lines where the program's text gives its expected output away (empty: no leak)."""
    answer = _squash(expected_output)
    if not answer:
        return []
    leaks = _comment_leaks(program_text, answer) + _assert_leaks(program_text, answer)
    leaks += _literal_leaks(program_text, answer)
    return list(dict.fromkeys(leaks))  # one line of evidence per finding, in source order of kinds
