"""Where a CRUXEval-X program's check holds its expected value: a small scanner over the check's text.

Every translation ends in one check of ``f`` on one input, in its harness's idiom (``assert.deepEqual(
candidate(x), E)``, ``assert_equal(E, candidate.call(x))``, ``(check-within (candidate x) E 0.001)``, ...).
A ``Locator`` says, per language, where that check starts (the last match of a pattern: a helper's own
``assert`` comes before the check) and which part of it is the expected value: a top-level argument, what
follows a top-level operator (``==``, ``.equals``), or an element of an S-expression. The scanner knows
only what it must to find those parts: brackets, and the string and character literals that may hold a
bracket or a comma (``Lexicon``), so ``f("a, b") == "(x"`` splits where the code does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

OPENERS, CLOSERS = "([{", ")]}"
Span = tuple[int, int]


@dataclass(frozen=True)
class Lexicon:
    """How one language spells the literals the scanner must step over and the mutant may alter."""

    quotes: str = '"'  # string delimiters with backslash escapes
    raw_quotes: str = ""  # string delimiters without escapes (the shell's '', Go's ``)
    chars: str = ""  # the character-literal delimiter of the C family ('a')
    booleans: tuple[tuple[str, str], ...] = (("true", "false"), ("false", "true"))  # word -> its negation
    triple: bool = False  # Python's ''' and \"\"\" strings
    lisp: bool = False  # Racket: #\c characters; ' quotes a datum, it opens no string


@dataclass(frozen=True)
class Locator:
    """Where the check starts and which part of it is the expected value (exactly one of arg, after,
    sexp)."""

    anchor: str  # a pattern (MULTILINE); its last match ends where the check's region starts
    arg: int | None = None  # the expected value is this top-level argument of the region
    after: tuple[str, ...] = ()  # ... or what follows the first of these top-level operators
    sexp: int | None = None  # ... or this element of an S-expression
    line: bool = False  # the region ends with its line (Python's `assert`), not at an unopened closer


def literal_end(text: str, i: int, lex: Lexicon) -> tuple[str, int] | None:
    """(kind, end) of the string or character literal that starts at ``i``, or None."""
    ch = text[i]
    if lex.lisp and text.startswith("#\\", i):
        return "char", min(len(text), i + 3)
    if lex.triple and ch in lex.quotes and text.startswith(ch * 3, i):
        end = text.find(ch * 3, i + 3)
        return "string", (len(text) if end < 0 else end + 3)
    if ch in lex.quotes or ch in lex.chars:
        return ("char" if ch in lex.chars else "string"), _escaped_end(text, i, ch)
    if ch in lex.raw_quotes:
        end = text.find(ch, i + 1)
        return "string", (len(text) if end < 0 else end + 1)
    return None


def _escaped_end(text: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    return len(text)


def code_chars(text: str, start: int, end: int, lex: Lexicon) -> Iterator[tuple[int, int]]:
    """(index, depth) of each character outside literals from ``start``: an opener at the depth it opens
    from, a closer at the depth it returns to (-1: it closes what the region did not open)."""
    depth, i = 0, start
    while i < end:
        literal = literal_end(text, i, lex)
        if literal is not None:
            i = literal[1]
            continue
        ch = text[i]
        if ch in OPENERS:
            yield i, depth
            depth += 1
        elif ch in CLOSERS:
            depth -= 1
            yield i, depth
        else:
            yield i, depth
        i += 1


def region_end(text: str, start: int, lex: Lexicon, line: bool) -> int:
    """Where the region from ``start`` ends: at a closer it did not open, or (``line``) a newline at its
    top level; else the end of the text."""
    for i, depth in code_chars(text, start, len(text), lex):
        if depth < 0 or (line and depth == 0 and text[i] == "\n"):
            return i
    return len(text)


def arguments(text: str, start: int, end: int, lex: Lexicon) -> list[Span]:
    """The top-level, comma-separated parts of ``text[start:end]``."""
    parts, begin = [], start
    for i, depth in code_chars(text, start, end, lex):
        if depth == 0 and text[i] == ",":
            parts.append((begin, i))
            begin = i + 1
    return [*parts, (begin, end)]


def operator_at(text: str, start: int, end: int, lex: Lexicon, operators: tuple[str, ...]) -> Span | None:
    """The first top-level occurrence of one of ``operators`` (``==`` not inside ``===``, ``!=``, ``<=``)."""
    for i, depth in code_chars(text, start, end, lex):
        if depth != 0:
            continue
        for op in operators:
            if text.startswith(op, i) and not _inside_longer(text, i, op):
                return i, i + len(op)
    return None


def _inside_longer(text: str, i: int, op: str) -> bool:
    if not op.startswith("="):
        return False
    before = text[i - 1] if i > 0 else ""
    after = text[i + len(op)] if i + len(op) < len(text) else ""
    return before in "!=<>" and before != "" or after == "="


def elements(text: str, start: int, end: int, lex: Lexicon) -> list[Span]:
    """The whitespace-separated data of an S-expression's body (``'(1 2)`` and ``#hash(...)`` are one)."""
    spans: list[Span] = []
    i = start
    while i < end:
        if text[i].isspace():
            i += 1
            continue
        close = _datum_end(text, i, end, lex)
        spans.append((i, close))
        i = close
    return spans


def _datum_end(text: str, i: int, end: int, lex: Lexicon) -> int:
    literal = literal_end(text, i, lex)
    if literal is not None:
        return literal[1]
    j = i
    while j < end and not text[j].isspace() and text[j] not in OPENERS + CLOSERS:
        if j > i and literal_end(text, j, lex) is not None:
            break
        j += 1
    prefixed = j == i or text[i] in "'`,#"  # a group, or one a quote or a reader prefix opens
    if j < end and text[j] in OPENERS and prefixed:
        close = _matching(text, j, end, lex)
        return end if close is None else close + 1
    return max(j, i + 1)


def unwrapped(text: str, span: Span, lex: Lexicon) -> Span:
    """The span without surrounding whitespace and without parentheses that enclose all of it."""
    start, end = _stripped(text, span)
    while start < end and text[start] == "(" and _matching(text, start, end, lex) == end - 1:
        start, end = _stripped(text, (start + 1, end - 1))
    return start, end


def _stripped(text: str, span: Span) -> Span:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _matching(text: str, opener: int, end: int, lex: Lexicon) -> int | None:
    for i, depth in code_chars(text, opener + 1, end, lex):
        if depth < 0:
            return i
    return None


def expected_span(code: str, locator: Locator, lex: Lexicon) -> Span | None:
    """Where the check's expected value is in ``code``, or None when the check cannot be found."""
    matches = list(re.finditer(locator.anchor, code, re.MULTILINE))
    if not matches:
        return None
    start = matches[-1].end()
    end = region_end(code, start, lex, locator.line)
    span: Span | None = None
    if locator.arg is not None:
        parts = arguments(code, start, end, lex)
        span = parts[locator.arg] if locator.arg < len(parts) else None
    elif locator.sexp is not None:
        parts = elements(code, start, end, lex)
        span = parts[locator.sexp] if locator.sexp < len(parts) else None
    else:
        found = operator_at(code, start, end, lex, locator.after)
        span = (found[1], end) if found is not None else None
    if span is None:
        return None
    # a datum's parentheses are the datum (Racket's `(list )`); elsewhere they only group
    span = _stripped(code, span) if locator.sexp is not None else unwrapped(code, span, lex)
    return span if span[0] < span[1] else None
