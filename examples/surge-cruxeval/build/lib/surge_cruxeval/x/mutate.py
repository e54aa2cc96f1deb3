"""The mutant of a check: its expected value with one literal altered, so that a check which can fail does.

The check passed, so the value ``f`` returns equals the expected value as written; the same expected value
with one literal changed is then a value ``f`` does not return, and a check that compares them must fail.
The first literal of the expected value is altered, whatever its kind:

- a string gains a ``!`` before its closing quote (not a letter: ``"$x"`` would name another variable);
- a number's integer part grows by one (``9l`` -> ``10l``, ``-1`` -> ``-2``, ``0.5`` -> ``1.5``);
- a boolean is negated (``true`` -> ``false``, ``#t`` -> ``#f``);
- a character literal of the C family moves to the next letter or digit (``'a'`` -> ``'b'``).

An expected value with no literal (an empty list) is altered by its language's rule for empty
collections, where one is cheap and safe for every element type (``Vec::<T>::new()`` ->
``vec![<T>::default()]``); where none applies there is no mutant, and the plan says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from surge_cruxeval.x.locate import Lexicon, literal_end

NUMBER = re.compile(r"(\d+)((?:\.\d+)?(?:[eE][+-]?\d+)?)(\w*)")
WORD = re.compile(r"[A-Za-z_#][\w?!#]*")
STRING_MARK = "!"


@dataclass(frozen=True)
class Mutation:
    expected: str  # the altered expected value
    how: str  # what was altered, for the plan's ``mutation`` and the audit's evidence


def mutated(expected: str, lex: Lexicon, empties: tuple[tuple[str, str], ...]) -> Mutation | str:
    """The expected value with its first literal altered, or why there is none."""
    found = first_literal(expected, lex)
    if found is not None:
        return found
    for pattern, replacement in empties:
        if re.fullmatch(pattern, expected.strip(), re.DOTALL):
            altered = re.sub(pattern, replacement, expected.strip(), count=1, flags=re.DOTALL)
            return Mutation(
                altered, f"the empty expected value `{_short(expected)}` became `{_short(altered)}`"
            )
    rules = "its language has no rule for one" if not empties else "no rule of its language fits it"
    literal = "no string, number or boolean literal to alter"
    return f"the expected value `{_short(expected)}` has {literal}, and {rules}"


def first_literal(text: str, lex: Lexicon) -> Mutation | None:
    i = 0
    while i < len(text):
        literal = literal_end(text, i, lex)
        if literal is not None:
            kind, end = literal
            altered = _string(text, i, end) if kind == "string" else _char(text, i, end, lex)
            if altered is not None:
                return _spliced(text, i, end, altered, kind)
            i = end
            continue
        word = WORD.match(text, i) if not text[i].isdigit() else None
        if word is not None:
            negation = dict(lex.booleans).get(word.group())
            if negation is not None:
                return _spliced(text, i, word.end(), negation, "boolean")
            i = word.end()
            continue
        number = NUMBER.match(text, i) if not _after_dot(text, i) else None
        if number is not None:
            altered = _number(number)
            if altered is not None:
                return _spliced(text, i, number.end(), altered, "number")
            i = number.end()
            continue
        i += 1
    return None


def _after_dot(text: str, i: int) -> bool:
    """A digit after a dot is a member (``t.0``) or the rest of a number already passed."""
    return i > 0 and text[i - 1] == "."


def _number(match: re.Match[str]) -> str | None:
    whole, fraction, suffix = match.groups()
    if whole == "0" and suffix[:1] in ("x", "X", "b", "B", "o", "O"):
        return None  # 0x1F: another base; left alone
    return f"{int(whole) + 1}{fraction}{suffix}"


def _string(text: str, start: int, end: int) -> str | None:
    literal = text[start:end]
    closing = _closing_length(literal)
    if len(literal) < 2 * closing:
        return None  # unterminated: nothing safe to alter
    return literal[:-closing] + STRING_MARK + literal[-closing:]


def _closing_length(literal: str) -> int:
    return 3 if len(literal) >= 6 and literal[:3] == literal[-3:] and literal[0] * 3 == literal[:3] else 1


def _char(text: str, start: int, end: int, lex: Lexicon) -> str | None:
    body = text[start + 1 : end - 1]
    if lex.lisp or len(body) != 1 or not body.isascii() or not body.isalnum():
        return None
    successor = {"z": "a", "Z": "A", "9": "0"}.get(body, chr(ord(body) + 1))
    return f"{text[start]}{successor}{text[end - 1]}"


def _spliced(text: str, start: int, end: int, altered: str, kind: str) -> Mutation:
    how = f"the expected value's first {kind} literal `{_short(text[start:end])}` became `{_short(altered)}`"
    return Mutation(text[:start] + altered + text[end:], how)


def _short(text: str, limit: int = 60) -> str:
    flat = text.replace("\n", "\\n")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
